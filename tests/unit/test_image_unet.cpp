// A UNet denoiser (SDXL, methodology §3.7 "UNet denoiser") against a hand-computed worked example at
// 1024 x 1024, 30 steps with CFG: the convolution + linear FLOPs from diffusers' measured per-pass
// count, the attention at its two latent scales, the time the estimate gives, and the spec errors.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/error.hpp"
#include "rightsize/image.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using nlohmann::json;

namespace {

const std::string k_models_image_unet = std::string(RIGHTSIZE_DATA_DIR) + "/models";

Spec sdxl(const json& image) {
  return io::parse_spec(
      {{"schema_version", 1}, {"model", {{"preset", "sdxl"}}}, {"workload", {{"image", image}}}}, "s.json",
      "", k_models_image_unet);
}

std::string error_of_image_unet(const json& image_block) {
  json model = {{"kind", "dit"},       {"params", 2567463684.0}, {"layers", 70},     {"hidden_size", 1280},
                {"heads", 20},         {"head_dim", 64},         {"ffn_size", 5120}, {"vocab_size", 0},
                {"image", image_block}};
  try {
    (void)io::parse_spec({{"schema_version", 1}, {"model", model}}, "s.json", "", k_models_image_unet);
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("one SDXL image: UNet FLOPs at its two attention scales by hand", "[core][image]") {
  const Spec s = sdxl({{"steps", 30}});
  const ModelSpec& m = s.model;
  REQUIRE(m.image.denoiser == Denoiser::unet);
  const ImageItem item = image_item(m.image);
  // VAE x8, no patching: 128² latent positions; the 77 text tokens are cross-attention keys only.
  CHECK(item.image_tokens == 16384);
  CHECK(item.tokens == 16384);
  CHECK(m.tokens_per_item == 16384);
  CHECK(item.passes == 60); // 30 steps x 2 (CFG)
  CHECK(m.passes_per_item == 60);
  // Convolutions + linear layers: 5,702,112 FLOPs per pixel x 1024² = 5,979,097,792,512 per pass
  // (diffusers' benchmark CI: 5,979,098.32 MFLOPs, rounded to the whole FLOPs per pixel).
  CHECK(unet_gemm_flops_per_pass(m.image) == Approx(5'979'097'792'512.0));
  // Attention: 10 blocks at 64² (n 4,096, C 640): 10·4·640·(4096² + 4096·77) = 437,570,764,800;
  // 60 blocks at 32² (n 1,024, C 1,280): 60·4·1280·(1024² + 1024·77) = 346,344,652,800.
  CHECK(unet_attention_flops_per_pass(m.image) == Approx(783'915'417'600.0));
  // Text encoders 2 x 817e6 x 77 and the VAE decoder 9.4e6 x 1024², once per image.
  CHECK(item.text_encoder_flops == Approx(125'818'000'000.0));
  CHECK(item.vae_decode_flops == Approx(9'856'614'400'000.0));
  // 60 x 6,763,013,210,112 + 125,818,000,000 + 9,856,614,400,000 = 4.1576322500672e14.
  CHECK(image_flops(m, item) == Approx(4.1576322500672e14));
}

TEST_CASE("a UNet's FLOPs scale with the latent size: GEMMs by pixels, self-attention by n²",
          "[core][image]") {
  const Spec s = sdxl({{"width_px", 512}, {"height_px", 512}});
  const ModelSpec& m = s.model;
  CHECK(m.tokens_per_item == std::int64_t{64} * 64);
  CHECK(m.passes_per_item == 100); // the preset's 50 diffusers-default steps x 2
  CHECK(unet_gemm_flops_per_pass(m.image) == Approx(5'979'097'792'512.0 / 4.0));
  // 10·4·640·(1024² + 1024·77) + 60·4·1280·(256² + 256·77) = 28,862,873,600 + 26,187,366,400.
  CHECK(unet_attention_flops_per_pass(m.image) == Approx(55'050'240'000.0));
}

TEST_CASE("the estimate of an SDXL image is its UNet FLOPs at the calibrated efficiency", "[core][image]") {
  const Spec s = sdxl({{"steps", 30}});
  const PreparedModel pm = prepare_model(s.model, precision_from_shorthand(NumberFormat::fp16));
  CHECK(pm.unet);
  CHECK(pm.mm_flops_per_token * 16384.0 == Approx(5'979'097'792'512.0));
  CHECK(pm.unet_attention_flops_per_pass == Approx(783'915'417'600.0));
  CHECK(pm.image_encoder_weight_bytes == Approx(817e6 * 2.0));
  const Gpu gpu = test::h100_sxm();
  const EngineConfig engine; // the defaults estimate_one_item runs with
  const InferenceEstimate e = test::estimate_one_item(pm, gpu, 3.0);
  // Per pass: the GEMMs at 989.5 TFLOPS x η_f (x the UNet fraction, 1 on the fixture) and the
  // attention at x min(η_f, 0.35), both at the shape factor of 16,384 rows; the preset is eager,
  // so each pass adds its 10,472,652,800 unfused bytes at 3,350 GB/s x η_m.
  const double rate = 989.5e12 * gpu.efficiency.prefill_compute;
  const double attention_rate = 989.5e12 * std::min(gpu.efficiency.prefill_compute, 0.35);
  const double shape = 16384.0 / (16384.0 + engine.gemm_half_efficiency_tokens);
  const double pass_s = 5'979'097'792'512.0 / (rate * shape) + 783'915'417'600.0 / (attention_rate * shape);
  const double unfused_s = 10'472'652'800.0 / (3350e9 * gpu.efficiency.decode_bandwidth);
  const double expected =
      60.0 * (pass_s + unfused_s + engine.step_overhead_s) + (125'818'000'000.0 + 9'856'614'400'000.0) / rate;
  CHECK(e.e2e_s == Approx(expected).epsilon(1e-9));
  // The calibrated UNet rate divides the GEMM term only: at half of η_f it takes twice as long.
  Gpu slow = gpu;
  slow.efficiency.unet_gemm_fraction = 0.5;
  const double gemm_s = 5'979'097'792'512.0 / (rate * shape);
  CHECK(test::estimate_one_item(pm, slow, 3.0).e2e_s == Approx(expected + 60.0 * gemm_s).epsilon(1e-9));
  // Weights: 2.567 B x 2 B + the text encoders 1.634 GB.
  CHECK(e.memory.weights_bytes == Approx(2567463684.0 * 2.0 + 817e6 * 2.0).epsilon(1e-3));
}

TEST_CASE("an eager UNet's elementwise traffic by hand, none when fused", "[core][image]") {
  const Spec s = sdxl({{"steps", 30}});
  // Per level n·C·(15·resnets + 43·blocks) values: 16,384·320·75 = 393,216,000 at 128²;
  // 4,096·640·(75 + 430) = 1,323,827,200 at 64²; 1,024·1,280·(105 + 2,580) = 3,519,283,200 at 32²;
  // 5,236,326,400 values, 10,472,652,800 bytes in fp16.
  CHECK(unet_unfused_bytes_per_pass(s.model.image, 2.0) == Approx(10'472'652'800.0));
  CHECK(image_unfused_bytes_per_pass(s.model, 16384.0, 2.0) == Approx(10'472'652'800.0));
  // At 512² every level has a quarter of the positions.
  const Spec small = sdxl({{"width_px", 512}, {"height_px", 512}});
  CHECK(unet_unfused_bytes_per_pass(small.model.image, 2.0) == Approx(10'472'652'800.0 / 4.0));
  ImagePipelineSpec fused = s.model.image;
  fused.fused = true;
  CHECK(unet_unfused_bytes_per_pass(fused, 2.0) == 0.0);
  // The DiT count stays 0 for a UNet: its traffic is counted per level, not per token.
  CHECK(dit_unfused_rw_per_token_block(s.model) == 0.0);
}

TEST_CASE("UNet image keys are checked and name their key", "[io][image]") {
  const json base = {{"pixels_per_token_side", 8}, {"text_tokens", 77}, {"denoiser", "unet"}};
  CHECK(error_of_image_unet(base) ==
        "s.json: /model/image: expected image.unet_gemm_flops_per_pixel for image.denoiser "
        "\"unet\" (SDXL: 5,702,112 FLOPs per output pixel, 5,979 GFLOPs per pass at "
        "1024x1024), got none");
  json dit = base;
  dit["denoiser"] = "dit";
  dit["unet_gemm_flops_per_pixel"] = 5.7e6;
  CHECK(error_of_image_unet(dit) ==
        "s.json: /model/image/unet_gemm_flops_per_pixel: expected only with image.denoiser "
        "\"unet\" (a DiT's FLOPs follow from its blocks)");
  json bad_level = base;
  bad_level["unet_gemm_flops_per_pixel"] = 5.7e6;
  bad_level["unet_attention"] = json::array({{{"pixels_per_token_side", 16}, {"blocks", 10}}});
  CHECK(error_of_image_unet(bad_level).find("/model/image/unet_attention/0") != std::string::npos);
  json kind = base;
  kind["denoiser"] = "convnet";
  CHECK(error_of_image_unet(kind).find("/model/image/denoiser") != std::string::npos);
  json ok = bad_level;
  ok["unet_attention"][0]["channels"] = 640;
  CHECK(error_of_image_unet(ok) == "no error");
  json empty_level = ok;
  empty_level["unet_attention"][0]["blocks"] = 0;
  CHECK(error_of_image_unet(empty_level) ==
        "s.json: /model/image/unet_attention/0: expected blocks or resnets above 0 (a "
        "UNet scale without blocks does no work), got neither");
  json resnets_only = empty_level;
  resnets_only["unet_attention"][0]["resnets"] = 5;
  CHECK(error_of_image_unet(resnets_only) == "no error");
}

TEST_CASE("a UNet is an image model class of its own", "[core][image]") {
  const Spec unet = sdxl({{"steps", 30}});
  CHECK(model_class_of(unet.model) == "image-unet");
  ModelSpec dit = unet.model;
  dit.image.denoiser = Denoiser::dit;
  CHECK(model_class_of(dit) == "image");
  CHECK(is_image_class("image-unet"));
  CHECK(is_image_class("image"));
  CHECK_FALSE(is_image_class("dense-small"));
}

TEST_CASE("a UNet is served whole, one GPU per replica", "[core][image]") {
  const Spec s = sdxl({{"steps", 30}});
  const Gpu gpu = test::h100_sxm();
  const SearchPolicy policy;
  CHECK(valid_replica_layout(s.model, gpu, 1, 1, policy));
  CHECK_FALSE(valid_replica_layout(s.model, gpu, 2, 1, policy));
  CHECK_FALSE(valid_replica_layout(s.model, gpu, 1, 2, policy));
  const auto layouts = replica_layouts(s.model, gpu, policy);
  REQUIRE_FALSE(layouts.empty());
  for (const Deployment& d : layouts)
    CHECK(d.tp * d.pp == 1);
  ModelSpec dit = s.model; // the same widths as a DiT may still split its 20 heads
  dit.image.denoiser = Denoiser::dit;
  CHECK(valid_replica_layout(dit, gpu, 2, 1, policy));
  CHECK(runs_whole(s.model));
  CHECK_FALSE(runs_whole(dit));

  // The layout rule estimate, check and sweep call (core::fit_layout) says the same for a pinned
  // layout: TP2 (with or without PP) is refused by name; 2 GPUs unpinned are 2 replicas of TP1.
  const PreparedModel pm = prepare_model(s.model, s.precision);
  LayoutRequest pinned;
  pinned.gpus = 2;
  pinned.tp = 2;
  pinned.pp = 1;
  CHECK(fit_layout(pm, s.inference, gpu, pinned, EngineConfig{}).issue == LayoutIssue::runs_whole);
  pinned.pp = 0; // TP pinned, PP searched
  CHECK(fit_layout(pm, s.inference, gpu, pinned, EngineConfig{}).issue == LayoutIssue::runs_whole);
  LayoutRequest two;
  two.gpus = 2;
  const LayoutChoice whole = fit_layout(pm, s.inference, gpu, two, EngineConfig{});
  CHECK(whole.issue == LayoutIssue::none);
  CHECK(whole.deployment.gpus_per_replica() == 1);
  CHECK(whole.deployment.replicas() == 2);
}
