#include "app/inputs.hpp"

namespace rightsize::app {

Spec load_spec(const SpecInputs& inputs) {
  return load_spec(inputs.spec, inputs.environment);
}

LoadedCatalog load_catalog(const SpecInputs& inputs, const Spec& spec, Diagnostics& diagnostics) {
  return load_catalog(inputs.catalog, inputs.environment, diagnostics, &spec.constraints, spec.source);
}

} // namespace rightsize::app
