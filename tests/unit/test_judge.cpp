// core::judge, core::fit_layout, cost_at_load and the capacity plan: hand-computed worked examples
// (docs/ARCHITECTURE.md "One decision point", docs/methodology.md "Judging").
#include <cmath>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "render/render.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// A fitting estimate with round numbers: TTFT 400 ms, TPOT 40 ms, 10 req/s, 2,560 tok/s, $8/h.
InferenceEstimate round_estimate() {
  InferenceEstimate e;
  e.memory.per_gpu_bytes = 60e9;
  e.memory.usable_per_gpu_bytes = 76.5e9;
  e.memory.fits = true;
  e.ttft_s = 0.400;
  e.tpot_s = 0.040;
  e.e2e_s = 0.400 + 255 * 0.040; // 10.6 s
  e.requests_per_s = 10.0;
  e.output_tokens_per_s = 2560.0;
  e.usd_per_hour = 8.0;
  e.concurrency = 106;
  return e;
}

InferenceWorkload chat_judge() {
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  return w;
}

} // namespace

TEST_CASE("judge: every term with its margin, the first failure in canonical order", "[core][judge]") {
  const InferenceEstimate e = round_estimate();
  Sla sla;
  sla.ttft_ms = 500.0;
  sla.tpot_ms = 50.0;
  sla.requests_per_s = 8.0;
  sla.budget_usd = 10.0;
  const Verdict v = judge(e, sla, JudgeRules{});
  REQUIRE(v.passes());
  REQUIRE(v.term_count == 4);
  // TTFT 400 vs 500: margin 1 − 400/500 = 0.2; TPOT 40 vs 50: 0.2; 10 vs 8 req/s: 10/8 − 1 = 0.25;
  // $8 vs $10/h: 0.2.
  CHECK(v.terms[0].term == Term::ttft);
  CHECK(v.terms[0].margin() == Approx(0.2));
  CHECK(v.terms[1].margin() == Approx(0.2));
  CHECK(v.terms[2].term == Term::requests_per_s);
  CHECK(v.terms[2].margin() == Approx(0.25));
  CHECK(v.terms[3].margin() == Approx(0.2));

  // TPOT and load both miss: the first in canonical order (TPOT) is the reason.
  sla.tpot_ms = 30.0;
  sla.requests_per_s = 12.0;
  const Verdict miss = judge(e, sla, JudgeRules{});
  CHECK_FALSE(miss.passes());
  CHECK(miss.first.term == Term::tpot);
  CHECK(miss.first.value == Approx(40.0));
  CHECK(miss.first.limit == Approx(30.0));
  CHECK_FALSE(miss.terms[2].met); // the load term is still reported

  // Load checks can be left out (one replica before sizing).
  JudgeRules no_load;
  no_load.check_load = false;
  sla.tpot_ms = 50.0;
  CHECK(judge(e, sla, no_load).passes());
}

TEST_CASE("judge: p90 confidence judges latency at the band's high end and load at its low end",
          "[core][judge]") {
  const InferenceEstimate e = round_estimate();
  Sla sla;
  sla.tpot_ms = 50.0;
  sla.requests_per_s = 8.0;
  JudgeRules rules;
  rules.bands.tpot_high = 1.3;      // p90 TPOT = 40 × 1.3 = 52 ms > 50 ms
  rules.bands.throughput_low = 0.7; // p10 = 10 × 0.7 = 7 req/s < 8
  const Verdict v = judge(e, sla, rules);
  CHECK(v.first.term == Term::tpot);
  CHECK(v.terms[0].value == Approx(52.0));
  CHECK(v.terms[0].point_value == Approx(40.0));
  CHECK_FALSE(v.terms[1].met);
  CHECK(v.terms[1].value == Approx(7.0));
}

TEST_CASE("judge: the load carries the headroom recommend sizes for, by hand", "[core][judge]") {
  // 25 req/s at a p10 throughput factor of 0.9 judges 25 · 0.9 = 22.5 req/s against a 20 req/s peak.
  InferenceEstimate e = round_estimate();
  e.requests_per_s = 25.0;
  Sla sla;
  sla.requests_per_s = 20.0;
  JudgeRules rules;
  rules.bands.throughput_low = 0.9;
  rules.load_headroom = 0.2; // needs 20 · 1.2 = 24 req/s: misses
  const Verdict miss = judge(e, sla, rules);
  CHECK_FALSE(miss.passes());
  CHECK(miss.first.is_load());
  CHECK(miss.first.value == Approx(22.5));
  CHECK(miss.first.limit == Approx(24.0));
  CHECK(miss.first.headroom == Approx(0.2));
  REQUIRE(miss.term_count == 1);
  CHECK(miss.terms[0].headroom == Approx(0.2));
  CHECK(miss.terms[0].margin() == Approx(22.5 / 24.0 - 1.0));
  rules.load_headroom = 0.1; // needs 22 req/s: meets
  CHECK(judge(e, sla, rules).passes());
  rules.load_headroom = 0.0; // the bare peak: meets
  CHECK(judge(e, sla, rules).passes());
  // Replicas sized as ceil(need / per-replica) carry exactly `need` at a whole ratio: 24 = 2 × 12.
  e.requests_per_s = 24.0 / 0.9;
  rules.load_headroom = 0.2;
  CHECK(judge(e, sla, rules).passes());
  // An open-loop estimate without a capacity (a disaggregated one) is judged at its arrival rate.
  InferenceEstimate open = round_estimate();
  open.open_loop = true;
  open.requests_per_s = 20.0;
  CHECK(judge(open, sla, rules).passes());
  open.overloaded = true;
  CHECK_FALSE(judge(open, sla, rules).passes());
}

TEST_CASE("judge: an open loop is held to its closed-loop capacity with the headroom, by hand",
          "[core][judge]") {
  // Poisson at the 20 req/s peak, served (the queue is finite); the deployment's closed-loop
  // capacity 25 req/s judges 25 · 0.9 = 22.5 at p10, short of 20 · 1.2 = 24: the rule recommend
  // sizes replicas by (ceil(24 / 22.5 per replica) = 2), so one replica fails here as it does there.
  InferenceEstimate open = round_estimate();
  open.open_loop = true;
  open.requests_per_s = 20.0;
  open.capacity_requests_per_s = 25.0;
  Sla sla;
  sla.requests_per_s = 20.0;
  sla.ttft_ms = 500.0;
  JudgeRules rules;
  rules.bands.throughput_low = 0.9;
  rules.load_headroom = 0.2;
  const Verdict one = judge(open, sla, rules);
  CHECK_FALSE(one.passes());
  CHECK(one.first.is_load());
  REQUIRE(one.term_count == 2);
  CHECK(one.terms[1].capacity);
  CHECK(one.terms[1].value == Approx(22.5));
  CHECK(one.terms[1].point_value == Approx(25.0));
  CHECK(one.terms[1].limit == Approx(24.0));
  CHECK(one.terms[1].headroom == Approx(0.2));
  // The words check and estimate print for it (src/render/render.cpp).
  CHECK(cli::describe_term(one.terms[1]) ==
        "capacity 25.00 req/s (band p10 22.50) < 24 needed (SLA peak 20 + 20 % headroom)");
  // Two replicas: 50 req/s capacity, 45 at p10 ≥ 24.
  open.capacity_requests_per_s = 50.0;
  CHECK(judge(open, sla, rules).passes());
  // Overloaded at the rate (here the KV cache binds): the wait is unbounded, whatever the capacity.
  open.overloaded = true;
  open.ttft_s = 1e9;
  const Verdict over = judge(open, sla, rules);
  CHECK_FALSE(over.passes());
  CHECK(over.first.term == Term::ttft);
  CHECK(over.first.overloaded);
  CHECK(over.terms[0].overloaded);
  CHECK(cli::describe_rejection(over.first, 8) ==
        "the arrival rate exceeds what it serves: the queue grows without end (overloaded)");
}

TEST_CASE("one wording per term, in the workload's vocabulary", "[render][judge]") {
  // An end-to-end miss at concurrency 4, and a request-rate term, as a decoder, an image and an
  // encoder model say them (methodology §3.7: one request is one image or item, run in batches).
  TermCheck e2e;
  e2e.met = false;
  e2e.term = Term::e2e;
  e2e.value = 1250.0;
  e2e.limit = 1000.0;
  TermCheck rate;
  rate.term = Term::requests_per_s;
  rate.value = rate.point_value = 3.0;
  rate.limit = 2.0;
  rate.met = true;
  CHECK(cli::describe_rejection(e2e, 4) == "end-to-end 1250 ms > SLA 1000 ms at concurrency 4");
  CHECK(cli::describe_term(rate) == "serves 3.00 req/s ≥ 2 needed");
  const cli::Vocabulary image = cli::vocabulary_of(ModelKind::dit);
  CHECK(cli::describe_rejection(e2e, 4, image) == "image latency 1250 ms > SLA 1000 ms at batch 4");
  CHECK(cli::describe_term(rate, image) == "serves 3.00 images/s ≥ 2 needed");
  const cli::Vocabulary item = cli::vocabulary_of(ModelKind::vit);
  CHECK(cli::describe_rejection(e2e, 4, item) == "item latency 1250 ms > SLA 1000 ms at batch 4");
  CHECK(cli::describe_term(rate, item) == "serves 3.00 items/s ≥ 2 needed");
  CHECK(cli::vocabulary_of(ModelKind::decoder).rate == "req/s");
}

TEST_CASE("judge: a budget without a price is a miss, not a pass", "[core][judge]") {
  // $8/h against a $10/h budget meets it; the same estimate with no price cannot be shown to.
  const InferenceEstimate e = round_estimate();
  Sla sla;
  sla.budget_usd = 10.0;
  JudgeRules rules;
  CHECK(judge(e, sla, rules).passes());
  rules.price_known = false;
  const Verdict v = judge(e, sla, rules);
  CHECK_FALSE(v.passes());
  CHECK(v.first.term == Term::price);
  CHECK(v.first.limit == Approx(10.0));
}

TEST_CASE("judge: infeasible deployments are judged on feasibility only", "[core][judge]") {
  InferenceEstimate e = round_estimate();
  Sla sla;
  sla.tpot_ms = 50.0;
  e.precision_supported = false;
  e.memory.fits = false;
  const Verdict v = judge(e, sla, JudgeRules{});
  CHECK(v.first.term == Term::precision);
  CHECK_FALSE(v.feasible());
  CHECK(v.term_count == 0); // no latency is judged for what cannot run
  e.precision_supported = true;
  const Verdict w = judge(e, sla, JudgeRules{});
  CHECK(w.first.term == Term::memory);
  CHECK(w.first.value == Approx(60e9));
  CHECK(w.first.limit == Approx(76.5e9));
  // An engine without a build for the GPU's vendor comes before every other feasibility term.
  e.engine_runs = false;
  const Verdict x = judge(e, sla, JudgeRules{});
  CHECK(x.first.term == Term::engine);
  CHECK_FALSE(x.engine_runs);
  CHECK_FALSE(x.feasible());
  CHECK(x.term_count == 0);
}

TEST_CASE("band factors: identity at p50 or without a calibration", "[core][judge]") {
  const BandFactors none = band_factors(nullptr, Confidence::p90, "H100-SXM", "dense-small", Reach::measured);
  CHECK(none.tpot_high == 1.0);
  CHECK(none.throughput_low == 1.0);
  Calibration cal;
  BandEntry b;
  b.kind = FigureKind::tpot;
  b.gpu_id = "*";
  b.ratio_low = 0.8;
  b.ratio_high = 1.25;
  cal.bands.push_back(b);
  ClassWidening c;
  c.model_class = "dense-small";
  c.factor = 1.0;
  cal.classes.push_back(c);
  CHECK(band_factors(&cal, Confidence::p50, "H100-SXM", "dense-small", Reach::measured).tpot_high == 1.0);
  CHECK(band_factors(&cal, Confidence::p90, "H100-SXM", "dense-small", Reach::measured).tpot_high ==
        Approx(1.25));
  CHECK(parse_confidence("p90") == Confidence::p90);
  CHECK_FALSE(parse_confidence("p99").has_value());
}

TEST_CASE("cost at load: $/h over the load served, capped at capacity", "[core][judge]") {
  const InferenceEstimate e = round_estimate();
  Sla sla;
  sla.requests_per_s = 5.0;
  // $8/h ÷ (3,600 s/h × 5 req/s) = $4.444e-4 per request; ÷ 256 tokens × 1e6 = $1.736 per 1M.
  const CostAtLoad c = cost_at_load(e, sla, chat_judge());
  CHECK(c.served_requests_per_s == Approx(5.0));
  CHECK(c.served_output_tokens_per_s == Approx(1280.0));
  CHECK(c.usd_per_request == Approx(8.0 / 3600.0 / 5.0));
  CHECK(c.usd_per_million_output_tokens == Approx(8.0 / 3600.0 / 5.0 / 256.0 * 1e6));
  // Above capacity the deployment serves only its 10 req/s.
  sla.requests_per_s = 50.0;
  CHECK(cost_at_load(e, sla, chat_judge()).served_requests_per_s == Approx(10.0));
  // Without a load: full capacity, the estimate's own figure ($8/h ÷ 2,560 tok/s = $0.868 per 1M).
  CHECK(cost_at_load(e, Sla{}, chat_judge()).usd_per_million_output_tokens ==
        Approx(8.0 / (2560.0 * 3600.0) * 1e6));
}

TEST_CASE("fit_layout: the smallest replica that fits, TP before PP", "[core][judge]") {
  const PreparedModel pm = prepare_model(llama31_70b(), Precision{}); // 141 GB of bf16 weights
  const Gpu gpu = h100_sxm();                                         // 76.5 GB usable
  InferenceWorkload w = chat_judge();
  w.concurrency = 8;
  // 8 GPUs: TP1 cannot hold 141 GB; TP2 holds 70.6 GB of weights + 1.3 GB overhead + 8 × 1,280 ×
  // 163,840 B of KV (1.7 GB) + activations in 76.5 GB: 4 replicas of TP2.
  const LayoutChoice c = fit_layout(pm, w, gpu, LayoutRequest{8, 0, 0, 0}, EngineConfig{});
  REQUIRE(c.fits);
  CHECK(c.deployment.tp == 2);
  CHECK(c.deployment.pp == 1);
  CHECK(c.deployment.gpus == 8);
  CHECK(c.deployment.replicas() == 4);
  // One replica of any size (gpus = 0): TP2 on 2 GPUs, before TP1·PP2.
  const LayoutChoice one = fit_layout(pm, w, gpu, LayoutRequest{0, 0, 0, 0, 8, 1}, EngineConfig{});
  CHECK(one.deployment.gpus == 2);
  CHECK(one.deployment.tp == 2);
  // Pinned PP 2: the smallest such replica is TP1·PP2 (2 GPUs), twice on 4 GPUs.
  const LayoutChoice pinned = fit_layout(pm, w, gpu, LayoutRequest{4, 0, 2, 0}, EngineConfig{});
  CHECK(pinned.deployment.tp == 1);
  CHECK(pinned.deployment.pp == 2);
  CHECK(pinned.deployment.replicas() == 2);
  // Nothing fits on 1 GPU: the largest layout tried comes back with fits = false.
  const LayoutChoice none = fit_layout(pm, w, gpu, LayoutRequest{1, 0, 0, 0}, EngineConfig{});
  CHECK_FALSE(none.fits);
  CHECK(none.issue == LayoutIssue::none);
  // TP 3 divides neither 8 GPUs nor 64 heads.
  CHECK(fit_layout(pm, w, gpu, LayoutRequest{8, 3, 0, 0}, EngineConfig{}).issue != LayoutIssue::none);
}

TEST_CASE("EP and attention DP need an MoE model's experts", "[core][judge]") {
  const ModelSpec dense = llama31_70b();
  const ModelSpec moe = test::mixtral_8x7b();
  CHECK_FALSE(moe_layout_on_dense(dense, 1, 1));
  CHECK_FALSE(moe_layout_on_dense(dense, 0, 0));
  CHECK(moe_layout_on_dense(dense, 2, 1));
  CHECK(moe_layout_on_dense(dense, 1, 2));
  CHECK_FALSE(moe_layout_on_dense(moe, 8, 8));
}

TEST_CASE("fit_layout: a pinned EP wider than the pinned replica is refused", "[core][judge]") {
  const PreparedModel pm = prepare_model(test::mixtral_8x7b(), Precision{});
  const Gpu gpu = h100_sxm();
  InferenceWorkload w = chat_judge();
  w.concurrency = 8;
  // 16 GPUs of ADP8 replicas (tp 1, 8 GPUs each): EP 8 spans one replica, EP 16 would span two.
  LayoutRequest request{16, 0, 0, 8};
  request.attention_dp = 8;
  CHECK(fit_layout(pm, w, gpu, request, EngineConfig{}).issue == LayoutIssue::none);
  request.ep = 16;
  const LayoutChoice wide = fit_layout(pm, w, gpu, request, EngineConfig{});
  CHECK(wide.issue == LayoutIssue::ep_exceeds_replica);
  CHECK(wide.deployment.gpus_per_replica() == 8);
  // Without attention DP an EP spans its replica's TP group: EP 16 with TP8 pinned (or nothing
  // pinned: TP stops at the 8 GPUs of a node) forms no replica, and says the EP is why.
  const LayoutChoice tp8 = fit_layout(pm, w, gpu, LayoutRequest{16, 8, 0, 16}, EngineConfig{});
  CHECK(tp8.issue == LayoutIssue::ep_unplaceable);
  CHECK(tp8.deployment.ep == 16);
  CHECK(fit_layout(pm, w, gpu, LayoutRequest{16, 0, 0, 16}, EngineConfig{}).issue ==
        LayoutIssue::ep_unplaceable);
  // TP4 pinned, EP 8 on 4-GPU replicas: refused the same way.
  CHECK(fit_layout(pm, w, gpu, LayoutRequest{8, 4, 1, 8}, EngineConfig{}).issue ==
        LayoutIssue::ep_exceeds_replica);
}

TEST_CASE("latency at load: Little's law settles below the sized concurrency", "[core][judge]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  Sla sla;
  sla.tpot_ms = 50.0;
  sla.requests_per_s = 5.0;
  Deployment one;
  const Candidate c = evaluate_candidate(pm, chat_judge(), sla, h100_sxm(), one, 4.32, SearchPolicy{});
  REQUIRE(c.meets_sla);
  // One replica serving 5 req/s holds C = 5 × E(C) requests; E(C) ≥ 256 × TPOT(1) ≈ 2 s, so C ≥ 10,
  // and C stays below the max-throughput concurrency the SLA allows.
  CHECK(c.at_load.concurrency >= 10);
  CHECK(c.at_load.concurrency < c.estimate.concurrency);
  CHECK(c.at_load.e2e_s < c.estimate.e2e_s);
  CHECK(c.at_load.concurrency <= static_cast<std::int64_t>(std::ceil(5.0 * c.at_load.e2e_s)) + 1);
  // The table's figures are at that load: a lighter batch decodes faster than the sized one.
  CHECK(c.at_load.tpot_s > 0.0);
  CHECK(c.at_load.tpot_s < c.estimate.tpot_s);
  CHECK(c.at_load.ttft_s > 0.0);
  CHECK(c.at_load.e2e_judged_s == Approx(c.at_load.e2e_s)); // no e2e statistic named: the mean
}
