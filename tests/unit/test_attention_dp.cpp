// Attention data parallel + expert parallel layouts and multi-node collectives (methodology §5.1,
// §5.6): hand-computed worked examples.
#include <cmath>
#include <cstdint>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/load_model.hpp"
#include "rightsize/model.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// An H200-sized part (141 GB) so that DeepSeek-V3 fp8 fits both 8-GPU layouts.
Gpu h200_sized() {
  Gpu gpu = h100_sxm();
  gpu.memory_bytes = 141e9;
  gpu.visible_memory_bytes = 0.0;
  return gpu;
}

// 8 GPUs, experts over EP 8: attention DP 8 (attention_dp = 8) or TP 8 (attention_dp = 1).
Deployment eight_gpus_ep8(int attention_dp) {
  Deployment d;
  d.gpus = 8;
  d.tp = 8 / attention_dp;
  d.attention_dp = attention_dp;
  d.ep = 8;
  return d;
}

} // namespace

TEST_CASE("expert load imbalance: heaviest of n bins under uniform routing", "[core][adp]") {
  // 64 decode tokens per rank × 8 ranks × k = 8 experts = 4,096 assignments over 8 groups:
  // 512 per group; 1 + sqrt(2·ln 8 / 512) = 1 + sqrt(4.158883 / 512) = 1.090127.
  CHECK(expert_load_imbalance(4096.0, 8) == Approx(1.090127).epsilon(1e-6));
  // 512 assignments: 64 per group, 1 + sqrt(4.158883 / 64) = 1.254918.
  CHECK(expert_load_imbalance(512.0, 8) == Approx(1.254918).epsilon(1e-6));
  CHECK(expert_load_imbalance(512.0, 1) == 1.0); // one group holds every expert
  CHECK(expert_load_imbalance(0.0, 8) == 1.0);
}

TEST_CASE("all-reduce across two 8-GPU domains: hierarchical beats the flat ring", "[core][adp]") {
  // 1 MB over 16 GPUs, 8 per NVLink domain (900 GB/s, 0.8 µs hops), 100 GB/s NIC (6 µs hops),
  // link efficiency 0.75, 5 µs start-up.
  // Ring over the NIC: 5 + 30 × 6 = 185 µs + 2·15/16 × 1e6 / 75e9 = 25 µs -> 210 µs.
  // Hierarchical: inside 5 + 14 × 0.8 = 16.2 µs + 1.75 × 1e6 / 675e9 = 2.5926 µs -> 18.7926 µs;
  // across 2 domains: 5 + 2 × 1 × 6 = 17 µs + 2 × 125,000 / 75e9 = 3.3333 µs -> 20.3333 µs;
  // total 39.1259 µs.
  const double t = group_allreduce_s(1e6, 16, 8, 900.0, 0.8e-6, 100.0, 6e-6, 0.75, 5e-6);
  CHECK(t == Approx(39.1259e-6).epsilon(1e-5));
  // Inside one domain it is the ring itself.
  CHECK(group_allreduce_s(1e6, 8, 8, 900.0, 0.8e-6, 900.0, 0.8e-6, 0.75, 5e-6) ==
        Approx(collective_time_s(1e6, 8, 900.0, 0.75, 0.8e-6, 5e-6, true)));
  // The cheaper of the two forms, never more than the flat ring.
  CHECK(group_allreduce_s(1e10, 16, 8, 900.0, 0.8e-6, 100.0, 6e-6, 0.75, 5e-6) <=
        collective_time_s(1e10, 16, 100.0, 0.75, 6e-6, 5e-6, true));
}

TEST_CASE("attention DP: each rank holds its own sequences' KV, experts split over all GPUs", "[core][adp]") {
  const PreparedModel pm = prepare_model(deepseek_v3(), precision_from_shorthand(NumberFormat::fp8));
  const Gpu gpu = h200_sized();
  const InferenceWorkload w = closed_loop(1024, 1024, 64);
  const Deployment tp8 = eight_gpus_ep8(1);
  const Deployment adp8 = eight_gpus_ep8(8);
  REQUIRE(adp8.gpus_per_replica() == 8);
  REQUIRE(adp8.replicas() == 1);
  const InferenceEstimate a = estimate_inference(pm, w, gpu, tp8, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate b = estimate_inference(pm, w, gpu, adp8, EngineConfig{}, nullptr, 0.0);
  // Weights per GPU: TP8 = (layers + experts)/8 + (embedding + head)/8; ADP8 = layers/1 +
  // experts/8 + embedding + head: the difference is 7/8 of the non-expert weights.
  const double non_expert = pm.layer_weight_bytes + pm.embedding_bytes + pm.lm_head_bytes;
  CHECK(b.memory.weights_bytes - a.memory.weights_bytes == Approx(non_expert * 7.0 / 8.0).epsilon(1e-9));
  // MLA under TP8 replicates the latent on every GPU: 64 sequences' KV on each. Under ADP8 a GPU
  // holds its rank's 8 sequences: 1/8 of it.
  CHECK(b.memory.kv_cache_bytes == Approx(a.memory.kv_cache_bytes / 8.0).epsilon(1e-9));
  // The replica serves the 64 clients either way, and 8 ranks hold 8× the sequences one rank holds.
  CHECK(b.concurrency == 64);
  CHECK(b.max_concurrency > 4 * a.max_concurrency);
  CHECK(b.output_tokens_per_s > 0.0);
}

TEST_CASE("attention-DP balancing: prompts held until every rank has one", "[core][adp]") {
  // 8 ranks, 128 clients at OSL 1,024: Λ = 0.125 prompts per step. H(7) = 2.592857, so all other
  // ranks have one after 2.592857 × 8 / 0.125 = 165.9 steps, past the 50-step timeout: W = 50.
  // Mean hold (50 + 0.125 × 50² / 2) / (1 + 0.125 × 50) = 206.25 / 7.25 = 28.4483 steps.
  double hold = 0.0;
  CHECK(load::adp_balance_wait_steps(8.0, 0.125, 50.0, 10.0, &hold) == Approx(28.4483).epsilon(1e-5));
  CHECK(hold == 50.0);
  // 2 ranks at 1 prompt per step: the other rank has one after H(1)·2 / 1 = 2 steps, inside the
  // timeout, then 10 batching steps: W = 12, mean (12 + 144 / 2) / 13 = 6.461538.
  CHECK(load::adp_balance_wait_steps(2.0, 1.0, 50.0, 10.0, &hold) == Approx(6.461538).epsilon(1e-6));
  CHECK(hold == Approx(12.0));
  CHECK(load::adp_balance_wait_steps(1.0, 1.0, 50.0, 10.0) == 0.0);  // no attention DP
  CHECK(load::adp_balance_wait_steps(8.0, 0.125, 0.0, 10.0) == 0.0); // no balancing (vLLM, SGLang)

  // Through the estimator: DeepSeek-V3 fp8 ADP8 at 128 clients; with balancing the closed loop's
  // TTFT grows by the mean hold at its step time and TPOT is unchanged.
  const PreparedModel pm = prepare_model(deepseek_v3(), precision_from_shorthand(NumberFormat::fp8));
  const Gpu gpu = h200_sized();
  const InferenceWorkload w = closed_loop(1024, 1024, 128);
  const Deployment adp8 = eight_gpus_ep8(8);
  EngineConfig off;
  EngineConfig on;
  on.adp_balance_timeout_steps = 50.0;
  on.adp_balance_batching_steps = 10.0;
  const InferenceEstimate a = estimate_inference(pm, w, gpu, adp8, off, nullptr, 0.0);
  const InferenceEstimate b = estimate_inference(pm, w, gpu, adp8, on, nullptr, 0.0);
  REQUIRE(a.tpot_s == Approx(b.tpot_s));
  CHECK(b.ttft_s - a.ttft_s == Approx(28.4483 * a.tpot_s).epsilon(1e-4));
  CHECK(b.ttft.p99_s - a.ttft.p99_s == Approx(0.99 * 50.0 * a.tpot_s).epsilon(1e-4));
  // Without attention DP the same engine holds nothing.
  const Deployment tp8 = eight_gpus_ep8(1);
  CHECK(estimate_inference(pm, w, gpu, tp8, on, nullptr, 0.0).ttft_s ==
        estimate_inference(pm, w, gpu, tp8, off, nullptr, 0.0).ttft_s);
}
