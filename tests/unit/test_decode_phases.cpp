// A decode step runs its GEMMs and its attention kernels one after the other, each at its own
// roofline (methodology §3 "Decode round"): hand-computed for Llama-3.1-8B on an H100.
#include <algorithm>

#include <catch2/catch.hpp>

#include "core/estimate/inference_detail.hpp"
#include "fixtures.hpp"

using namespace rightsize;

TEST_CASE("decode round: GEMMs and attention at their own rooflines, by hand", "[core][estimate]") {
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  Gpu gpu = test::h100_sxm();
  gpu.efficiency.decode_bandwidth = 0.8;
  gpu.efficiency.prefill_compute = 0.6;
  gpu.efficiency.decode_sequence_layer_s = 0.0;
  InferenceWorkload w;
  w.concurrency = 512;
  const EngineConfig engine;
  InferenceEstimate est;
  const detail::EstimateInputs in{pm, w, gpu, Deployment{}, engine, gpu.efficiency, 1.0};
  const detail::Setup s = detail::make_setup(in, est);
  const detail::PhaseTime t = detail::decode_time(s, 512.0, 1000.0);
  // KV: 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 bytes = 131,072 bytes a token; 512 sequences
  // at 1,000 tokens = 67.11 GB at 3,350 GB/s × 0.8 = 25.04 ms.
  CHECK(t.attention_memory_s == Approx(512.0 * 1000.0 * 131072.0 / (3350e9 * 0.8)).epsilon(1e-6));
  CHECK(t.attention_memory_s == Approx(0.02504).epsilon(1e-3));
  // Scores and values: 4 × 32 heads × 128 = 16,384 FLOPs a pair, × 32 layers × 1,000 × 512 =
  // 2.684e11 FLOPs at 989.5 TFLOPS × 0.6 = 0.452 ms.
  CHECK(t.attention_compute_s == Approx(16384.0 * 32.0 * 1000.0 * 512.0 / (989.5e12 * 0.6)).epsilon(1e-6));
  // The GEMMs are compute-bound at 512 rows (their FLOPs take longer than the weights' read), the
  // attention memory-bound: the step is the sum, not one roofline over both, so the KV read is not
  // hidden under the GEMMs' FLOPs.
  REQUIRE(t.gemm_compute_s() > t.gemm_memory_s());
  REQUIRE(t.attention_memory_s > t.attention_compute_s);
  const double fixed_s = t.total_s - t.gemm_compute_s() - t.attention_memory_s;
  CHECK(fixed_s == Approx(t.routing_s + t.comm_s + detail::layer_overhead_s(s) + engine.step_overhead_s));
  // One roofline over both would have given max(memory, compute) = weights + KV read: the sum is
  // longer by what the GEMMs' FLOPs take beyond the weights' read (12.9 − 5.6 ≈ 7.3 ms).
  CHECK(t.total_s - fixed_s - std::max(t.memory_s, t.compute_s) ==
        Approx(t.gemm_compute_s() - t.gemm_memory_s()).epsilon(1e-9));
}
