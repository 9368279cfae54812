#pragma once
// The disaggregated deployment of `estimate` and `check` (methodology §3.6): a spec whose
// `deployment` has `prefill` and `decode` pools, resolved against the catalog, estimated by
// core::estimate_disagg and judged by core::judge with each pool's band. The writers in
// src/render/disagg_render.cpp format the result.
#include <string>
#include <vector>

#include "app/context.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// A judged disaggregated deployment. Its pools point into the catalog it was resolved against.
struct DisaggDeploymentResult {
  DisaggDeployment deployment;
  bool price_known = false; ///< both pools have a price
  InferenceWorkload workload;
  DisaggEstimate estimate;
  Verdict verdict;
  CostAtLoad at_load; ///< cost over the SLA's load (core::cost_at_load), as recommend --disagg ranks by
  std::vector<std::string> assumptions; ///< the spec's, less a concurrency one a fixed concurrency replaced
};

/// Resolves `spec.disaggregated` (unknown GPUs and TP degrees not dividing the heads are input Errors
/// with the spec's pointer), estimates it under `workload` and judges it at `confidence`.
DisaggDeploymentResult run_disagg_deployment(const Spec& spec, const LoadedCatalog& catalog,
                                             const EngineConfig& engine, const InferenceWorkload& workload,
                                             Confidence confidence, double headroom = -1.0);

} // namespace rightsize::app
