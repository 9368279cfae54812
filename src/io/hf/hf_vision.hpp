#pragma once
// Vision towers of Hugging Face vision-language configs (methodology §1.6; docs/model-spec.md).
#include <optional>
#include <string>
#include <vector>

#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/vision.hpp"

namespace rightsize::io {

/// The vision tower of `root` (a config.json whose `vision_config` is `vision`) for the outer
/// model_type `type` (qwen2_5_vl, qwen3_vl, qwen3_vl_moe, gemma3, llama4, llava); the projector
/// maps into `lm_hidden`. Unset for other types (their tower is not counted).
std::optional<VisionTowerSpec> import_vision_config(const JsonReader& root, const JsonReader& vision,
                                                    const std::string& type, std::int64_t lm_hidden);

/// Reads workload.images_per_request / image_width_px / image_height_px of `workload` into
/// spec.model.vision and adds the image tokens to spec.inference.input_tokens, stating them in
/// spec.assumptions. Images for a model without a vision tower, or a resolution without images,
/// are errors naming the key.
void parse_vision_request(const JsonReader& workload, Spec& spec);

} // namespace rightsize::io
