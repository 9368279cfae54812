// The accuracy report's closest-worker-counts diagnostic (docs/accuracy.md, bench::closest_workers):
// a row measured at a known xPyD is found again at its own figures, and never lands further from the
// measurement than the worker counts the scorer assumes.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/serving_validation.hpp"
#include "serving_score.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// Llama-3.1-8B bf16 on H100, vLLM, TP1 prefill and decode workers, 1,024 / 256 tokens, 24 clients;
// worker counts not given.
ServingRun llama_disagg_row() {
  ServingRun r;
  r.engine = "vllm";
  r.gpu_id = "H100-SXM";
  r.mode = "disagg";
  r.precision = "bf16";
  r.input_tokens = 1024;
  r.output_tokens = 256;
  r.concurrency = 24;
  return r;
}

double log_error(const ServingPrediction& p, const ServingRun& r) {
  return std::max(std::abs(std::log(p.ttft.value / r.ttft_s)), std::abs(std::log(p.tpot.value / r.tpot_s)));
}

} // namespace

TEST_CASE("closest worker counts find a row measured at a known xPyD", "[bench][disagg]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const Gpu h100 = h100_sxm();
  const Calibration cal;
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  ServingRun row = llama_disagg_row();
  // "Measure" the row as the estimator predicts it at 3P5D, then forget the counts.
  ServingRun known = row;
  known.prefill.workers = 3;
  known.decode.workers = 5;
  const ServingPrediction at_3p5d = predict_serving_disagg(pm, h100, known, cal, engine);
  REQUIRE(at_3p5d.reason.empty());
  row.ttft_s = at_3p5d.ttft.value;
  row.tpot_s = at_3p5d.tpot.value;

  const ServingPrediction closest = bench::closest_workers(pm, h100, row, cal, engine);
  CHECK(closest.ttft.value == Approx(row.ttft_s).epsilon(1e-12));
  CHECK(closest.tpot.value == Approx(row.tpot_s).epsilon(1e-12));
  // The scorer's assumption for rows without counts (1P, D from the KV slots) is one point of the
  // grid, so the closest counts are never further off than it.
  const ServingPrediction assumed = predict_serving_disagg(pm, h100, row, cal, engine);
  CHECK(log_error(closest, row) <= log_error(assumed, row));
  CHECK(log_error(assumed, row) > 0.0);
}
