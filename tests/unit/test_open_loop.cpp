// The open loop as a step loop (docs/methodology.md §3.1 "Open loop: the step loop", "KV in
// flight", "capacity"): the formulas against hand-computed values, and the estimator's open loop
// against them.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/load_model.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// 1,024 + 256 tokens of Poisson arrivals at `rate` req/s.
InferenceWorkload open_chat(double rate) {
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  w.arrival = Arrival::poisson;
  w.request_rate_per_s = rate;
  return w;
}

} // namespace

TEST_CASE("the open loop's mean step, by hand", "[load]") {
  // D = 50 ms, E = 8 ms, m = 25 ms, n = 2 prompts a step, p = 1:
  // T = 0.05 + (1 − e^−2)·0.008 + 2·0.025 = 0.05 + 0.864665·0.008 + 0.05 = 0.10691732 s.
  CHECK(load::open_step_s(0.05, 0.008, 0.025, 2.0, 1.0) == Approx(0.10691732).epsilon(1e-7));
  // No prompts: the decode alone. Two stages halve the prompts' share: 0.05 + 0.00691732 + 0.025.
  CHECK(load::open_step_s(0.05, 0.008, 0.025, 0.0, 1.0) == Approx(0.05));
  CHECK(load::open_step_s(0.05, 0.008, 0.025, 2.0, 2.0) == Approx(0.08191732).epsilon(1e-7));
}

TEST_CASE("the running step's remainder at a prompt's arrival, by hand", "[load]") {
  // T = 0.1 s, busy 0.8: 0 up to q = 0.2, then uniform: p50 = 0.1·(0.5 − 0.2)/0.8 = 0.0375 s,
  // p99 = 0.1·0.79/0.8 = 0.09875 s.
  CHECK(load::step_remainder_quantile_s(0.1, 0.8, 0.1) == 0.0);
  CHECK(load::step_remainder_quantile_s(0.1, 0.8, 0.5) == Approx(0.0375));
  CHECK(load::step_remainder_quantile_s(0.1, 0.8, 0.99) == Approx(0.09875));
  CHECK(load::step_remainder_quantile_s(0.1, 0.0, 0.99) == 0.0); // nothing in flight
}

TEST_CASE("the open loop's capacity is the least of its three bounds, by hand", "[load]") {
  // 100 slots, first token 0.2 s, decode 99 × 0.05 s = 4.95 s: Little 100 / 5.15 = 19.4175 req/s.
  // Budget: 8,092 free tokens a step of 0.05 s, 1,000-token prompts: 161.84 req/s. Prompts' share:
  // 1 / 0.025 = 40 req/s. Little's law binds.
  CHECK(load::open_capacity_per_s(100, 0.2, 4.95, 8092, 1000, 0.05, 0.025, 1) ==
        Approx(19.417476).epsilon(1e-6));
  // 1,000 slots: Little 194.17; the prompts' share (40 req/s) binds.
  CHECK(load::open_capacity_per_s(1000, 0.2, 4.95, 8092, 1000, 0.05, 0.025, 1) == Approx(40.0));
  // 2,048 free tokens: 2,048 / (1,000 · 0.05) = 40.96 against Little's 194: the budget, with p = 2.
  CHECK(load::open_capacity_per_s(1000, 0.2, 4.95, 2048, 1000, 0.05, 0.025, 2) == Approx(40.96));
  CHECK(load::open_capacity_per_s(100, 0.2, 4.95, 0, 1000, 0.05, 0.025, 1) == 0.0); // no room
}

TEST_CASE("open loop: sequences hold what the engine admits by, and capacity is the limit", "[core]") {
  // Llama-3.1-8B on one H100, 1,024 + 256 tokens: vLLM holds the tokens a sequence has
  // (1,024 + 255/2 = 1,151.5 on average), TensorRT-LLM's default reserves prompt + output (1,279):
  // more vLLM sequences fit the same pool (methodology §3.1 "Open loop: KV in flight").
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const InferenceWorkload w = open_chat(4.0);
  const Gpu gpu = h100_sxm();
  EngineConfig vllm;
  EngineConfig reserving = vllm;
  reserving.kv_reserved_output_share = 1.0;
  const InferenceEstimate held = estimate_inference(pm, w, gpu, Deployment{}, vllm, nullptr, 0.0);
  const InferenceEstimate reserved = estimate_inference(pm, w, gpu, Deployment{}, reserving, nullptr, 0.0);
  // Slots scale by the tokens held: blocks of 16, 1,152 against 1,280 (the paged context).
  CHECK(static_cast<double>(held.max_concurrency) ==
        Approx(static_cast<double>(reserved.max_concurrency) * 1280.0 / 1152.0).margin(1.0));
  CHECK(held.capacity_requests_per_s > reserved.capacity_requests_per_s);
  // The capacity is the edge of the queue: 2 % below it the replica serves, 2 % above it does not.
  for (const EngineConfig& e : {vllm, reserving}) {
    const double cap = estimate_inference(pm, w, gpu, Deployment{}, e, nullptr, 0.0).capacity_requests_per_s;
    REQUIRE(cap > 1.0);
    InferenceWorkload below = w;
    below.request_rate_per_s = 0.98 * cap;
    InferenceWorkload above = w;
    above.request_rate_per_s = 1.02 * cap;
    CHECK_FALSE(estimate_inference(pm, below, gpu, Deployment{}, e, nullptr, 0.0).overloaded);
    const InferenceEstimate over = estimate_inference(pm, above, gpu, Deployment{}, e, nullptr, 0.0);
    CHECK(over.overloaded);
    CHECK(over.requests_per_s == Approx(cap)); // past its capacity a deployment serves its capacity
  }
}

TEST_CASE("open loop: TTFT is a step's remainder, its carrier step and its own work", "[core]") {
  // At a light load the first token is the idle prefill; at a heavy one it is about 1.5 steps (the
  // remainder of the running step, then the step that carries the prompt), far below a queue of
  // whole prefills at the same rate.
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w = open_chat(0.05);
  const Gpu gpu = h100_sxm();
  const EngineConfig engine;
  const InferenceEstimate light = estimate_inference(pm, w, gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK(light.ttft_s == Approx(light.prefill_s + engine.ttft_fixed_s).epsilon(0.05));
  w.request_rate_per_s = 0.8 * light.capacity_requests_per_s;
  const InferenceEstimate heavy = estimate_inference(pm, w, gpu, Deployment{}, engine, nullptr, 0.0);
  REQUIRE_FALSE(heavy.overloaded);
  const double steps = (heavy.ttft_s - engine.ttft_fixed_s) / heavy.tpot_s;
  CHECK(steps > 1.4);
  CHECK(steps < 2.5);
  CHECK(heavy.ttft.p99_s > heavy.ttft.p50_s);
  CHECK(heavy.ttft.p99_s < heavy.ttft_s + 2.0 * heavy.tpot_s);
}

TEST_CASE("the knee of a latency-load curve is its point of greatest power, by hand", "[load]") {
  // Loads 1, 2, 4, 8 req/s at 1.0, 1.1, 1.6, 5.0 s: power 1, 1.818, 2.5, 1.6 → the third point.
  const std::vector<double> load = {1.0, 2.0, 4.0, 8.0};
  const std::vector<double> latency = {1.0, 1.1, 1.6, 5.0};
  CHECK(load::power_knee_index(load, latency) == 2);
  // An overloaded point has no latency (NaN) and is skipped; none at all gives size().
  const std::vector<double> with_overload = {1.0, 1.1, 1.6, std::nan("")};
  CHECK(load::power_knee_index(load, with_overload) == 2);
  const std::vector<double> none = {std::nan(""), 0.0, -1.0, std::nan("")};
  CHECK(load::power_knee_index(load, none) == load.size());
  // A flat latency puts the knee at the most load.
  CHECK(load::power_knee_index(load, std::vector<double>(4, 0.2)) == 3);
}
