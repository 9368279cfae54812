#pragma once
// The `validate` use case (docs/cli.md "validate"): what rightsize derives from a spec before any
// GPU is involved — parameter counts, weight bytes, KV cache per token, linear-attention state.
#include "app/diagnostics.hpp"
#include "app/inputs.hpp"
#include "rightsize/model.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// The figures `validate` prints for a loaded spec.
struct ValidateResult {
  ParamCounts params;
  double weight_bytes = 0.0;
  double kv_bytes_per_token = 0.0;
  double linear_state_bytes = 0.0; ///< per sequence, linear-attention layers (methodology §2.3)
};

/// Resolves the spec's model at its precision.
ValidateResult run_validate(const Spec& spec);

/// `validate`'s flags, parsed: the spec and the catalog its GPUs must be in.
struct ValidateRequest {
  SpecInputs inputs; ///< its catalog: --catalog / --catalog-add only, the GPUs the spec may name
};

/// The loaded spec and what rightsize derives from it.
struct ValidateOutcome {
  Spec spec;
  ValidateResult result;
};

/// Loads the spec; the GPUs it names (its deployment, pools, constraints.gpus) must exist in the
/// catalog the other commands would load (an input Error at the pointer otherwise, so a typo fails
/// here and not at the first estimate).
ValidateOutcome run_validate(const ValidateRequest& request, Diagnostics& diagnostics);

} // namespace rightsize::app
