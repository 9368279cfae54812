#pragma once
// What every spec-driven use case (estimate, check, recommend, sweep, validate) starts from: the spec
// file, the process facts the CLI read, the catalog and the engine the flags ask for.
#include <string>

#include "app/catalog_setup.hpp"
#include "app/context.hpp"
#include "app/diagnostics.hpp"
#include "app/engine_setup.hpp"
#include "app/environment.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

struct SpecInputs {
  std::string spec; ///< the spec file
  Environment environment;
  CatalogSetup catalog;
  EngineSetup engine;
};

/// Loads the spec of `inputs` with the presets of its data folder and says its warnings (an
/// hf_config read as a generic decoder) through `diagnostics`, once each.
Spec load_spec(const SpecInputs& inputs, Diagnostics& diagnostics);

/// Says a loaded spec's warnings through `diagnostics`, once each.
void warn_spec(const Spec& spec, Diagnostics& diagnostics);

/// Loads the catalog of `inputs` under `spec`'s constraints (pricing, provider, TCO).
LoadedCatalog load_catalog(const SpecInputs& inputs, const Spec& spec, Diagnostics& diagnostics);

} // namespace rightsize::app
