#pragma once
// The `validate` use case (docs/cli.md "validate"): what rightsize derives from a spec before any
// GPU is involved — parameter counts, weight bytes, KV cache per token, linear-attention state.
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

} // namespace rightsize::app
