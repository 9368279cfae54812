#include "app/validate.hpp"

#include <fmt/format.h>

namespace rightsize::app {
namespace {

// The GPUs the spec names exist in the catalog the other commands would load (exit 3 at the pointer,
// require_gpu), so a typo fails here and not at the first estimate.
void check_gpus(const Spec& spec, const ValidateRequest& request, Diagnostics& diagnostics) {
  if (!spec.deployment && !spec.disaggregated && spec.constraints.gpus.empty()) return;
  const LoadedCatalog loaded = load_catalog(request.inputs, spec, diagnostics);
  if (spec.deployment)
    (void)require_gpu(loaded.catalog, spec.deployment->gpu, spec.source, "/deployment/gpu");
  if (spec.disaggregated) {
    (void)require_gpu(loaded.catalog, spec.disaggregated->prefill.gpu, spec.source,
                      "/deployment/prefill/gpu");
    (void)require_gpu(loaded.catalog, spec.disaggregated->decode.gpu, spec.source, "/deployment/decode/gpu");
  }
  for (std::size_t i = 0; i < spec.constraints.gpus.size(); ++i) {
    (void)require_gpu(loaded.catalog, spec.constraints.gpus[i], spec.source,
                      fmt::format("/constraints/gpus/{}", i));
  }
}

} // namespace

ValidateResult run_validate(const Spec& spec) {
  ValidateResult r;
  r.params = count_params(spec.model);
  r.weight_bytes = weight_bytes(spec.model, spec.precision);
  r.kv_bytes_per_token = kv_cache_bytes_per_token(spec.model, spec.precision.kv_bytes_per_element());
  // The conv state is kept at 16 bits (2 bytes per element; methodology §2.3).
  r.linear_state_bytes = linear_state_bytes_per_sequence(spec.model, 2.0);
  return r;
}

ValidateOutcome run_validate(const ValidateRequest& request, Diagnostics& diagnostics) {
  ValidateOutcome out;
  out.spec = load_spec(request.inputs, diagnostics);
  check_gpus(out.spec, request, diagnostics);
  out.result = run_validate(out.spec);
  return out;
}

} // namespace rightsize::app
