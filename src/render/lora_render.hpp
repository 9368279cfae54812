#pragma once
// Multi-LoRA serving in estimate and recommend output (methodology §3.10).
#include <string>

#include <nlohmann/json.hpp>

#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// "16 adapters of rank 16 on every projection, up to 8 per batch"; "" without workload.lora.
std::string lora_source(const LoraServing& lora);

/// The estimate's LoRA line (no trailing newline); "" when inactive.
std::string lora_line(const LoraServing& lora, const InferenceEstimate& estimate);

/// inference.lora of the estimate JSON (docs/output-schema.md); null when inactive.
nlohmann::json lora_json(const LoraServing& lora, const InferenceEstimate& estimate);

} // namespace rightsize::cli
