#pragma once
// A small disaggregated search for unit tests: Llama-3.1-8B over H100 and A100 with vLLM's shipped
// profile, 4,096 / 512 tokens at 5 requests/s, P and D up to 2.
#include <vector>

#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "rightsize/disagg_search.hpp"

namespace rightsize::test {

struct DisaggSearchInputs {
  std::vector<Gpu> gpus = {h100_sxm(), a100_80gb_sxm()};
  std::vector<GpuPrice> prices = {3.0, 2.0};
  std::vector<PreparedModel> models = {prepare_model(llama31_8b(), Precision{})};
  InferenceWorkload workload;
  Sla sla;
  SearchPolicy policy;
  DisaggGrid grid;
};

/// The search's inputs at TPOT ≤ `tpot_ms` and TTFT ≤ `ttft_ms`.
inline DisaggSearchInputs small_disagg_search(double tpot_ms, double ttft_ms) {
  DisaggSearchInputs in;
  in.workload.input_tokens = 4096;
  in.workload.output_tokens = 512;
  in.sla.tpot_ms = tpot_ms;
  in.sla.ttft_ms = ttft_ms;
  in.sla.requests_per_s = 5.0;
  in.policy.engine = shipped_engine(EngineKind::vllm);
  in.grid.max_prefill_workers = 2;
  in.grid.max_decode_workers = 2;
  return in;
}

/// recommend_disagg over `in`, with `grid` (and `parallel` when given).
inline DisaggRecommendation run_search(const DisaggSearchInputs& in, const DisaggGrid& grid,
                                       const ParallelFor* parallel = nullptr) {
  return recommend_disagg(in.models, in.workload, in.sla, in.gpus, in.prices, in.policy, grid, parallel);
}

} // namespace rightsize::test
