// The open loop as a step loop (docs/methodology.md §3.1 "Open loop: the step loop", "KV in
// flight", "capacity"): the formulas against hand-computed values, and the estimator's open loop
// against them.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "core/decide/sizing.hpp"
#include "fixtures.hpp"
#include "render/render.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/load_model.hpp"
#include "rightsize/search.hpp"

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
  // At a light load the first token is the idle prefill; at a heavy one it is 1.5–3 steps (the
  // remainder of the running step, the step that carries the prompt, and at 0.8 of the capacity a
  // wait for room in the token budget), far below a queue of whole prefills at the same rate.
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
  CHECK(steps < 3.0);
  CHECK(heavy.ttft.p99_s > heavy.ttft.p50_s);
  CHECK(heavy.ttft.p99_s < heavy.ttft_s + 3.0 * heavy.tpot_s);
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

TEST_CASE("open loop: the band's slow end is the queue at k times the rate, by hand", "[core][judge]") {
  // Point: TTFT 100 ms, TPOT 20 ms, 256 tokens (E2E 0.1 + 255·0.02 = 5.2 s). Slow end (the same
  // deployment at k·λ): TTFT 300 ms, TPOT 30 ms, E2E 0.3 + 255·0.03 = 7.95 s. Band ratios 1.2 / 1.1.
  InferenceEstimate point;
  point.memory.per_gpu_bytes = 60e9;
  point.memory.usable_per_gpu_bytes = 76.5e9;
  point.memory.fits = true;
  point.open_loop = true;
  point.ttft_s = 0.1;
  point.tpot_s = 0.02;
  point.e2e_s = 5.2;
  InferenceEstimate slow = point;
  slow.ttft_s = 0.3;
  slow.tpot_s = 0.03;
  slow.e2e_s = 7.95;
  BandFactors b;
  b.ttft_high = 1.2;
  b.tpot_high = 1.1;
  // TTFT max(0.1·1.2, 0.3·1.2) = 0.36 s; TPOT 0.03·1.1 = 0.033 s; E2E 0.3·1.2 + 7.65·1.1 = 8.775 s.
  CHECK(latency_at_band_s(point, &slow, 0, Statistic::mean, b) == Approx(0.36));
  CHECK(latency_at_band_s(point, &slow, 1, Statistic::mean, b) == Approx(0.033));
  CHECK(latency_at_band_s(point, &slow, 2, Statistic::mean, b) == Approx(8.775));
  // Without a slow end, or for a closed loop: the point × its ratio (0.12 s).
  CHECK(latency_at_band_s(point, nullptr, 0, Statistic::mean, b) == Approx(0.12));
  InferenceEstimate closed = point;
  closed.open_loop = false;
  CHECK(latency_at_band_s(closed, &slow, 0, Statistic::mean, b) == Approx(0.12));
  // The band shown reaches the same ends.
  InferenceBands bands;
  bands.ttft = Band{0.08, 0.1, 0.12};
  bands.tpot = Band{0.018, 0.02, 0.022};
  bands.e2e = Band{4.6, 5.2, 0.12 + 255 * 0.022};
  band_through_queue(bands, point, &slow);
  CHECK(bands.ttft.high == Approx(0.36));
  CHECK(bands.tpot.high == Approx(0.033));
  CHECK(bands.e2e.high == Approx(8.775));
  CHECK(bands.ttft.low == 0.08); // the fast end keeps its ratio
  // Overloaded at the slow end: the waits have no bound, TPOT stays a time.
  slow.overloaded = true;
  CHECK(std::isinf(latency_at_band_s(point, &slow, 0, Statistic::mean, b)));
  CHECK(std::isinf(latency_at_band_s(point, &slow, 2, Statistic::mean, b)));
  CHECK(latency_at_band_s(point, &slow, 1, Statistic::mean, b) == Approx(0.033));
  // The judge takes the same ends: TTFT 360 ms meets 500 ms; unbounded at an overloaded slow end.
  Sla sla;
  sla.ttft_ms = 500.0;
  JudgeRules rules;
  rules.bands = b;
  slow.overloaded = false;
  rules.slow_end = &slow;
  const Verdict met = judge(point, sla, rules);
  CHECK(met.passes());
  CHECK(met.terms[0].value == Approx(360.0));
  CHECK(met.terms[0].point_value == Approx(100.0));
  slow.overloaded = true;
  const Verdict missed = judge(point, sla, rules);
  CHECK_FALSE(missed.passes());
  CHECK(missed.first.term == Term::ttft);
  CHECK(missed.first.overloaded_at_band);
  CHECK(cli::describe_term(missed.terms[0]) ==
        "TTFT 100.0 ms (band p90 unbounded: overloaded at the band's slow end) > 500 ms");
}

TEST_CASE("open loop: the slow end is the same deployment at k times the arrival rate", "[core][judge]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const Gpu gpu = h100_sxm();
  const EngineConfig engine;
  const double cap =
      estimate_inference(pm, open_chat(1.0), gpu, Deployment{}, engine, nullptr, 0.0).capacity_requests_per_s;
  REQUIRE(cap > 1.0);
  const InferenceWorkload w = open_chat(0.5 * cap);
  const InferenceEstimate e = estimate_inference(pm, w, gpu, Deployment{}, engine, nullptr, 0.0);
  const auto slow = slow_end_estimate(e, pm, w, gpu, Deployment{}, engine, 1.5);
  REQUIRE(slow);
  const InferenceEstimate at_rate =
      estimate_inference(pm, open_chat(0.75 * cap), gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK(slow->requests_per_s == Approx(at_rate.requests_per_s));
  CHECK(slow->ttft_s == Approx(at_rate.ttft_s));
  CHECK(slow->ttft_s > e.ttft_s); // more in flight, longer steps
  CHECK_FALSE(slow->overloaded);
  // k = 2.5 puts 1.25 × the capacity on it: overloaded, so TTFT's band end is unbounded.
  const auto past = slow_end_estimate(e, pm, w, gpu, Deployment{}, engine, 2.5);
  REQUIRE(past);
  CHECK(past->overloaded);
  // None at p50 (k = 1), for a closed loop or for an estimate already overloaded.
  CHECK_FALSE(slow_end_estimate(e, pm, w, gpu, Deployment{}, engine, 1.0));
  InferenceWorkload closed_w = w;
  closed_w.arrival = Arrival::closed_loop;
  closed_w.request_rate_per_s = 0.0;
  closed_w.concurrency = 8;
  const InferenceEstimate closed = estimate_inference(pm, closed_w, gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK_FALSE(slow_end_estimate(closed, pm, closed_w, gpu, Deployment{}, engine, 1.5));
  const InferenceEstimate over =
      estimate_inference(pm, open_chat(1.1 * cap), gpu, Deployment{}, engine, nullptr, 0.0);
  CHECK_FALSE(slow_end_estimate(over, pm, open_chat(1.1 * cap), gpu, Deployment{}, engine, 1.5));
}

TEST_CASE("open loop: a deployment is judged at the workload's rate, else the SLA's peak", "[core]") {
  Sla sla;
  sla.requests_per_s = 12.0;
  InferenceWorkload w = open_chat(0.0);
  CHECK(deployment_arrivals(w, sla).request_rate_per_s == 12.0);
  w.request_rate_per_s = 5.0;
  CHECK(deployment_arrivals(w, sla).request_rate_per_s == 5.0);
  InferenceWorkload closed = open_chat(0.0);
  closed.arrival = Arrival::closed_loop;
  CHECK(deployment_arrivals(closed, sla).request_rate_per_s == 0.0);
  CHECK(deployment_arrivals(open_chat(0.0), Sla{}).request_rate_per_s == 0.0);
}

TEST_CASE("open loop: the fewest copies that serve, by doubling steps and bisection", "[core][search]") {
  // Every threshold in and beyond [lo, hi] against one copy at a time, with the calls counted.
  for (int threshold = 1; threshold <= 160; ++threshold) {
    int calls = 0;
    const int found = detail::fewest_serving(3, 150, [&](int n) {
      ++calls;
      return n >= threshold;
    });
    int linear = 3;
    while (linear < 150 && linear < threshold)
      ++linear;
    CHECK(found == linear); // 150 (the limit) when none up to it serves
    // The limit first (one call when it does not serve), then log2(148) ≈ 7.2: at most 8 doubling
    // steps and 7 bisections, where one at a time took 147.
    CHECK(calls <= (threshold > 150 ? 1 : 17));
  }
  CHECK(detail::fewest_serving(7, 7, [](int) { return false; }) == 7);
  CHECK(detail::fewest_serving(1, 100000, [](int n) { return n >= 99999; }) == 99999);
  // The limit: 4 × the sized count + 8, capped at the most replicas, never below the sized count.
  CHECK(detail::open_loop_copy_limit(10) == 48);
  CHECK(detail::open_loop_copy_limit(90000) == detail::k_max_replicas);
  CHECK(detail::open_loop_copy_limit(200000) == 200000);
  // What more copies help (latency, load) must hold; the cost terms they worsen may fail.
  Verdict v;
  CHECK(detail::fails_only_on_cost(v));
  v.first = failed_term(Term::budget, 40.0, 30.0);
  CHECK(detail::fails_only_on_cost(v));
  v.first = failed_term(Term::ttft, 400.0, 300.0);
  CHECK_FALSE(detail::fails_only_on_cost(v));
  v.first = failed_term(Term::requests_per_s, 10.0, 12.0);
  CHECK_FALSE(detail::fails_only_on_cost(v));
}
