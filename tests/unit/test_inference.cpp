// Inference estimator against hand-computed worked examples (methodology §2.2, §2.7, §4.3, §4.4, §5.1,
// §6.1) and its monotonicity properties.
#include <random>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/inference.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

constexpr double k_gib = 1073741824.0;

InferenceWorkload chat(std::int64_t concurrency) {
  return closed_loop(1024, 256, concurrency);
}

} // namespace

TEST_CASE("weight bytes by precision match methodology §2.2", "[core]") {
  const ModelSpec m = llama31_8b();
  // BF16: 8,030,261,248 × 2 B = 16.06 GB.
  CHECK(prepare_model(m, precision_from_shorthand(NumberFormat::bf16)).weight_bytes_total ==
        16'060'522'496.0);
  // FP8 linear layers, 16-bit embedding + head: 6,979,588,096 × 1 + 1,050,673,152 × 2 = 9.08 GB.
  CHECK(prepare_model(m, precision_from_shorthand(NumberFormat::fp8)).weight_bytes_total == 9'080'934'400.0);
  // INT4 g128 (4.15625 bits): 6,979,588,096 × 4.15625 / 8 + 2,101,346,304 = 5.73 GB.
  const double int4 = prepare_model(m, precision_from_shorthand(NumberFormat::int4_awq)).weight_bytes_total;
  CHECK(int4 == Approx(6'979'588'096.0 * 4.15625 / 8.0 + 2'101'346'304.0));
  CHECK(int4 / 1e9 == Approx(5.73).epsilon(0.002));
  // 70B BF16 = 141.11 GB.
  CHECK(prepare_model(llama31_70b(), Precision{}).weight_bytes_total / 1e9 == Approx(141.107).epsilon(1e-5));
}

TEST_CASE("experts touched grows with the batch (methodology §4.3)", "[core]") {
  // Mixtral E = 8, k = 2, B = 16: 8·(1 − 0.75^16) = 7.92 — nearly all experts.
  CHECK(experts_touched(8, 2, 16) == Approx(8.0 * (1.0 - std::pow(0.75, 16))));
  CHECK(experts_touched(8, 2, 1) == Approx(2.0));
  // DeepSeek-V3 E = 256, k = 8, B = 32: ≈163 experts.
  CHECK(experts_touched(256, 8, 32) == Approx(163.4).epsilon(0.002));
}

TEST_CASE("ring all-reduce time follows the α–β model (methodology §5.1)", "[core]") {
  // 512 KiB among 4 GPUs on 450 GB/s at η 0.75: 5 µs + 6 × 0.8 µs + 1.5 × 524,288 / 337.5e9.
  const double t = collective_time_s(524288.0, 4, 450.0, 0.75, 0.8e-6, 5e-6, true);
  CHECK(t == Approx(5e-6 + 6 * 0.8e-6 + 1.5 * 524288.0 / 337.5e9));
  CHECK(collective_time_s(1e6, 1, 450.0, 0.75, 0.8e-6, 5e-6, true) == 0.0);
}

TEST_CASE("max concurrency of Llama-3.1-8B BF16 on one H100 (methodology §2.7)", "[core]") {
  const ModelSpec m = llama31_8b();
  const PreparedModel pm = prepare_model(m, Precision{});
  InferenceWorkload w = chat(1);
  w.max_context = 2048;
  const EngineConfig engine;
  const InferenceEstimate e = estimate_inference(pm, w, h100_sxm(), Deployment{}, engine, nullptr, 0.0);
  // Hand computation: usable = 80 GiB × 0.99 × 0.9 = 71.28 GiB; W = 16,060,522,496 B;
  // A = 2·8192·(4096 + 3·14336) + 4·1024·128256 = 1,297,088,512 B; R = 0.4 + 0.5 GiB;
  // per sequence KV = 131,072 × 2048 = 268,435,456 B.
  const double usable = 80.0 * k_gib * 0.99 * 0.9;
  const double budget = usable - 16'060'522'496.0 - 1'297'088'512.0 - 0.9 * k_gib;
  CHECK(e.memory.usable_per_gpu_bytes == Approx(usable));
  CHECK(e.memory.activations_bytes == Approx(1'297'088'512.0));
  CHECK(e.max_concurrency == static_cast<std::int64_t>(budget / 268'435'456.0));
  CHECK(e.max_concurrency == 216); // methodology's table gives 219 with 0.55 GiB less reserve
  CHECK(e.memory.fits);
}

TEST_CASE("a share of the memory free after loading sizes TensorRT-LLM's KV pool (methodology §2.1)",
          "[core]") {
  // The example above with u read as TensorRT-LLM reads free_gpu_memory_fraction: of what is free
  // once W, A and R are in place. C = 80 GiB × 0.99 = 85,040,352,461 B; W + A + R =
  // 16,060,522,496 + 1,297,088,512 + 966,367,642 = 18,323,978,650 B; free = 66,716,373,811 B;
  // KV pool = 0.9 × free = 60,044,736,430 B → floor(/ 268,435,456) = 223 sequences (216 of the whole).
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w = chat(1);
  w.max_context = 2048;
  EngineConfig engine;
  engine.usable_fraction_of_free = true;
  const InferenceEstimate e = estimate_inference(pm, w, h100_sxm(), Deployment{}, engine, nullptr, 0.0);
  const double capacity = 80.0 * k_gib * 0.99;
  const double non_kv = 16'060'522'496.0 + 1'297'088'512.0 + 0.9 * k_gib;
  CHECK(e.memory.usable_per_gpu_bytes == Approx(non_kv + 0.9 * (capacity - non_kv)));
  CHECK(e.memory.usable_fraction_of_free);
  CHECK(e.max_concurrency == 223);
  CHECK(e.memory.fits);
  // Weights beyond the GPU leave nothing free: the usable bytes are the whole GPU and it does not fit.
  const PreparedModel big = prepare_model(llama31_70b(), Precision{});
  const InferenceEstimate over = estimate_inference(big, w, h100_sxm(), Deployment{}, engine, nullptr, 0.0);
  CHECK(over.memory.usable_per_gpu_bytes == Approx(capacity));
  CHECK_FALSE(over.memory.fits);
}

TEST_CASE("decode step of Llama-3.1-8B BF16 on one H100, worked by hand (methodology §4.4)", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const InferenceEstimate e =
      estimate_inference(pm, chat(1), h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
  // Bytes per step at B = 1, mean context c̄ = 1024 + 256/2 = 1152: every layer weight and the LM
  // head are read; the input embedding is a gather of one row, not a full read.
  // layer bytes = (8,030,261,248 − 2 × 525,336,576) × 2 = 13,959,176,192; head = 1,050,673,152.
  const double weights_read = 13'959'176'192.0 + 1'050'673'152.0;
  const double kv = 131072.0 * 1152.0;
  const double memory_s = (weights_read + kv) / (3350e9 * 0.8); // 5.657 ms
  CHECK(memory_s * 1e3 == Approx(5.657).epsilon(0.001));
  // + 32 layers × 30 µs of fixed per-layer kernel time (vLLM's EngineConfig default) + 0.5 ms step
  // overhead (methodology §3).
  CHECK(e.decode_step_s == Approx(memory_s + 32 * 30e-6 + 0.5e-3));
  CHECK(e.bound == Bound::memory_bandwidth);
  // Prefill of 1,024 tokens: (2·N_mm − 2·V·h)·1024 + 2·V·h + 4·n_h·d_h·L·(1024·1025/2), at 989.5 × 0.6.
  const double flops = (2.0 * 7'504'658'432.0 - 1'050'673'152.0) * 1024.0 + 1'050'673'152.0 +
                       16384.0 * 32.0 * (1024.0 * 1025.0 / 2.0);
  // Thin-GEMM correction at M = 1024 rows: η_f × 1024 / (1024 + 128) (EngineConfig, methodology §7.2).
  const double shape = 1024.0 / (1024.0 + 128.0);
  // A prefill step also pays the eager kernel launches CUDA graphs do not cover: 32 layers × 50 µs
  // (vLLM's EngineConfig default, methodology §3 "Eager prefill time").
  CHECK(e.prefill_s == Approx(flops / (989.5e12 * 0.6 * shape) + 32 * 30e-6 + 0.5e-3 + 32 * 50e-6));
  CHECK(e.prefill_s * 1e3 == Approx(30.66).epsilon(0.002));
  CHECK(e.ttft_s == Approx(e.prefill_s)); // concurrency 1: no queueing
}

TEST_CASE("a full prefill step packs whole prompts into the token budget, worked by hand (methodology §3.6)",
          "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const InferenceEstimate e =
      estimate_inference(pm, chat(1), h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
  // ⌊8,192 / 1,024⌋ = 8 prompts; their GEMMs share 8,192 rows (shape 8,192 / 8,320), attention per
  // prompt; one weight read (15 GB / 2,680 GB/s = 5.6 ms < the compute), one step's fixed time.
  CHECK(e.prefill_prompts_per_step == 8.0);
  const double flops = (2.0 * 7'504'658'432.0 - 1'050'673'152.0) * 1024.0 + 1'050'673'152.0 +
                       16384.0 * 32.0 * (1024.0 * 1025.0 / 2.0);
  const double step = 8.0 * flops / (989.5e12 * 0.6 * 8192.0 / 8320.0) + 32 * 30e-6 + 0.5e-3 + 32 * 50e-6;
  CHECK(e.prefill_batch_step_s == Approx(step));
  CHECK(e.prefill_batch_step_s * 1e3 == Approx(202.45).epsilon(0.001)); // 199.39 ms FLOPs + 3.06 ms
  // Per prompt a full step costs less than a lone prompt (fixed time shared, wider GEMMs).
  CHECK(e.prefill_batch_step_s / 8.0 < e.prefill_s);
  // A prompt longer than the budget fills no step with another: k = 1, the lone prefill.
  InferenceWorkload longer = chat(1);
  longer.input_tokens = 8192;
  const InferenceEstimate l =
      estimate_inference(pm, longer, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
  CHECK(l.prefill_prompts_per_step == 1.0);
  CHECK(l.prefill_batch_step_s == Approx(l.prefill_s));
}

TEST_CASE("continuous batching at B = 64 reproduces methodology §6.1 within 5 %", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  // Methodology §6.1 models desynchronised continuous batching: no closed-loop waves, and no fixed
  // per-layer or eager-launch time (its step pays only the 0.5 ms overhead).
  EngineConfig engine;
  engine.wave_synchrony = 0.0;
  engine.layer_overhead_s = 0.0;
  engine.moe_layer_overhead_s = 0.0;
  engine.prefill_layer_overhead_s = 0.0;
  engine.prefill_expert_overhead_s = 0.0;
  const InferenceEstimate e =
      estimate_inference(pm, chat(64), h100_sxm(), Deployment{}, engine, nullptr, 4.32);
  // Methodology: TPOT_eff 16.7 ms, 3,835 output tok/s, $0.31 per 1M output tokens at $4.32/h.
  CHECK(e.tpot_s * 1e3 == Approx(16.7).epsilon(0.05));
  CHECK(e.output_tokens_per_s == Approx(3835).epsilon(0.06));
  CHECK(e.usd_per_million_output_tokens == Approx(0.31).epsilon(0.06));
  CHECK(e.usd_per_million_output_tokens == Approx(4.32 / (e.output_tokens_per_s * 3600) * 1e6));
  CHECK(e.requests_per_s == Approx(e.output_tokens_per_s / 256));
}

TEST_CASE("KV heads are sharded by TP and replicated past n_kv (methodology §2.3)", "[core]") {
  const PreparedModel pm = prepare_model(llama31_70b(), Precision{});
  InferenceWorkload w = chat(1);
  w.max_context = 8192;
  auto kv_at = [&](int tp) {
    Deployment d;
    d.gpus = tp;
    d.tp = tp;
    return estimate_inference(pm, w, h100_sxm(), d, EngineConfig{}, nullptr, 0.0).memory.kv_cache_bytes;
  };
  // 327,680 B/token: TP4 → 81,920 per GPU; TP8 → 40,960; TP16 → still 40,960 (one head per rank).
  CHECK(kv_at(4) == Approx(81920.0 * 8192.0));
  CHECK(kv_at(8) == Approx(40960.0 * 8192.0));
  CHECK(kv_at(16) == Approx(40960.0 * 8192.0));
}

TEST_CASE("TP over PCIe costs visibly more than over NVLink", "[core]") {
  const PreparedModel pm = prepare_model(llama31_70b(), precision_from_shorthand(NumberFormat::fp8));
  Deployment d;
  d.gpus = 4;
  d.tp = 4;
  Gpu pcie = h100_sxm();
  pcie.scaleup_gb_per_s = 0.0;
  const auto nv = estimate_inference(pm, chat(32), h100_sxm(), d, EngineConfig{}, nullptr, 0.0);
  const auto pc = estimate_inference(pm, chat(32), pcie, d, EngineConfig{}, nullptr, 0.0);
  CHECK(pc.comm_s_per_token > 3.0 * nv.comm_s_per_token);
  CHECK(pc.tpot_s > nv.tpot_s);
}

TEST_CASE("auto concurrency picks the largest batch meeting the TPOT SLA", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  Sla sla;
  sla.tpot_ms = 20.0;
  const auto e = estimate_inference(pm, chat(0), h100_sxm(), Deployment{}, EngineConfig{}, &sla, 1.0);
  CHECK(e.tpot_s * 1e3 <= 20.0);
  InferenceWorkload next = chat(e.concurrency + 1);
  const auto over = estimate_inference(pm, next, h100_sxm(), Deployment{}, EngineConfig{}, &sla, 1.0);
  CHECK(over.tpot_s * 1e3 > 20.0);
}

TEST_CASE("a model that does not fit is capacity-bound", "[core]") {
  const PreparedModel pm = prepare_model(llama31_70b(), Precision{});
  const auto e = estimate_inference(pm, chat(1), l40s(), Deployment{}, EngineConfig{}, nullptr, 1.0);
  CHECK_FALSE(e.memory.fits);
  CHECK(e.bound == Bound::capacity);
  CHECK(e.max_concurrency == 0);
}

TEST_CASE("properties: memory and latency are monotone in load; throughput in hardware", "[core][property]") {
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> conc(1, 200);
  std::uniform_int_distribution<int> len(16, 16384);
  const ModelSpec small = llama31_8b();
  const ModelSpec large = llama31_70b();
  const PreparedModel p_small = prepare_model(small, Precision{});
  const PreparedModel p_large = prepare_model(large, Precision{});
  Deployment d8;
  d8.gpus = 8;
  d8.tp = 8;
  for (int i = 0; i < 200; ++i) {
    InferenceWorkload w = chat(conc(rng));
    w.input_tokens = len(rng);
    InferenceWorkload more_conc = w;
    more_conc.concurrency += conc(rng);
    InferenceWorkload longer = w;
    longer.input_tokens += len(rng);
    const auto base = estimate_inference(p_small, w, h100_sxm(), d8, EngineConfig{}, nullptr, 1.0);
    const auto c2 = estimate_inference(p_small, more_conc, h100_sxm(), d8, EngineConfig{}, nullptr, 1.0);
    const auto l2 = estimate_inference(p_small, longer, h100_sxm(), d8, EngineConfig{}, nullptr, 1.0);
    const auto big = estimate_inference(p_large, w, h100_sxm(), d8, EngineConfig{}, nullptr, 1.0);
    CHECK(c2.memory.per_gpu_bytes >= base.memory.per_gpu_bytes);
    CHECK(l2.memory.per_gpu_bytes >= base.memory.per_gpu_bytes);
    CHECK(big.memory.per_gpu_bytes >= base.memory.per_gpu_bytes);
    CHECK(l2.ttft_s > base.ttft_s);
    Gpu faster = h100_sxm();
    faster.memory_bandwidth_gb_per_s *= 1.5;
    faster.dense_tflops[static_cast<std::size_t>(MathDtype::bf16)] *= 1.5;
    const auto f = estimate_inference(p_small, w, faster, d8, EngineConfig{}, nullptr, 1.0);
    CHECK(f.output_tokens_per_s >= base.output_tokens_per_s);
  }
}

TEST_CASE("the estimator's weight split adds up to weight_bytes() for every format", "[core]") {
  for (const auto& info : all_formats()) {
    for (const ModelSpec& m : {llama31_8b(), llama31_70b(), mixtral_8x7b()}) {
      const Precision p = precision_from_shorthand(info.format);
      CHECK(prepare_model(m, p).weight_bytes_total == Approx(weight_bytes(m, p)).epsilon(1e-12));
    }
  }
}

TEST_CASE("a replica over GPUs with no known link stays finite and says so", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  Gpu island = l40s();
  island.pcie_gb_per_s = 0.0;
  island.nic_gb_per_s = 0.0;
  Deployment d;
  d.gpus = 2;
  d.pp = 2;
  const auto e = estimate_inference(pm, chat(8), island, d, EngineConfig{}, nullptr, 1.0);
  CHECK_FALSE(e.link_known);
  CHECK(std::isfinite(e.ttft_s));
  CHECK(std::isfinite(e.tpot_s));
  Deployment one;
  CHECK(estimate_inference(pm, chat(8), island, one, EngineConfig{}, nullptr, 1.0).link_known);
}

TEST_CASE("closed_decode_step_s is estimate_inference's decode step, batch by batch", "[core]") {
  // The shortcut the disaggregated decode pool uses must report the same step as the whole estimate
  // for every batch: below and above the KV slots, above the CUDA-graph batch, with TP, and for a
  // MoE model with attention DP (the busiest rank's ceil(C/adp) sequences).
  const PreparedModel dense = prepare_model(llama31_8b(), Precision{});
  const PreparedModel moe = prepare_model(deepseek_v3(), precision_from_shorthand(NumberFormat::fp8));
  Deployment tp2;
  tp2.tp = 2;
  tp2.gpus = 2;
  Deployment adp;
  adp.tp = 8;
  adp.ep = 8;
  adp.attention_dp = 8;
  adp.gpus = 8;
  const EngineConfig engine;
  for (const std::int64_t c : {1, 2, 7, 64, 300, 513, 5000}) {
    InferenceWorkload w = chat(c);
    for (const Deployment& dep : {Deployment{}, tp2}) {
      const InferenceEstimate e = estimate_inference(dense, w, h100_sxm(), dep, engine, nullptr, 0.0);
      CHECK(closed_decode_step_s(dense, w, h100_sxm(), dep, engine) == e.decode_step_s);
    }
    const InferenceEstimate m = estimate_inference(moe, w, h100_sxm(), adp, engine, nullptr, 0.0);
    CHECK(closed_decode_step_s(moe, w, h100_sxm(), adp, engine) == m.decode_step_s);
  }
}
