#pragma once
// workload.prefix_cache and workload.kv_offload (docs/model-spec.md "workload", methodology §3.9).
#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::io {

/// Reads workload.prefix_cache into spec.inference.prefix_cache: a hit rate (with an optional
/// working set) or the structure the hits come from; needs input and output tokens read first.
void parse_prefix_cache(const JsonReader& value, Spec& spec);

/// Reads workload.kv_offload into spec.inference.kv_offload; needs the prefix cache read first.
void parse_kv_offload(const JsonReader& value, Spec& spec);

} // namespace rightsize::io
