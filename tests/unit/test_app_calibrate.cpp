// The calibrate use case (src/app/calibrate.hpp): runs grouped per GPU x engine, one fit per group,
// and every factor's fitted-or-kept decision held in the result that the writers format.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app/calibrate.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/runs/bench_runs.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {

TEST_CASE("calibrate: runs grouped per GPU x engine, each factor fitted or kept with its reason", "[app]") {
  app::LoadedCatalog loaded;
  loaded.catalog = io::load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const std::vector<io::Preset> presets = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  const std::string fit = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/calibrate/h100-vllm-fit.csv";
  const std::string held = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/calibrate/h100-vllm-holdout.csv";
  app::CalibrationRuns runs;
  app::add_runs(runs, fit, io::load_benchmark_runs(fit, {}, presets), false, loaded.catalog);
  const std::vector<StackRun> held_runs = io::load_benchmark_runs(held, {}, presets);
  app::add_runs(runs, held, held_runs, true, loaded.catalog);
  CHECK(runs.inputs == std::vector<std::string>{fit});
  CHECK(runs.holdout_inputs == std::vector<std::string>{held});
  REQUIRE(runs.stacks.size() == 1);
  const auto& [key, group] = *runs.stacks.begin();
  CHECK(key == std::pair<std::string, std::string>{"H100-SXM", "vllm"});
  CHECK(app::held_out_only_stacks(runs).empty());

  const app::CalibrateResult r = app::run_calibrate(runs, loaded, *parse_iso_date("2026-01-02"));
  CHECK(r.overlay.date == "2026-01-02");
  CHECK(r.overlay.inputs == runs.inputs);
  REQUIRE(r.overlay.stacks.size() == 1);
  REQUIRE(r.stacks.size() == 1);
  const StackFit& s = r.overlay.stacks[0];
  const app::CalibratedStack& c = r.stacks[0];
  CHECK(c.holdout_runs == group.holdout.size());
  CHECK(c.few_fit_runs == (s.runs.size() < 3));
  REQUIRE(c.factors.size() == 5);
  CHECK(std::string(c.factors[0].name) == "decode_bandwidth");
  CHECK(c.factors[0].source == s.fitted.decode_source);
  CHECK(c.factors[0].fitted == s.fitted.efficiency.decode_bandwidth);
  CHECK(c.factors[0].shipped == s.shipped.decode_bandwidth);
  CHECK(c.factors[0].measurements == s.fitted.decode_cases.size());
  CHECK(std::string(c.factors[1].name) == "layer_overhead");
  CHECK(c.factors[1].source == s.fitted.layer_overhead_source);
  CHECK(std::string(c.factors[4].name) == "training_mfu");
  for (const app::CalibratedFactor& f : c.factors)
    CHECK(f.is_fitted == (f.source == "fitted"));
  // Single-GPU serving runs inform no communication factor: kept, no measurement behind it.
  CHECK(std::string(c.factors[3].name) == "communication");
  CHECK_FALSE(c.factors[3].is_fitted);
  CHECK(c.factors[3].measurements == 0);
  CHECK(r.fitted_gpus == std::set<std::string>{"H100-SXM"});
  CHECK(r.gpus_keeping_shipped == loaded.catalog.gpus.size() - 1);

  SECTION("a GPU with only held-out runs is named and fitted nothing") {
    std::vector<StackRun> l40s = {held_runs.front()};
    l40s.front().run.gpu_id = "L40S";
    app::add_runs(runs, held, l40s, true, loaded.catalog);
    CHECK(app::held_out_only_stacks(runs) == std::vector<std::string>{"L40S x vllm"});
    const app::CalibrateResult again = app::run_calibrate(runs, loaded, 0);
    CHECK(again.held_out_only == std::vector<std::string>{"L40S x vllm"});
    CHECK(again.overlay.stacks.size() == 1);
  }
  SECTION("a run on a GPU the catalog lacks is an error naming the file") {
    std::vector<StackRun> unknown = {held_runs.front()};
    unknown.front().run.gpu_id = "H999";
    CHECK_THROWS_WITH(app::add_runs(runs, "x.csv", unknown, false, loaded.catalog),
                      Catch::Contains("unknown GPU \"H999\""));
  }
  SECTION("one GPU on two serving engines is refused: an overlay holds one engine per GPU") {
    std::vector<StackRun> sglang = {held_runs.front()};
    sglang.front().run.engine = "sglang";
    app::add_runs(runs, held, sglang, false, loaded.catalog);
    CHECK_THROWS_WITH(app::run_calibrate(runs, loaded, 0),
                      Catch::Contains("on two engines (sglang and vllm)"));
  }
}

} // namespace rightsize
