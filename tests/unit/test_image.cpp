// Image generation workloads (methodology §3.7) against hand-computed worked examples for FLUX.1-dev
// at 1024 x 1024, 28 steps: latent tokens, DiT FLOPs, per-image text-encoder and VAE cost, the time
// the estimate gives, and the spec keys that speak in images.
#include <algorithm>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/error.hpp"
#include "rightsize/image.hpp"
#include "rightsize/image_attention.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using nlohmann::json;

namespace {

const std::string k_models = std::string(RIGHTSIZE_DATA_DIR) + "/models";

// The FLUX.1-dev transformer as the preset gives it: 57 blocks (19 double + 38 single), d = 3072.
ModelSpec flux() {
  ModelSpec m;
  m.kind = ModelKind::dit;
  m.params_override = 12'000'000'000;
  m.layers = 57;
  m.hidden_size = 3072;
  m.heads = 24;
  m.kv_heads = 24;
  m.head_dim = 128;
  m.ffn_size = 12288;
  m.ffn_gated = false;
  m.vocab_size = 0;
  m.keep_embeddings_16bit = false;
  m.qk_norm = true; // RMSNorm of q and k, and rotary embeddings, in every block
  m.image.rotary_qk = true;
  m.image.pixels_per_token_side = 16;
  m.image.text_tokens = 512;
  m.image.text_encoder_params = 4.88e9;
  m.image.vae_decode_flops_per_pixel = 9.4e6;
  const ImageItem item = image_item(m.image);
  m.tokens_per_item = item.tokens;
  m.passes_per_item = item.passes;
  return m;
}

std::string error_of_image(const json& doc) {
  try {
    (void)io::parse_spec(doc, "s.json", "", k_models);
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("latent tokens: VAE x8 and patch 2 make 16 pixels per token side", "[core][image]") {
  // 1024/16 = 64 per side: 64² = 4,096 tokens; 768 x 1344: 48 x 84 = 4,032; 1000 px rounds up to 63.
  CHECK(image_latent_tokens(1024, 1024, 16) == 4096);
  CHECK(image_latent_tokens(1344, 768, 16) == 4032);
  CHECK(image_latent_tokens(1000, 1000, 16) == 3969);
  CHECK(image_latent_tokens(1024, 1024, 0) == 0);
}

TEST_CASE("one FLUX.1-dev image: tokens, passes and per-image FLOPs by hand", "[core][image]") {
  const ModelSpec m = flux();
  const ImageItem item = image_item(m.image);
  CHECK(item.image_tokens == 4096);
  CHECK(item.tokens == 4608); // + 512 T5 tokens in the joint attention
  CHECK(item.passes == 28);   // 28 steps x 1 pass (guidance-distilled)
  // Text encoder once per image: 2 x 4.88e9 x 512 = 4.99712e12 FLOPs.
  CHECK(item.text_encoder_flops == Approx(4.99712e12));
  // VAE decode: 9.4e6 x 1024² = 9.8566144e12 FLOPs.
  CHECK(item.vae_decode_flops == Approx(9.8566144e12));
  // GEMMs per token: 2 x 57 x (2·3072·48·128 + 2·3072·12288) = 2 x 57 x 113,246,208 = 12,910,067,712
  // (6.46 B per-token weights of the 12 B: the adaLN modulation runs once per pass).
  CHECK(dit_gemm_flops_per_token(m) == Approx(12'910'067'712.0));
  // Attention: 4 x 57 x 24 x 128 x 4608² = 1.48724e13 FLOPs per pass.
  CHECK(dit_attention_flops(m, 4608.0) == Approx(14'872'398'004'224.0));
  // Image: 28 x (12,910,067,712 x 4608 + 1.48724e13) + 4.99712e12 + 9.8566144e12 = 2.096989e15 FLOPs.
  CHECK(image_flops(m, item) == Approx(2.09698945499136e15));
}

TEST_CASE("CFG doubles the passes; a request overrides the model's default image", "[core][image]") {
  ImagePipelineSpec p;
  p.pixels_per_token_side = 16;
  p.text_tokens = 333; // SD3: 77 CLIP + 256 T5 tokens
  p.cfg_passes = 2;
  ImageRequest r;
  r.width_px = 512;
  r.steps = 50;
  const ImageItem item = image_item(apply_image_request(p, r));
  CHECK(item.image_tokens == std::int64_t{32} * 64); // 512 x 1024
  CHECK(item.tokens == 2048 + 333);
  CHECK(item.passes == 100); // 50 steps x 2 CFG passes
}

TEST_CASE("the estimate of a FLUX.1-dev image on H100 is the FLOPs at the calibrated efficiency",
          "[core][image]") {
  // Compiled (fused): no unfused elementwise traffic, so the time is the FLOPs alone; the eager
  // term is checked in its own case below.
  ModelSpec fused = flux();
  fused.image.fused = true;
  const PreparedModel pm = prepare_model(fused, precision_from_shorthand(NumberFormat::bf16));
  CHECK(pm.mm_flops_per_token == Approx(12'910'067'712.0));
  CHECK(pm.image_encoder_weight_bytes == Approx(4.88e9 * 2.0)); // T5 + CLIP resident in bf16
  const Gpu gpu = test::h100_sxm();
  const EngineConfig engine; // the defaults estimate_one_item runs with
  const InferenceEstimate e = test::estimate_one_item(pm, gpu, 3.0);
  // Compute-bound: per pass 12,910,067,712 x 4608 GEMM FLOPs at 989.5 TFLOPS x η_f and 1.48724e13
  // attention FLOPs at 989.5 TFLOPS x min(η_f, 0.35) (the fixture names no architecture: the lowest
  // published FlashAttention share), both x 4608/(4608 + 128) (GEMM shape), plus the step overhead;
  // text encoder and VAE once per image at 989.5 TFLOPS x η_f.
  const double rate = 989.5e12 * gpu.efficiency.prefill_compute;
  const double attention_rate = 989.5e12 * std::min(gpu.efficiency.prefill_compute, 0.35);
  const double shape = 4608.0 / 4736.0;
  const double pass_s =
      12'910'067'712.0 * 4608.0 / (rate * shape) + 14'872'398'004'224.0 / (attention_rate * shape);
  const double expected = 28.0 * (pass_s + engine.step_overhead_s) + (4.99712e12 + 9.8566144e12) / rate;
  CHECK(e.e2e_s == Approx(expected).epsilon(1e-9));
  CHECK(e.requests_per_s == Approx(1.0 / expected));           // images/s
  CHECK(e.usd_per_request == Approx(3.0 / 3600.0 * expected)); // $ per image at $3/h
  CHECK(e.memory.kv_cache_bytes == 0.0);
  // Weights on the GPU: 12 B x 2 B + the text encoders 9.76 GB.
  CHECK(e.memory.weights_bytes == Approx(24e9 + 9.76e9).epsilon(1e-3));
}

TEST_CASE("a DiT's attention runs at FlashAttention-2's share of peak where it is below η_f",
          "[core][image]") {
  // [FA3] abstract: FlashAttention-2 reaches 35 % of the H100's peak; [FA2] abstract: 50–73 % on A100.
  CHECK(dit_attention_utilization("Hopper GH100") == 0.35);
  CHECK(dit_attention_utilization("Ampere GA100") == 0.73);
  // No published figure: the lowest measured one, never a better rate than a measured GPU.
  CHECK(dit_attention_utilization("Ada AD102") == 0.35);
  CHECK(dit_attention_utilization("Blackwell") == 0.35);

  ModelSpec fused = flux(); // compiled: the FLOPs alone (the unfused traffic is tested below)
  fused.image.fused = true;
  const PreparedModel pm = prepare_model(fused, precision_from_shorthand(NumberFormat::bf16));
  Gpu gpu = test::h100_sxm();
  gpu.architecture = "Hopper GH100";
  InferenceWorkload w;
  w.concurrency = 1;
  const Deployment dep{1, 1, 1, 1};
  const EngineConfig engine;
  const InferenceEstimate e = estimate_inference(pm, w, gpu, dep, engine, nullptr, 3.0);
  // Worked by hand, FLUX.1-dev 1024², 28 steps, η_f 0.60, shape 4608/4736 = 0.97297:
  // GEMMs 5.94896e13 FLOPs / (989.5e12 x 0.60 x 0.97297) = 0.102985 s per pass;
  // attention 1.48724e13 / (989.5e12 x 0.35 x 0.97297) = 0.044136 s (0.025746 s at η_f);
  // 28 x (0.102985 + 0.044136 + 0.0005) + (4.99712e12 + 9.8566144e12) / (989.5e12 x 0.60)
  // = 4.1334 + 0.0250 = 4.1584 s, 14 % above the 3.6435 s with attention at η_f.
  CHECK(e.e2e_s == Approx(4.158411).epsilon(1e-5));
  // A GPU naming no architecture has no published figure: the lowest one, 0.35, as for Hopper.
  gpu.architecture = "";
  CHECK(estimate_inference(pm, w, gpu, dep, engine, nullptr, 3.0).e2e_s == Approx(4.158411).epsilon(1e-5));
  // The cap only lowers: an A100 at η_f < 0.73 keeps attention at η_f, by hand as above.
  Gpu a100 = test::a100_80gb_sxm();
  const double unnamed = estimate_inference(pm, w, a100, dep, engine, nullptr, 3.0).e2e_s;
  a100.architecture = "Ampere GA100";
  const double named = estimate_inference(pm, w, a100, dep, engine, nullptr, 3.0).e2e_s;
  const double eta = a100.efficiency.prefill_compute;
  REQUIRE(eta < 0.73);
  const double rate = a100.tflops(MathDtype::bf16) * 1e12 * eta;
  const double at_eta =
      28.0 * ((5.94896e13 + 1.48724e13) / (rate * 4608.0 / 4736.0) + engine.step_overhead_s) +
      (4.99712e12 + 9.8566144e12) / rate;
  CHECK(named == Approx(at_eta).epsilon(1e-4));
  CHECK(named < unnamed);
}

TEST_CASE("an eager DiT pays its unfused elementwise traffic at memory bandwidth", "[core][image]") {
  // Counted from diffusers' blocks (methodology §3.7 table): 38 per token per block, + 34 for the
  // fp32 RMSNorm of q and k, + 52 for the fp32 rotary embedding of q and k.
  ModelSpec m = flux();
  CHECK(dit_unfused_rw_per_token_block(m) == 124.0); // FLUX.1: qk_norm and rotary
  m.image.rotary_qk = false;
  CHECK(dit_unfused_rw_per_token_block(m) == 72.0); // SD3.5-Large: qk_norm, no rotary
  m.qk_norm = false;
  CHECK(dit_unfused_rw_per_token_block(m) == 38.0); // SD3-Medium: neither
  m.image.fused = true;
  CHECK(dit_unfused_rw_per_token_block(m) == 0.0); // compiled: fused into the GEMMs
  // FLUX.1-dev at 4,608 tokens: 124 x 4608 x 3072 x 57 x 2 B = 200,106,049,536 B per pass.
  CHECK(dit_unfused_bytes_per_pass(flux(), 4608.0, 2.0) == Approx(200'106'049'536.0));

  // The eager and the compiled estimate differ by 28 passes of that traffic at the GPU's bandwidth.
  ModelSpec compiled = flux();
  compiled.image.fused = true;
  const Precision bf16 = precision_from_shorthand(NumberFormat::bf16);
  const Gpu gpu = test::h100_sxm();
  InferenceWorkload w;
  w.concurrency = 1;
  const Deployment dep{1, 1, 1, 1};
  const EngineConfig engine;
  const double eager_s =
      estimate_inference(prepare_model(flux(), bf16), w, gpu, dep, engine, nullptr, 3.0).e2e_s;
  const double fused_s =
      estimate_inference(prepare_model(compiled, bf16), w, gpu, dep, engine, nullptr, 3.0).e2e_s;
  const double bandwidth = gpu.memory_bandwidth_gb_per_s * 1e9 * gpu.efficiency.decode_bandwidth;
  CHECK(eager_s - fused_s == Approx(28.0 * 200'106'049'536.0 / bandwidth).epsilon(1e-9));
  CHECK(eager_s - fused_s > 1.0); // ≈ 2 s on an H100: the eager/compiled gap the FLUX.1 rows show

  // A workload's image.fused overrides the model's.
  ImageRequest r;
  r.fused = 1;
  CHECK(apply_image_request(flux().image, r).fused);
  r.fused = 0;
  CHECK_FALSE(apply_image_request(compiled.image, r).fused);
  r.fused = -1;
  CHECK(apply_image_request(compiled.image, r).fused);
}

TEST_CASE("an image or encoder model ranks by cost per item", "[core][image]") {
  CHECK(effective_rank_by(RankBy::cost_per_token, ModelKind::dit) == RankBy::cost_per_request);
  CHECK(effective_rank_by(RankBy::latency, ModelKind::dit) == RankBy::latency);
  CHECK(effective_rank_by(RankBy::cost_per_token, ModelKind::decoder) == RankBy::cost_per_token);
  // An encoder serves no output tokens either: $ per item (shown per 1M input tokens).
  CHECK(effective_rank_by(RankBy::cost_per_token, ModelKind::vit) == RankBy::cost_per_request);
}

TEST_CASE("image specs speak in images; bad combinations name their key", "[io][image]") {
  const Spec s =
      io::parse_spec({{"schema_version", 1},
                      {"model", {{"preset", "flux.1-dev"}}},
                      {"workload", {{"image", {{"width_px", 768}, {"height_px", 1344}, {"steps", 50}}}}},
                      {"sla", {{"image_latency_ms", 10000}, {"images_per_s", 2}}}},
                     "s.json", "", k_models);
  CHECK(s.model.tokens_per_item == 4032 + 512);
  CHECK(s.model.passes_per_item == 50);
  // The preset describes the eager FLUX.1 pipeline (qk_norm, rotary); workload.image.fused compiles it.
  CHECK(s.model.qk_norm);
  CHECK(s.model.image.rotary_qk);
  CHECK_FALSE(s.model.image.fused);
  const Spec compiled = io::parse_spec({{"schema_version", 1},
                                        {"model", {{"preset", "flux.1-dev"}}},
                                        {"workload", {{"image", {{"fused", true}}}}}},
                                       "s.json", "", k_models);
  CHECK(compiled.model.image.fused);
  CHECK(error_of_image({{"schema_version", 1},
                        {"model", {{"preset", "flux.1-dev"}}},
                        {"workload", {{"image", {{"fused", 1}}}}}})
            .find("/workload/image/fused") != std::string::npos);
  CHECK(s.sla.e2e_ms == Approx(10000.0));
  CHECK(s.sla.requests_per_s == Approx(2.0));
  CHECK(
      error_of_image(
          {{"schema_version", 1}, {"model", {{"preset", "llama-3.1-8b"}}}, {"sla", {{"images_per_s", 1}}}}) ==
      "s.json: /sla/images_per_s: expected an image target only for an image model (kind \"dit\"), got "
      "model kind \"decoder\": give e2e_ms and requests_per_s");
  CHECK(error_of_image({{"schema_version", 1},
                        {"model", {{"preset", "flux.1-dev"}}},
                        {"workload", {{"image", {{"width_px", 1000}}}}}}) ==
        "s.json: /workload/image/width_px: expected a multiple of 16 pixels (VAE downsampling x patch size "
        "of this model), got 1000");
  CHECK(error_of_image({{"schema_version", 1},
                        {"model", {{"preset", "llama-3.1-8b"}}},
                        {"workload", {{"image", {{"steps", 20}}}}}})
            .find("/workload/image: expected an image block only for an image model") != std::string::npos);
  CHECK(error_of_image({{"schema_version", 1},
                        {"model", {{"preset", "flux.1-dev"}}},
                        {"sla", {{"e2e_ms", 1000}, {"image_latency_ms", 1000}}}}) ==
        "s.json: /sla/image_latency_ms: expected one of e2e_ms and image_latency_ms, got both");
}

TEST_CASE("image models are judged on the image-latency band", "[core][image]") {
  ModelSpec m;
  m.kind = ModelKind::dit;
  CHECK(model_class_of(m) == "image");
  Calibration cal;
  BandEntry b;
  b.kind = FigureKind::image_latency;
  b.gpu_id = "X";
  b.ratio_low = 0.9;
  b.ratio_high = 1.5;
  cal.bands.push_back(b);
  cal.classes.push_back(ClassWidening{"image", 8, 1.0});
  // p90: latency × 1.5, images/s × 1/1.5 (images/s = batch / latency).
  const BandFactors f = band_factors(&cal, Confidence::p90, "X", "image", Reach::measured);
  CHECK(f.ttft_high == Approx(1.5));
  CHECK(f.tpot_high == Approx(1.5));
  CHECK(f.throughput_low == Approx(1.0 / 1.5));
  InferenceEstimate e;
  e.ttft_s = e.e2e_s = 4.0;
  e.requests_per_s = 0.5;
  const InferenceBands ib = inference_bands(cal, "X", "image", Reach::measured, e);
  CHECK(ib.e2e.high == Approx(6.0));
  CHECK(ib.e2e.low == Approx(3.6));
  CHECK(ib.requests_per_s.low == Approx(0.5 / 1.5));
  CHECK(ib.requests_per_s.high == Approx(0.5 / 0.9));
}
