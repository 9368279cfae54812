// Power and energy (core energy.hpp, methodology §9) against hand-computed examples.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/energy.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;

TEST_CASE("gpu_power_watts: linear between the low-load and full-load anchors", "[energy]") {
  const PowerModel m;
  // H100-SXM, 700 W TDP: load 0 -> 300 W, load 1 -> 600 W (the ML.ENERGY anchors themselves).
  CHECK(gpu_power_watts(700.0, 0.0, m) == Approx(300.0));
  CHECK(gpu_power_watts(700.0, 1.0, m) == Approx(600.0));
  // Load 0.5: 700 · (300/700 + (600/700 − 300/700) · 0.5) = 300 + 150 = 450 W.
  CHECK(gpu_power_watts(700.0, 0.5, m) == Approx(450.0));
  // Load is clamped to [0, 1]; an unknown TDP gives 0 W.
  CHECK(gpu_power_watts(700.0, 3.0, m) == Approx(600.0));
  CHECK(gpu_power_watts(0.0, 0.5, m) == 0.0);
}

TEST_CASE("candidate_energy: power at the SLA load and joules per served token", "[energy]") {
  // 2 replicas × TP2 = 4 H100s serving up to 10 req/s and 2,560 output tokens/s; SLA peak 8 req/s.
  Candidate c;
  c.layout.tp = 2;
  c.replicas = 2;
  c.estimate.requests_per_s = 10.0;
  c.estimate.output_tokens_per_s = 2560.0;
  Sla sla;
  sla.requests_per_s = 8.0;
  const CandidateEnergy e = candidate_energy(c, test::h100_sxm(), sla, PowerModel{});
  // load 8/10 = 0.8; per GPU 300 + 300 · 0.8 = 540 W; 4 GPUs = 2,160 W.
  CHECK(e.load == Approx(0.8));
  CHECK(e.power_watts == Approx(2160.0));
  // served 2,560 · 0.8 = 2,048 tok/s; 2,160 W / 2,048 tok/s = 1.0547 J/token.
  CHECK(e.served_output_tokens_per_s == Approx(2048.0));
  CHECK(e.joules_per_output_token == Approx(2160.0 / 2048.0));
  // No load stated: the deployment runs at capacity (load 1): 4 × 600 W / 2,560 tok/s = 0.9375 J.
  const CandidateEnergy full = candidate_energy(c, test::h100_sxm(), Sla{}, PowerModel{});
  CHECK(full.power_watts == Approx(2400.0));
  CHECK(full.joules_per_output_token == Approx(0.9375));
}

TEST_CASE("energy_cost: kWh, dollars and CO2e per 1M output tokens", "[energy]") {
  // 1 J/token × 1e6 tokens × PUE 1.3 / 3.6e6 J/kWh = 0.36111 kWh; × $0.10 = $0.036111;
  // × 400 g/kWh = 144.44 g.
  const EnergyCost c = energy_cost(1.0, 1.3, 0.10, 400.0);
  CHECK(c.kwh_per_million_tokens == Approx(1.3 / 3.6));
  CHECK(c.usd_per_million_tokens == Approx(0.13 / 3.6));
  CHECK(c.g_co2e_per_million_tokens == Approx(520.0 / 3.6));
}

TEST_CASE("meets_power_cap: no cap passes, unknown power fails a cap", "[energy]") {
  CHECK(meets_power_cap(5000.0, 0.0));
  CHECK(meets_power_cap(2000.0, 2.0));
  CHECK_FALSE(meets_power_cap(2000.1, 2.0));
  CHECK_FALSE(meets_power_cap(0.0, 2.0));
}

TEST_CASE("the search rejects candidates over the power cap with reason power", "[energy]") {
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  Sla sla;
  sla.requests_per_s = 5.0;
  SearchPolicy policy;
  Deployment one;
  const Candidate free = evaluate_candidate(pm, w, sla, test::h100_sxm(), one, 3.0, policy);
  REQUIRE(free.meets_sla);
  REQUIRE(free.power_watts > 0.0);
  policy.max_power_kw = free.power_watts / 1e3 * 0.99;
  const Candidate capped = evaluate_candidate(pm, w, sla, test::h100_sxm(), one, 3.0, policy);
  CHECK_FALSE(capped.meets_sla);
  CHECK(capped.rejection.term == Term::power);
  CHECK(capped.rejection.value == Approx(free.power_watts / 1e3));
}

TEST_CASE("check and recommend give the same power verdict for the same deployment", "[energy]") {
  // recommend's candidates, each judged again as check judges a given deployment
  // (core::judge_deployment): the same power draw, and the same pass or power rejection.
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  const InferenceWorkload w = test::chat_workload();
  Sla sla;
  sla.ttft_ms = 1000.0;
  sla.tpot_ms = 50.0;
  sla.requests_per_s = 20.0;
  SearchPolicy policy;
  const std::vector<Gpu> gpus{test::h100_sxm(), test::l40s(), test::a100_80gb_sxm()};
  const std::vector<double> prices{3.0, 1.0, 2.0};
  const Recommendation free = recommend(std::span<const PreparedModel>(&pm, 1), w, sla, gpus, prices, policy);
  REQUIRE(free.candidates.size() >= 2);
  // A cap between the two cheapest candidates' draws: one passes it, the other does not.
  const double low_w = std::min(free.candidates[0].power_watts, free.candidates[1].power_watts);
  const double high_w = std::max(free.candidates[0].power_watts, free.candidates[1].power_watts);
  REQUIRE(low_w < high_w);
  policy.max_power_kw = (low_w + high_w) / 2.0 / 1e3;
  const Recommendation capped =
      recommend(std::span<const PreparedModel>(&pm, 1), w, sla, gpus, prices, policy);
  int passed = 0;
  int rejected_on_power = 0;
  auto same_verdict = [&](const Candidate& r) {
    Deployment whole = r.layout;
    whole.gpus = r.total_gpus();
    const Candidate c =
        judge_deployment(pm, w, sla, gpus[r.gpu_index], whole, GpuPrice{prices[r.gpu_index]}, policy);
    CHECK(c.replicas == r.replicas);
    CHECK(c.power_watts == Approx(r.power_watts).epsilon(1e-9));
    CHECK(c.meets_sla == r.meets_sla);
    CHECK(c.rejection.term == r.rejection.term);
    passed += c.meets_sla ? 1 : 0;
    rejected_on_power += c.rejection.term == Term::power ? 1 : 0;
  };
  for (const Candidate& r : capped.candidates)
    same_verdict(r);
  for (const Candidate& r : capped.rejected) {
    if (r.rejection.term == Term::power) same_verdict(r);
  }
  CHECK(passed > 0);
  CHECK(rejected_on_power > 0);
}
