#include "app/validate.hpp"

namespace rightsize::app {

ValidateResult run_validate(const Spec& spec) {
  ValidateResult r;
  r.params = count_params(spec.model);
  r.weight_bytes = weight_bytes(spec.model, spec.precision);
  r.kv_bytes_per_token = kv_cache_bytes_per_token(spec.model, spec.precision.kv_bytes_per_element());
  // The conv state is kept at 16 bits (2 bytes per element; methodology §2.3).
  r.linear_state_bytes = linear_state_bytes_per_sequence(spec.model, 2.0);
  return r;
}

} // namespace rightsize::app
