#include "app/inputs.hpp"

namespace rightsize::app {

Spec load_spec(const SpecInputs& inputs, Diagnostics& diagnostics) {
  Spec spec = load_spec(inputs.spec, inputs.environment);
  warn_spec(spec, diagnostics);
  return spec;
}

void warn_spec(const Spec& spec, Diagnostics& diagnostics) {
  for (const std::string& w : spec.warnings)
    diagnostics.warn(w);
}

LoadedCatalog load_catalog(const SpecInputs& inputs, const Spec& spec, Diagnostics& diagnostics) {
  return load_catalog(inputs.catalog, inputs.environment, diagnostics, &spec.constraints, spec.source);
}

} // namespace rightsize::app
