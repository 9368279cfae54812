// The check use case agrees with recommend (issue 43 item 4): recommend's winner, checked as it
// prints it ("16xH100-SXM:TP4") or by its GPU count alone, passes; over-provisioning is judged within
// the deployment's GPU type; recommend's layout labels parse back into the same pins.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "app/check.hpp"
#include "app/recommend.hpp"
#include "app_fixtures.hpp"
#include "cli/flag_values.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {
namespace {

// Says nothing: the warnings of a run (old prices, overlays) are not what these tests judge.
using QuietDiagnostics = app::SilentDiagnostics;

app::SpecInputs example_inputs(const std::string& path) {
  app::SpecInputs inputs;
  inputs.spec = path;
  inputs.environment.data_dir = test::k_data_dir;
  // The goldens' date (tests/cli/run_case.sh): no shipped price may be dated after it.
  inputs.environment.today = app::Deferred<std::int64_t>(*parse_iso_date("2026-11-22"));
  return inputs;
}

app::CheckOutcome check_of(const std::string& path, const std::string& deployment) {
  app::CheckRequest request;
  request.inputs = example_inputs(path);
  request.deployment = cli::parse_deployment(deployment);
  QuietDiagnostics quiet;
  return app::run_check(request, quiet);
}

bool same_layout(const Deployment& a, const Deployment& b) {
  return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep && a.attention_dp == b.attention_dp;
}

std::vector<std::string> example_specs() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(test::k_data_dir + "/examples")) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("check passes recommend's winner of every shipped example, by layout and by count",
          "[app][check]") {
  // Skipped, and said so: a spec nothing meets (recommend has no winner to check). A disaggregated
  // spec's aggregated winner is checkable with --deployment and is not skipped. A training winner is
  // checked by its GPU count, pinned degrees and count alone (issue 43 item 6).
  std::size_t checked = 0;
  std::size_t trained = 0;
  for (const std::string& path : example_specs()) {
    CAPTURE(path);
    app::RecommendRequest rec;
    rec.inputs = example_inputs(path);
    QuietDiagnostics quiet;
    const app::RecommendOutcome recommended = app::run_recommend(rec, quiet);
    if (recommended.spec.mode == WorkloadMode::training) {
      const auto& runs = recommended.training()->recommendation.candidates;
      if (runs.empty()) continue;
      const TrainingEstimate& w = runs.front().estimate;
      const std::string gpu = recommended.in.gpus[runs.front().gpu_index].id;
      const std::string count = fmt::format("{}x{}", w.gpus, gpu);
      CAPTURE(count);
      const app::CheckOutcome counted = check_of(path, count);
      REQUIRE(counted.training());
      CHECK(counted.pass);
      CHECK(counted.training()->current.estimate.layout.tp == w.layout.tp);
      CHECK(counted.training()->current.estimate.layout.pp == w.layout.pp);
      CHECK(counted.training()->current.estimate.usd_total == Approx(w.usd_total));
      const app::CheckOutcome pinned =
          check_of(path, fmt::format("{}:TP{}{}", count, w.layout.tp,
                                     w.layout.pp > 1 ? fmt::format("·PP{}", w.layout.pp) : std::string()));
      REQUIRE(pinned.training());
      CHECK(pinned.training()->pinned);
      CHECK(pinned.pass);
      ++trained;
      continue;
    }
    const auto& ranked = recommended.inference()->recommendation.candidates;
    if (ranked.empty()) {
      CHECK(recommended.none); // impossible-sla.json: nothing to check
      continue;
    }
    const Candidate& w = ranked.front();
    const std::string gpu = recommended.in.gpus[w.gpu_index].id;
    // As recommend prints it: "16xH100-SXM:TP4", "8xB300:ADP8 EP8".
    const std::string as_printed = fmt::format("{}x{}:{}", w.total_gpus(), gpu, app::layout_label(w.layout));
    CAPTURE(as_printed);
    const app::CheckOutcome pinned = check_of(path, as_printed);
    REQUIRE(pinned.aggregated());
    CHECK(pinned.pass);
    CHECK(!pinned.aggregated()->layout_basis); // the degrees were pinned
    CHECK(same_layout(pinned.aggregated()->layout, w.layout));
    // By its GPU count alone: recommend's layout again, chosen by recommend's search.
    const app::CheckOutcome counted = check_of(path, fmt::format("{}x{}", w.total_gpus(), gpu));
    REQUIRE(counted.aggregated());
    CHECK(counted.pass);
    CHECK(counted.aggregated()->layout_basis == CountLayoutBasis::best_ranked);
    CHECK(same_layout(counted.aggregated()->layout, w.layout));
    ++checked;
  }
  CHECK(checked >= 10); // every inference example with a winner (10 when this was written)
  CHECK(trained >= 4);  // every training example (lora, two FSDP, two pretrain when this was written)
}

TEST_CASE("check of a training run: a deadline miss names what would pass on the GPU type", "[app][check]") {
  // pretrain-70b on 16 × H100-SXM: 70B with Adam states does not fit 16 × 80 GB; recommend's search on
  // H100-SXM passes a larger count, which check names; exit code 1 comes from pass == false.
  const app::CheckOutcome small = check_of(test::k_data_dir + "/examples/pretrain-70b.json", "16xH100-SXM");
  REQUIRE(small.training());
  CHECK_FALSE(small.pass);
  CHECK(small.training()->current.rejection.term == Term::memory);
  REQUIRE(small.training()->would_pass);
  CHECK(small.training()->would_pass->estimate.gpus > 16);
  CHECK(small.training()->would_pass->meets);
  // --attention-dp is a serving layout: refused for a training run, naming the flag.
  app::CheckRequest request;
  request.inputs = example_inputs(test::k_data_dir + "/examples/pretrain-70b.json");
  request.deployment = cli::parse_deployment("64xH100-SXM");
  request.attention_dp = 2;
  QuietDiagnostics quiet;
  CHECK_THROWS_WITH(app::run_check(request, quiet), Catch::Contains("--attention-dp"));
}

TEST_CASE("check: over-provisioned within the GPU type; a cheaper GPU type is a note", "[app][check]") {
  const std::string spec = test::k_data_dir + "/examples/chat-70b-fp8.json";
  // recommend --gpu H100-SXM picks 16 × H100-SXM (TP4); B200 is cheaper but another type.
  const app::CheckOutcome right = check_of(spec, "16xH100-SXM:TP4");
  REQUIRE(right.aggregated());
  const app::CheckResult& r = *right.aggregated();
  CHECK(r.meets);
  CHECK(r.pass);
  CHECK(!r.over_provisioned);
  CHECK(!r.cheaper_same_gpu);
  REQUIRE(r.cheaper);
  CHECK(r.cheaper_other_gpu);
  CHECK(r.compared_in.gpus[r.cheaper->gpu_index].id != "H100-SXM");
  CHECK(r.saving > 0.2); // more than --max-overspend, and still no failure

  // Four times the GPUs: recommend's layout on them, over-provisioned against 16 of the same type.
  const app::CheckOutcome big = check_of(spec, "64xH100-SXM");
  REQUIRE(big.aggregated());
  const app::CheckResult& b = *big.aggregated();
  CHECK(b.layout_basis == CountLayoutBasis::best_ranked);
  CHECK(b.layout.tp == 4);
  CHECK(b.meets);
  CHECK(b.over_provisioned);
  CHECK(!b.pass);
  REQUIRE(b.cheaper_same_gpu);
  CHECK(b.cheaper_same_gpu->total_gpus() == 16);
  CHECK(b.same_gpu_saving > 0.7);

  // Too few GPUs: recommend's layout on them misses, and would_pass names recommend's size.
  const app::CheckOutcome small = check_of(spec, "8xH100-SXM");
  REQUIRE(small.aggregated());
  CHECK(small.aggregated()->layout_basis == CountLayoutBasis::best_ranked_short);
  CHECK(!small.aggregated()->meets);
  REQUIRE(small.aggregated()->would_pass);
  CHECK(small.aggregated()->would_pass->total_gpus() == 16);
}

TEST_CASE("check's deployment text takes recommend's layout label: each parses back to its pins",
          "[cli][check]") {
  const std::vector<Deployment> layouts = {Deployment{4, 4, 1, 1, 1}, Deployment{8, 4, 2, 1, 1},
                                           Deployment{8, 8, 1, 8, 1}, Deployment{8, 1, 1, 8, 8},
                                           Deployment{8, 2, 1, 8, 4}, Deployment{16, 8, 2, 8, 1}};
  for (const Deployment& d : layouts) {
    const std::string label = app::layout_label(d);
    CAPTURE(label);
    const DeploymentSpec parsed = cli::parse_deployment("16xH100-SXM:" + label);
    CHECK(parsed.gpus == 16);
    CHECK(parsed.gpu == "H100-SXM");
    CHECK(parsed.tp == d.tp);
    CHECK(parsed.pp == d.pp);
    CHECK(std::max(1, parsed.ep) == d.ep);
    CHECK(std::max(1, parsed.attention_dp) == d.attention_dp);
  }
  // Typed forms: "x" between degrees, lower case, spaces.
  const DeploymentSpec typed = cli::parse_deployment("64 x H100-SXM:tp4xpp2");
  CHECK(typed.gpus == 64);
  CHECK(typed.tp == 4);
  CHECK(typed.pp == 2);
  // Without a layout nothing is pinned (check chooses recommend's layout for the count).
  const DeploymentSpec bare = cli::parse_deployment("64xH100-SXM");
  CHECK(bare.tp == 0);
  CHECK(bare.pp == 0);
  for (const char* bad : {"16xH100-SXM:", "16xH100-SXM:TP", "16xH100-SXM:TP4PP", "16xH100-SXM:TP4·TP8",
                          "16xH100-SXM:XP4", "16xH100-SXM:EP8", "16xH100-SXM:TP0", "16xH100-SXM:TP4-PP2"}) {
    CAPTURE(bad);
    try {
      (void)cli::parse_deployment(bad);
      FAIL("parsed");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::usage);
      CHECK(e.source() == "--deployment");
    }
  }
}

} // namespace rightsize
