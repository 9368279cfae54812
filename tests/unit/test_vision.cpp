// Vision-language models (issue 19 item 2, methodology §1.6): vision towers imported from the configs
// in tests/io/hf/ (sources in its README), their parameters against the published totals, the image
// tokens per request by each model's rule and the vision encoder's FLOPs in prefill.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "hf_import.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/model.hpp"
#include "rightsize/vision.hpp"

using namespace rightsize;

namespace {

double billions_vision(std::int64_t v) {
  return static_cast<double>(v) / 1e9;
}

std::string spec_error_vision(const nlohmann::json& doc) {
  try {
    (void)io::parse_spec(doc, "s.json", std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf",
                         std::string(RIGHTSIZE_DATA_DIR) + "/models");
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("vision towers: parameters against the published totals", "[io][vision]") {
  struct Case {
    const char* file;
    std::int64_t vision; // hand-derived from the modeling code's module shapes (methodology §1.6)
    std::int64_t total;  // text + vision
    double published_b;  // model card / Hugging Face parameter count, billions_vision
    double tolerance;    // relative
  };
  const Case cases[] = {
      // Qwen2.5-VL-7B: patch 3·2·14²·1280, 32 blocks of 19,702,200 (qkv/proj biased, biased SwiGLU
      // 3420, 2 RMSNorms), merger RMSNorm + 5120² + 5120·3584 with biases. "8.29B" (HF).
      {"Qwen2.5-VL-7B-Instruct.json", 676'550'144, 8'292'166'656, 8.29, 0.001},
      // Qwen3-VL-4B: biased Conv3d 3·2·16²·1024, 2,304 positions, 24 LayerNorm blocks, merger + 3
      // DeepStack mergers; text Qwen3-4B (tied). "4.44B" (HF).
      {"Qwen3-VL-4B-Instruct.json", 415'347'712, 4'437'815'808, 4.44, 0.001},
      // Gemma-3-27B: SigLIP 896²/14² = 4,096 positions, 27 blocks, post LayerNorm; projector RMSNorm
      // + 1152·5376. "27.4B" (HF: 27,432,406,640).
      {"gemma-3-27b-it.json", 423'060'336, 27'432'406'640, 27.43, 0.001},
      // Llama-4 Scout: the module table of a published parameter dump (tests/io/hf/README.md) sums to
      // 871,932,416 for the vision model + adapter + projector. "109B total" (Meta model card).
      {"Llama-4-Scout-17B-16E.json", 871'932'416, 108'641'793'536, 109.0, 0.01},
      // LLaVA-1.5-7B: CLIP ViT-L/14-336 (577 positions, pre/post LayerNorm, 24 blocks) + 2-layer
      // projector 1024→4096→4096 with biases; Vicuna-7B with vocab 32,064. "7.06B" (HF).
      {"llava-1.5-7b-hf.json", 324'487'168, 7'063'427'072, 7.06, 0.001},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const test::Imported im = test::import_hf(c.file);
    REQUIRE(im.model.vision.layers > 0);
    const ParamCounts counts = count_params(im.model);
    CHECK(counts.vision == c.vision);
    CHECK(count_vision_params(im.model.vision).total == c.vision);
    CHECK(counts.total == c.total);
    CHECK(billions_vision(counts.total) == Approx(c.published_b).epsilon(c.tolerance));
    // The tower runs per image, not per token: active parameters are the language model's.
    ModelSpec text = im.model;
    text.vision = VisionTowerSpec{};
    CHECK(counts.active == count_params(text).active);
    // Weights: the tower in 16-bit beside the LM (bf16 checkpoints here, fp16 for LLaVA: 2 bytes).
    CHECK(weight_bytes(im.model, im.precision) ==
          Approx(weight_bytes(text, im.precision) + 2.0 * static_cast<double>(c.vision)));
    for (const auto& a : im.assumptions)
      CHECK(a.find("vision tower") == std::string::npos); // counted, so no "not counted" note
  }
}

TEST_CASE("vision towers: Llama-4 Scout modules match the published parameter dump", "[io][vision]") {
  const VisionTowerSpec v = test::import_hf("Llama-4-Scout-17B-16E.json").model.vision;
  const VisionParams p = count_vision_params(v);
  // vision_adapter fc1 23,068,672 + fc2 16,777,216; multi_modal_projector 20,971,520.
  CHECK(p.projector == 23'068'672 + 16'777'216 + 20'971'520);
  // class 1,408 + positions 812,416 + patch 827,904 + 4 outer norm tensors of 1,408 + 34 layers.
  const std::int64_t layer = 4 * (1'982'464 + 1'408) + 7'929'856 + 5'632 + 7'929'856 + 1'408 + 4 * 1'408;
  CHECK(p.encoder == 1'408 + 812'416 + 827'904 + 4 * 1'408 + 34 * layer);
}

TEST_CASE("image tokens per image follow each model's rule", "[core][vision]") {
  const VisionTowerSpec qwen = test::import_hf("Qwen2.5-VL-7B-Instruct.json").model.vision;
  // Qwen2.5-VL: 14-px patches merged 2×2, sides rounded to 28 px: (H/28)·(W/28).
  CHECK(vision_image(qwen, 448, 448).tokens == 256);
  const VisionImage photo = vision_image(qwen, 1024, 1024); // 1024/28 = 36.6 → 37 → 1036 px
  CHECK(photo.resized_width_px == 1036);
  CHECK(photo.tokens == std::int64_t{37} * 37);
  CHECK(photo.encoder_tokens == std::int64_t{4} * 37 * 37);
  CHECK(vision_image(qwen, 1280, 720).tokens == std::int64_t{46} * 26);
  CHECK(vision_image(qwen, 10, 10).tokens == 4);                          // min_pixels 56²: 2×2 tokens
  CHECK(vision_image(qwen, 8192, 8192).tokens <= 12'845'056 / (28 * 28)); // max_pixels
  // 448²: 1,024 patches; 32 blocks of 19,686,400 GEMM weights + patch 1,505,280; attention full in 4
  // blocks, 64-patch windows in 28; merger 5120² + 5120·3584 over 256 tokens.
  const double gemm = 2.0 * 1024 * (1'505'280.0 + 32 * 19'686'400.0);
  const double attention = 4.0 * 1024 * 1280 * (4 * 1024.0 + 28 * 64.0);
  const double projector = 2.0 * 256 * (5120.0 * 5120 + 5120.0 * 3584);
  CHECK(vision_image(qwen, 448, 448).encoder_flops == Approx(gemm + attention + projector));

  // Gemma-3: SigLIP at 896², pooled to 256 tokens whatever the resolution.
  const VisionTowerSpec gemma = test::import_hf("gemma-3-27b-it.json").model.vision;
  CHECK(vision_image(gemma, 1920, 1080).tokens == 256);
  CHECK(vision_image(gemma, 1920, 1080).encoder_tokens == 4096);
  // LLaVA-1.5: 336²/14² = 576 tokens (the CLS token dropped), 577 in the ViT.
  const VisionTowerSpec llava = test::import_hf("llava-1.5-7b-hf.json").model.vision;
  CHECK(vision_image(llava, 640, 480).tokens == 576);
  CHECK(vision_image(llava, 640, 480).encoder_tokens == 577);
  // Llama-4: 144 tokens per 336² tile (pixel shuffle 0.5); 1024² needs 4×4 tiles + a global one.
  const VisionTowerSpec scout = test::import_hf("Llama-4-Scout-17B-16E.json").model.vision;
  CHECK(vision_image(scout, 336, 336).tokens == 144);
  CHECK(vision_image(scout, 1024, 1024).tiles == 17);
  CHECK(vision_image(scout, 1024, 1024).tokens == std::int64_t{17} * 144);
  CHECK(vision_image(scout, 1024, 1024).encoder_flops ==
        Approx(17 * vision_image(scout, 336, 336).encoder_flops));
  CHECK(vision_image(scout, 8000, 8000).tiles == 17); // at most 16 tiles + the global one
}

TEST_CASE("images per request add prompt tokens, KV and prefill time", "[core][io][vision]") {
  const std::string hf = "Qwen2.5-VL-7B-Instruct.json";
  const nlohmann::json text_only = {{"model", {{"hf_config", hf}}},
                                    {"workload", {{"input_tokens", 512}, {"output_tokens", 128}}}};
  nlohmann::json with_images = text_only;
  with_images["workload"]["images_per_request"] = 2;
  with_images["workload"]["image_width_px"] = 448;
  with_images["workload"]["image_height_px"] = 448;
  const std::string base = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf";
  const std::string models = std::string(RIGHTSIZE_DATA_DIR) + "/models";
  const Spec a = io::parse_spec(text_only, "s.json", base, models);
  const Spec b = io::parse_spec(with_images, "s.json", base, models);
  CHECK(a.inference.input_tokens == 512);
  CHECK(b.inference.input_tokens == 512 + 2 * 256);
  bool named = false;
  for (const auto& s : b.assumptions)
    named = named || s.find("512 text + 512 image = 1024 tokens") != std::string::npos;
  CHECK(named);

  const PreparedModel pa = prepare_model(a.model, a.precision);
  const PreparedModel pb = prepare_model(b.model, b.precision);
  CHECK(pa.vision_weight_bytes == Approx(2.0 * 676'550'144));
  CHECK(pa.vision_flops_per_request == 0.0);
  CHECK(pb.vision_image_tokens_per_request == 512);
  CHECK(pb.vision_flops_per_request == Approx(2 * vision_image(b.model.vision, 448, 448).encoder_flops));
  InferenceWorkload w = b.inference;
  w.concurrency = 4;
  const EngineConfig engine;
  const Gpu gpu = test::h100_sxm();
  const InferenceEstimate eb = estimate_inference(pb, w, gpu, Deployment{}, engine, nullptr, 0.0);
  // The same 1,024-token prompt without the encoder: prefill is shorter by the ViT's work.
  const InferenceEstimate text_1024 = estimate_inference(pa, w, gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK(eb.prefill_s > text_1024.prefill_s);
  CHECK(eb.memory.kv_cache_bytes == Approx(text_1024.memory.kv_cache_bytes));
  CHECK(eb.memory.weights_bytes == Approx(text_1024.memory.weights_bytes));
  InferenceWorkload w512 = a.inference;
  w512.concurrency = 4;
  const InferenceEstimate ea = estimate_inference(pa, w512, gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK(eb.memory.kv_cache_bytes > ea.memory.kv_cache_bytes);
  CHECK(eb.ttft_s > ea.ttft_s);
  // The tower's 1.35 GB sits beside the LM's weights on the GPU, TP-sharded.
  CHECK(ea.memory.weights_bytes == Approx(pa.weight_bytes_total));
  Deployment tp2;
  tp2.gpus = 2;
  tp2.tp = 2;
  const InferenceEstimate ea2 = estimate_inference(pa, w512, gpu, tp2, engine, nullptr, 0.0);
  CHECK(ea2.memory.weights_bytes < ea.memory.weights_bytes);
}

TEST_CASE("image workload keys: bad values are one-line errors with the JSON pointer", "[io][vision]") {
  const nlohmann::json vlm = {{"model", {{"hf_config", "Qwen2.5-VL-7B-Instruct.json"}}}};
  auto with = [&](const nlohmann::json& workload, const nlohmann::json& model) {
    nlohmann::json doc = {{"model", model}, {"workload", workload}};
    return spec_error_vision(doc);
  };
  CHECK(with({{"images_per_request", 1}}, {{"preset", "llama-3.1-8b"}})
            .find("/workload/images_per_request: expected images only for a vision-language model") !=
        std::string::npos);
  CHECK(with({{"image_width_px", 640}}, vlm["model"]).find("/workload/image_width_px: expected only with") !=
        std::string::npos);
  CHECK(with({{"images_per_request", -1}}, vlm["model"]).find("/workload/images_per_request") !=
        std::string::npos);
  CHECK(with({{"images_per_request", 1}, {"image_height_px", 0}}, vlm["model"])
            .find("/workload/image_height_px") != std::string::npos);
  CHECK(with({{"images_per_request", 1}, {"image_height_px", 720}}, vlm["model"]) == "no error");
  // 1,000 images of 16,384 tokens each pass 10,000,000 prompt tokens.
  CHECK(
      with({{"images_per_request", 1000}, {"image_width_px", 8192}, {"image_height_px", 8192}}, vlm["model"])
          .find("/workload/images_per_request: expected at most 10,000,000 prompt tokens") !=
      std::string::npos);
}
