#pragma once
// The spec's workload block (docs/model-spec.md "workload"): inference, training and image requests.
#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::io {

/// Reads root's "workload" into spec (mode, inference or training workload, image request), with
/// every default it fills stated in spec.assumptions.
void parse_workload(const JsonReader& root, Spec& spec);

} // namespace rightsize::io
