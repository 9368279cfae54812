// Quantized serving, worked by hand (methodology §4.1, §4.3, §5.1): 16-bit attention beside fp8/fp4
// GEMMs, NVFP4 as W4A4 where the GPU has fp4 tensor cores (W4A16 elsewhere), the 16-bit residual
// stream in collectives, and the MoE routing passes.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/inference.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

InferenceWorkload prompt(std::int64_t input_tokens) {
  InferenceWorkload w;
  w.input_tokens = input_tokens;
  w.output_tokens = 256;
  w.concurrency = 1;
  return w;
}

InferenceEstimate run(const ModelSpec& m, NumberFormat f, const Gpu& g, int tp = 1) {
  const PreparedModel pm = prepare_model(m, precision_from_shorthand(f));
  Deployment dep;
  dep.tp = tp;
  dep.gpus = tp;
  return estimate_inference(pm, prompt(1024), g, dep, EngineConfig{}, nullptr, 0.0);
}

// Llama-3.1-8B prefill of 1,024 tokens (test_inference.cpp's worked example): GEMM FLOPs
// (2·N_mm − 2·V·h)·1024 + 2·V·h and attention FLOPs 4·n_h·d_h·L·(1024·1025/2).
const double k_gemm_flops = (2.0 * 7'504'658'432.0 - 1'050'673'152.0) * 1024.0 + 1'050'673'152.0;
const double k_attention_flops = 16384.0 * 32.0 * (1024.0 * 1025.0 / 2.0);
const double k_shape = 1024.0 / (1024.0 + 128.0); // thin-GEMM correction at M = 1024
// Per-layer kernel time + step overhead + the eager prefill launches (32 layers × 50 µs, vLLM default).
const double k_fixed_s = 32 * 30e-6 + 0.5e-3 + 32 * 50e-6;

} // namespace

TEST_CASE("fp8 GEMMs run at the fp8 rate, attention at the 16-bit rate (methodology §4.1)", "[core]") {
  const InferenceEstimate e = run(llama31_8b(), NumberFormat::fp8, h100_sxm());
  // 1,979 TFLOPS for the GEMMs, 989.5 for attention, both × η_f 0.6 × shape; + 32 layers × 30 µs
  // + 0.5 ms step overhead + 32 layers × 50 µs of eager prefill launches.
  const double expected =
      k_gemm_flops / (1979e12 * 0.6 * k_shape) + k_attention_flops / (989.5e12 * 0.6 * k_shape) + k_fixed_s;
  CHECK(e.prefill_s == Approx(expected));
  CHECK(e.prefill_s * 1e3 == Approx(17.125).epsilon(0.001));
  CHECK(e.precision_supported);
}

TEST_CASE("NVFP4 is W4A4 where the GPU has fp4 tensor cores and W4A16 elsewhere (methodology §4.1)",
          "[core]") {
  // On H100 (no fp4): 16-bit math, so the compute-bound prefill equals the bf16 checkpoint's.
  const InferenceEstimate hopper = run(llama31_8b(), NumberFormat::nvfp4, h100_sxm());
  const InferenceEstimate bf16 = run(llama31_8b(), NumberFormat::bf16, h100_sxm());
  CHECK(hopper.precision_supported);
  CHECK(hopper.prefill_s == Approx(bf16.prefill_s));
  // The same GPU with 3,958 fp4 TFLOPS: GEMMs at the fp4 rate, attention still at 989.5.
  Gpu fp4_gpu = h100_sxm();
  fp4_gpu.dense_tflops[static_cast<std::size_t>(MathDtype::fp4)] = 3958.0;
  const InferenceEstimate w4a4 = run(llama31_8b(), NumberFormat::nvfp4, fp4_gpu);
  const double expected =
      k_gemm_flops / (3958e12 * 0.6 * k_shape) + k_attention_flops / (989.5e12 * 0.6 * k_shape) + k_fixed_s;
  CHECK(w4a4.prefill_s == Approx(expected));
}

TEST_CASE("MXFP6: 6.25 bits, weight-only as a name, W6A6 at the fp6 rate where one is listed "
          "(methodology §2.2, §4.1)",
          "[core]") {
  // OCP MX: 6-bit elements plus one 8-bit E8M0 scale per 32 → 6 + 8/32 = 6.25 bits = 0.78125 bytes.
  REQUIRE(parse_number_format("MXFP6") == NumberFormat::mxfp6);
  REQUIRE(parse_number_format("fp6") == NumberFormat::mxfp6);
  const Precision named = precision_from_shorthand(NumberFormat::mxfp6);
  CHECK(named.weight_bytes_per_param() == Approx(0.78125));
  CHECK(named.activations == NumberFormat::bf16); // like mxfp4: the name alone is weight-only
  CHECK(named.kv_cache == NumberFormat::bf16);
  Precision w6a6 = named;
  w6a6.activations = NumberFormat::mxfp6;
  CHECK(w6a6.math_dtype() == MathDtype::fp6);
  CHECK(math_dtype_name(MathDtype::fp6) == "fp6");

  const auto prefill = [](const Precision& p, const Gpu& g) {
    Deployment dep;
    return estimate_inference(prepare_model(llama31_8b(), p), prompt(1024), g, dep, EngineConfig{}, nullptr,
                              0.0)
        .prefill_s;
  };
  // H100 lists no fp6 rate: the GEMMs fall back to 16-bit math, so the compute-bound prefill equals
  // the weight-only one's (and the bf16 checkpoint's).
  CHECK(prefill(w6a6, h100_sxm()) == Approx(prefill(named, h100_sxm())));
  CHECK(prefill(w6a6, h100_sxm()) == Approx(prefill(Precision{}, h100_sxm())));
  // The same GPU given 3,958 fp6 TFLOPS: GEMMs at the fp6 rate, attention at the bf16 989.5.
  Gpu fp6_gpu = h100_sxm();
  fp6_gpu.dense_tflops[static_cast<std::size_t>(MathDtype::fp6)] = 3958.0;
  const double expected =
      k_gemm_flops / (3958e12 * 0.6 * k_shape) + k_attention_flops / (989.5e12 * 0.6 * k_shape) + k_fixed_s;
  CHECK(prefill(w6a6, fp6_gpu) == Approx(expected));
  // By hand: 1.42938e13 / (3958e12 · 0.6 · 0.8889) = 6.772 ms + 2.7515e11 / (989.5e12 · 0.6 · 0.8889)
  // = 0.521 ms + 3.06 ms fixed = 10.35 ms.
  CHECK(prefill(w6a6, fp6_gpu) * 1e3 == Approx(10.35).epsilon(0.001));
}

TEST_CASE("collectives carry the 16-bit residual stream whatever the GEMM format (methodology §5.1)",
          "[core]") {
  const PreparedModel fp8 = prepare_model(llama31_8b(), precision_from_shorthand(NumberFormat::fp8));
  const PreparedModel bf16 = prepare_model(llama31_8b(), Precision{});
  CHECK(fp8.activation_bytes == 1.0);
  CHECK(fp8.residual_bytes == 2.0);
  CHECK(bf16.residual_bytes == 2.0);
  // At B = 1 on TP2 the decode step is weights + KV read + all-reduce + overhead; the KV (bf16 in
  // both) and the all-reduce (bf16 in both) cancel, leaving the weight bytes' difference over BW·η_m.
  const InferenceEstimate a = run(llama31_8b(), NumberFormat::fp8, h100_sxm(), 2);
  const InferenceEstimate b = run(llama31_8b(), NumberFormat::bf16, h100_sxm(), 2);
  const auto read = [](const PreparedModel& pm) { return (pm.layer_weight_bytes + pm.lm_head_bytes) / 2.0; };
  CHECK(b.decode_step_s - a.decode_step_s == Approx((read(bf16) - read(fp8)) / (3350e9 * 0.8)));
}

TEST_CASE("MoE routing traffic per token, worked by hand (methodology §4.3)", "[core]") {
  // Mixtral-8x7B bf16: 32 MoE layers, k = 2, h = 4096; b_in = b_res = 2 bytes:
  // 32 × 2 × 4096 × (2 + 2·2) = 1,572,864 bytes per prompt token on one GPU.
  const PreparedModel mix = prepare_model(mixtral_8x7b(), Precision{});
  CHECK(moe_routing_bytes_per_token(mix, 1.0, 1) == Approx(1'572'864.0));
  // EP over 2 groups halves the rows each GPU handles; 4 attention-DP ranks feed 4× the rows.
  CHECK(moe_routing_bytes_per_token(mix, 1.0, 2) == Approx(786'432.0));
  CHECK(moe_routing_bytes_per_token(mix, 4.0, 2) == Approx(3'145'728.0));
  // fp8 GEMMs gather 1-byte inputs: 32 × 2 × 4096 × (1 + 2·2) = 1,310,720.
  const PreparedModel mix8 = prepare_model(mixtral_8x7b(), precision_from_shorthand(NumberFormat::fp8));
  CHECK(moe_routing_bytes_per_token(mix8, 1.0, 1) == Approx(1'310'720.0));
  // Dense models route nothing.
  CHECK(moe_routing_bytes_per_token(prepare_model(llama31_8b(), Precision{}), 1.0, 1) == 0.0);
  // In the prefill of 1,024 tokens on one H100 the passes cost 1024 × 1,572,864 / (3,350e9 × 0.8).
  const InferenceEstimate e = run(mixtral_8x7b(), NumberFormat::bf16, h100_sxm(), 2);
  CHECK(e.prefill_s > 1024.0 * 1'572'864.0 / (3350e9 * 0.8));
}

TEST_CASE("every forward pass pays a fixed time per layer, more per MoE layer (methodology §3)", "[core]") {
  // Mixtral-8x7B: 32 layers, all MoE: 32 × (30 + 20) µs = 1.6 ms per decode step and per prefill chunk
  // (vLLM's EngineConfig defaults).
  const PreparedModel mix = prepare_model(mixtral_8x7b(), Precision{});
  EngineConfig none;
  none.layer_overhead_s = 0.0;
  none.moe_layer_overhead_s = 0.0;
  Deployment dep;
  dep.tp = 2;
  dep.gpus = 2;
  const InferenceEstimate with =
      estimate_inference(mix, prompt(1024), h100_sxm(), dep, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate without =
      estimate_inference(mix, prompt(1024), h100_sxm(), dep, none, nullptr, 0.0);
  CHECK(with.decode_step_s - without.decode_step_s == Approx(1.6e-3));
  CHECK(with.prefill_s - without.prefill_s == Approx(1.6e-3));
  // A dense model pays only the per-layer term: Llama-3.1-8B, 32 × 30 µs.
  const PreparedModel dense = prepare_model(llama31_8b(), Precision{});
  const InferenceEstimate a =
      estimate_inference(dense, prompt(1024), h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate b =
      estimate_inference(dense, prompt(1024), h100_sxm(), Deployment{}, none, nullptr, 0.0);
  CHECK(a.decode_step_s - b.decode_step_s == Approx(0.96e-3));
}

TEST_CASE("a prefill step pays the engine's eager kernel launches; decode steps do not (methodology §3)",
          "[core]") {
  // vLLM defaults: 50 µs per layer + 2.5 µs per routed expert of each MoE layer. Mixtral-8x7B, 32 MoE
  // layers of 8 experts, one 1,024-token prompt = one step: 32 × (50 + 8 × 2.5) µs = 2.24 ms on the
  // prefill, nothing on decode.
  const PreparedModel mix = prepare_model(mixtral_8x7b(), Precision{});
  EngineConfig graphs;
  graphs.prefill_layer_overhead_s = 0.0;
  graphs.prefill_expert_overhead_s = 0.0;
  Deployment dep;
  dep.tp = 2;
  dep.gpus = 2;
  const InferenceEstimate eager =
      estimate_inference(mix, prompt(1024), h100_sxm(), dep, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate graphed =
      estimate_inference(mix, prompt(1024), h100_sxm(), dep, graphs, nullptr, 0.0);
  CHECK(eager.prefill_s - graphed.prefill_s == Approx(2.24e-3));
  CHECK(eager.decode_step_s == Approx(graphed.decode_step_s));
  // The MoE part grows with the routed experts, not with the tokens: the same layers with 256 experts
  // (DeepSeek-V3's count) pay 32 × (50 + 256 × 2.5) µs = 22.08 ms.
  ModelSpec wide = mixtral_8x7b();
  wide.moe.experts = 256;
  const PreparedModel many = prepare_model(wide, Precision{});
  const InferenceEstimate eager_many =
      estimate_inference(many, prompt(1024), h100_sxm(), dep, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate graphed_many =
      estimate_inference(many, prompt(1024), h100_sxm(), dep, graphs, nullptr, 0.0);
  CHECK(eager_many.prefill_s - graphed_many.prefill_s == Approx(22.08e-3));
  // Dense Llama-3.1-8B: 32 × 50 µs = 1.6 ms.
  const PreparedModel dense = prepare_model(llama31_8b(), Precision{});
  const InferenceEstimate a =
      estimate_inference(dense, prompt(1024), h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate b =
      estimate_inference(dense, prompt(1024), h100_sxm(), Deployment{}, graphs, nullptr, 0.0);
  CHECK(a.prefill_s - b.prefill_s == Approx(1.6e-3));
}

TEST_CASE("routed experts' weights are read at the GPU's expert-read fraction of eta_m (methodology 4.3)",
          "[core]") {
  // Mixtral-8x7B bf16, TP2, one sequence: 2 of 8 experts touched per layer, 32 layers, each expert
  // 3·4096·14336·2 B = 352,321,536 B, half per GPU: 11,274,289,152 B a step. At expert_read 0.5 the
  // same bytes take twice as long: 11.27 GB / (3,350 GB/s · η_m 0.8) = 4.207 ms more per step.
  Gpu slow = h100_sxm();
  slow.efficiency.expert_read = 0.5;
  const auto step_s = [&](const ModelSpec& m, const Gpu& g, int tp) {
    Deployment dep;
    dep.tp = dep.gpus = tp;
    return estimate_inference(prepare_model(m, Precision{}), prompt(1024), g, dep, EngineConfig{}, nullptr,
                              0.0)
        .decode_step_s;
  };
  CHECK(step_s(mixtral_8x7b(), slow, 2) - step_s(mixtral_8x7b(), h100_sxm(), 2) ==
        Approx(11'274'289'152.0 / (3350e9 * h100_sxm().efficiency.decode_bandwidth)));
  // A dense model has no routed experts: nothing changes.
  CHECK(step_s(llama31_8b(), slow, 1) == step_s(llama31_8b(), h100_sxm(), 1));
}
