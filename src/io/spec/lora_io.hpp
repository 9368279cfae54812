#pragma once
// workload.lora (docs/model-spec.md "workload", methodology §3.10).
#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::io {

/// "all_linear", "attention" or "qv" (workload.lora.targets, training.lora_targets).
LoraTargets parse_lora_targets(const JsonReader& value);

/// Reads workload.lora into spec.inference.lora: adapters, rank, max_active (default min(adapters,
/// 8), stated in spec.assumptions) and targets (default all_linear, stated).
void parse_lora(const JsonReader& value, Spec& spec);

} // namespace rightsize::io
