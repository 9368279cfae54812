// The GEMM shape factors a step's compute time divides by (methodology §4.3, "grouped GEMM"):
// hand-computed from M/(M + M½), the routed experts' rows and width, and the expert groups' load.
#include <catch2/catch.hpp>

#include "core/estimate/inference_detail.hpp"
#include "fixtures.hpp"

using namespace rightsize;

namespace {

struct Made {
  PreparedModel pm;
  Gpu gpu = test::h100_sxm();
  InferenceWorkload w;
  Deployment dep;
  EngineConfig engine; // M½ = N½ = 128
  InferenceEstimate est;
  detail::Setup s{};
  Made(const ModelSpec& m, int tp, int ep) : pm(prepare_model(m, Precision{})) {
    w.concurrency = 1;
    dep.gpus = dep.tp = tp;
    dep.ep = ep;
    const detail::EstimateInputs in{pm, w, gpu, dep, engine, gpu.efficiency, 1.0};
    s = detail::make_setup(in, est);
  }
};

} // namespace

TEST_CASE("gemm_shape: thin dense GEMMs run at M/(M + M½)") {
  const Made m(test::llama31_8b(), 1, 1);
  CHECK(detail::gemm_shape(m.s, 128.0, false).dense == Approx(0.5));       // 128 / 256
  CHECK(detail::gemm_shape(m.s, 384.0, false).dense == Approx(0.75));      // 384 / 512
  CHECK(detail::gemm_shape(m.s, 384.0, false).expert == Approx(0.75));     // no experts: the same
  CHECK(detail::gemm_shape(m.s, 1.0, false).dense == Approx(1.0 / 129.0)); // one row
}

TEST_CASE("gemm_shape: routed experts' rows, width and expert groups") {
  // Mixtral-8x7B, 64 rows, one GPU: 64·2 = 128 routed rows over 8 experts = 16 rows each,
  // 16/144; each expert 14,336 wide, 14336/14464; one expert group, no imbalance.
  const Made one(test::mixtral_8x7b(), 1, 1);
  const detail::GemmShape g = detail::gemm_shape(one.s, 64.0, true);
  CHECK(g.dense == Approx(64.0 / 192.0));
  CHECK(g.expert == Approx(16.0 / 144.0 * 14336.0 / 14464.0));
  // TP2 without EP splits each expert's width: 7,168 per GPU, 7168/7296; still one group.
  const Made tp2(test::mixtral_8x7b(), 2, 1);
  CHECK(detail::gemm_shape(tp2.s, 64.0, true).expert == Approx(16.0 / 144.0 * 7168.0 / 7296.0));
  // TP2 with EP2: whole experts, two groups of 64 routed rows each: 1 + sqrt(2·ln 2 / 64).
  const Made ep2(test::mixtral_8x7b(), 2, 2);
  CHECK(detail::gemm_shape(ep2.s, 64.0, true).expert ==
        Approx(16.0 / 144.0 * 14336.0 / 14464.0 / (1.0 + std::sqrt(2.0 * std::log(2.0) / 64.0))));
}
