// Error bands and cautions are decided by the use cases (src/app/bands.hpp): every estimate a result
// returns carries its bands, and the sweep loop (src/app/sweep_loop.hpp) decides which rows a sink
// receives, the passing count and the front.
#include <string>

#include <catch2/catch.hpp>

#include "app/bands.hpp"
#include "app/recommend.hpp"
#include "app/sweep_loop.hpp"
#include "app_fixtures.hpp"
#include "fixtures.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/runs/validation_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {
namespace {

// A sink that keeps the grid index of every row it is handed, in order.
class IndexSink final : public app::RowSink {
public:
  void row(fmt::memory_buffer& out, const app::PointResult& point, bool first) const override {
    fmt::format_to(std::back_inserter(out), "{}{}{}", first ? "" : ",", point.index, point.ok() ? "+" : "-");
  }
  void write(std::string_view rows) override { text.append(rows); }
  std::string text;
};

app::SweepPlan fixture_plan() {
  app::SweepPlan plan;
  for (const char* v : {"workload.concurrency=1..512:x2", "tp=1,2,4"})
    plan.axes.push_back(app::parse_sweep_axis(v, {}));
  plan.models.push_back(prepare_model(test::llama31_8b(), Precision{}));
  plan.gpus = {test::h100_sxm()};
  plan.prices = {4.32};
  plan.fixed.gpu = 0;
  plan.workload.input_tokens = 1024;
  plan.workload.output_tokens = 256;
  plan.sla.tpot_ms = 30.0;
  app::finish_plan(plan);
  return plan;
}

} // namespace

TEST_CASE("recommend results carry each shown row's bands and the winner's cautions", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  for (const bool calibrated : {false, true}) {
    const app::LoadedCatalog catalog = test::priced_catalog(calibrated);
    const app::SearchInputs in = app::search_inputs(spec, catalog, {}, "");
    app::RecommendSettings request;
    request.top = 3;
    const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
    REQUIRE(result.shown.size() == 3);
    REQUIRE(result.shown_bands.size() == result.shown.size());
    REQUIRE(result.winner);
    for (std::size_t i = 0; i < result.shown.size(); ++i) {
      const app::EstimateBands& b = result.shown_bands[i];
      const InferenceEstimate& e = result.shown[i].estimate;
      CHECK(b.calibrated == calibrated);
      CHECK(b.inference.tpot.value == e.tpot_s);
      CHECK(b.memory_per_gpu_bytes.value == e.memory.per_gpu_bytes);
      if (calibrated) {
        // A band around the figure: the shipped calibration has a TPOT entry for every class.
        CHECK(b.inference.tpot.low < e.tpot_s);
        CHECK(b.inference.tpot.high > e.tpot_s);
      } else {
        CHECK(b.inference.tpot.low == e.tpot_s);
        CHECK(b.inference.tpot.high == e.tpot_s);
        CHECK(b.optimistic_only_count == 0);
      }
    }
    // The winner is rank 1: its bands are the first shown row's.
    CHECK(result.winner->bands.inference.ttft.high == result.shown_bands[0].inference.ttft.high);
  }
}

TEST_CASE("the bands' optimistic-only terms are core's at p90 factors", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog(true);
  const app::SearchInputs in = app::search_inputs(spec, catalog, {}, "");
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, app::RecommendSettings{});
  REQUIRE(!result.shown.empty());
  const Candidate& c = result.shown.front();
  const Gpu& gpu = in.gpus[c.gpu_index];
  const ModelSpec& model = in.models[c.precision_index].model;
  Sla sla;
  sla.tpot_ms = c.estimate.tpot_s * 1e3 * 1.01; // met by the point estimate, missed at the band's p90
  const app::EstimateBands b = app::estimate_bands(app::band_source(catalog, gpu, model), c.estimate, sla);
  const BandFactors factors =
      band_factors(&catalog.calibration, Confidence::p90, gpu.id, model_class_of(model), gpu.reach);
  REQUIRE(factors.tpot_high > 1.01);
  std::array<TermCheck, 7> expected{};
  REQUIRE(optimistic_only_terms(c.estimate, sla, factors, expected) == 1);
  REQUIRE(b.optimistic_only_count == 1);
  CHECK(b.optimistic_only[0].term == Term::tpot);
  CHECK(b.optimistic_only[0].value == expected[0].value);
  CHECK(b.optimistic_only[0].value > *sla.tpot_ms);
  // Without a calibration there is no band and no caution.
  const app::EstimateBands none =
      app::estimate_bands(app::BandSource{nullptr, gpu.id, "dense"}, c.estimate, sla);
  CHECK(none.optimistic_only_count == 0);
  CHECK(none.inference.tpot.high == c.estimate.tpot_s);
}

TEST_CASE("the sweep loop hands the sink every row in grid order, or only the front", "[app][sweep]") {
  const app::SweepPlan plan = fixture_plan();
  app::SweepRunOptions options;
  options.x = app::find_metric("inference.tpot_s", plan, "--x");
  options.y = app::find_metric("cost.usd_per_million_output_tokens_at_load", plan, "--y");
  std::string expected;
  std::uint64_t ok = 0;
  app::PointResult p;
  for (std::uint64_t i = 0; i < plan.grid.size(); ++i) {
    app::evaluate_point(plan, i, p);
    expected += fmt::format("{}{}{}", i == 0 ? "" : ",", i, p.ok() ? "+" : "-");
    ok += p.ok() ? 1U : 0U;
  }
  REQUIRE(ok > 2);
  REQUIRE(ok < plan.grid.size()); // the TPOT target fails some points
  for (const int threads : {1, 3}) {
    options.threads = threads;
    options.chunk_points = 4;
    IndexSink sink;
    const app::SweepRunResult result = app::run_sweep(plan, options, sink);
    CHECK(sink.text == expected);
    CHECK(result.total_points == plan.grid.size());
    CHECK(result.written_points == plan.grid.size());
    CHECK(result.ok_points == ok);
  }
  options.pareto = true;
  IndexSink front;
  const app::SweepRunResult result = app::run_sweep(plan, options, front);
  CHECK(result.ok_points == ok);
  REQUIRE(result.written_points >= 1);
  CHECK(result.written_points < ok);
  CHECK(front.text.find('-') == std::string::npos); // only passing points are on the front
}

} // namespace rightsize
