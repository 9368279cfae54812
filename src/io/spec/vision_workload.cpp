// workload.images_per_request / image_width_px / image_height_px (docs/model-spec.md; methodology
// §1.6): a vision-language model's images become prompt tokens by the model's own rule.
#include <utility>

#include <fmt/format.h>

#include "io/hf/hf_vision.hpp"
#include "io/json/checks.hpp"

namespace rightsize::io {

void parse_vision_request(const JsonReader& w, Spec& spec) {
  VisionTowerSpec& v = spec.model.vision;
  const auto images = w.find("images_per_request");
  for (const auto& [key, out] : {std::pair<const char*, std::int64_t*>{"image_width_px", &v.image_width_px},
                                 {"image_height_px", &v.image_height_px}}) {
    auto px = w.find(key);
    if (!px) continue;
    if (!images) px->fail("expected only with workload.images_per_request");
    *out = positive_count(*px, 65'536, "pixels");
  }
  if (!images) return;
  if (v.layers == 0) {
    images->fail(
        "expected images only for a vision-language model (an hf_config whose vision_config "
        "rightsize counts: qwen2_5_vl, qwen3_vl, gemma3, llama4, llava), got a model without a vision "
        "tower");
  }
  v.images_per_request = non_negative_count(*images, 1'000, "images");
  const std::int64_t text = spec.inference.input_tokens;
  const VisionRequest r = vision_request(v);
  if (v.images_per_request == 0) return;
  // The prompt keeps the input_tokens limit (10,000,000) with its image tokens added.
  if (text + r.image_tokens > 10'000'000) {
    images->fail(
        fmt::format("expected at most 10,000,000 prompt tokens with the images, got {} text + {} image "
                    "tokens ({} per image)",
                    text, r.image_tokens, r.image.tokens));
  }
  spec.inference.input_tokens += r.image_tokens;
  spec.assumptions.push_back(fmt::format(
      "vision: {} image(s) of {}x{} px per request (resized to {}x{}{}) = {} image tokens each, {} in all; "
      "prompt = {} text + {} image = {} tokens; vision encoder {:.3g} TFLOP per request in prefill",
      v.images_per_request, v.image_width_px > 0 ? v.image_width_px : default_image_side_px(v),
      v.image_height_px > 0 ? v.image_height_px : default_image_side_px(v), r.image.resized_width_px,
      r.image.resized_height_px, r.image.tiles > 1 ? fmt::format(", {} tiles", r.image.tiles) : std::string(),
      r.image.tokens, r.image_tokens, text, r.image_tokens, spec.inference.input_tokens,
      r.encoder_flops / 1e12));
  if (w.find("image_width_px") == std::nullopt || w.find("image_height_px") == std::nullopt) {
    spec.assumptions.push_back(fmt::format(
        "workload.image_width_px / image_height_px not given: {} px per side", default_image_side_px(v)));
  }
}

} // namespace rightsize::io
