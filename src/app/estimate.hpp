#pragma once
// The `estimate` use case (docs/cli.md "estimate"): one deployment of one GPU — its layout
// (core::fit_layout, pinned by flags or the spec's deployment block), the estimate, core::judge's
// verdict at --confidence, the cost at the SLA's load and the assumptions it rests on. Training
// specs get the best training layout for the GPU count. The writers in src/cli format the result.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/bands.hpp"
#include "app/context.hpp"
#include "app/diagnostics.hpp"
#include "app/disagg_deployment.hpp"
#include "app/inputs.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training.hpp"

namespace rightsize::app {

/// The options of one estimate, parsed and typed (0 = choose; -1 concurrency = the spec's).
struct EstimateSettings {
  std::string gpu;            ///< catalog id of the GPU
  bool gpu_from_flag = false; ///< --gpu named it (the spec's deployment block then pins nothing)
  int gpus = 0;               ///< --gpus
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  std::int64_t concurrency = -1; ///< --concurrency; -1 = the spec's
  EngineConfig engine;
  Confidence confidence = Confidence::p90;
  double headroom = -1.0; ///< --headroom: throughput headroom the load is judged with; negative = 0.2
};

/// An estimated deployment and every decision about it.
struct EstimateResult {
  Gpu gpu;
  ResolvedPrice price;
  PreparedModel model;
  std::optional<TrainingEstimate> training; ///< set for a training spec (and nothing below)
  TrainingBands training_bands;             ///< with `training`: its throughput and memory bands
  InferenceWorkload workload;               ///< the spec's, with --concurrency applied
  /// TensorRT-LLM's capacity scheduler policy the estimate assumed (core::capacity_policy_of the
  /// engine profile, --capacity-scheduler-policy applied); none for vLLM and SGLang.
  std::optional<CapacitySchedulerPolicy> capacity_policy;
  Deployment deployment; ///< the layout core::fit_layout chose
  InferenceEstimate estimate;
  Verdict verdict;     ///< core::judge at the request's confidence
  Goodput goodput;     ///< the share of requests within every latency target, at the same confidence
  CostAtLoad at_load;  ///< cost over the SLA's load (core::cost_at_load)
  EstimateBands bands; ///< the estimate's error bands and optimistic-only SLA terms
  std::vector<std::string>
      assumptions; ///< the spec's (less a concurrency one --concurrency replaced), then any GEMM fallback
  std::optional<std::string> gemm_fallback; ///< the dtype fallback the GEMMs took on this GPU, in words
};

/// The spec's workload with --concurrency applied (-1 = keep); outside 1 to 1,000,000 is a usage
/// Error naming --concurrency.
InferenceWorkload with_concurrency(const InferenceWorkload& workload, std::int64_t concurrency);

/// Estimates `request.gpu` for `spec`. Layouts that do not divide are usage Errors naming --gpus / --tp.
EstimateResult run_estimate(const Spec& spec, const LoadedCatalog& catalog, const EstimateSettings& settings);

/// `estimate`'s flags, parsed: what to load and which deployment to estimate.
struct EstimateRequest {
  SpecInputs inputs;
  std::string gpu; ///< --gpu as typed; "" = the spec's deployment.gpu
  /// --gpus, --tp, --pp, --ep, --attention-dp (0 to 65536), --concurrency (checked for inference
  /// specs) and --headroom; the use case sets the GPU's catalog id, the engine and the confidence.
  EstimateSettings settings;
  Deferred<Confidence> confidence; ///< --confidence: a bad value fails inference specs only
};

/// Everything `estimate` loaded and decided: the writers' input.
struct EstimateOutcome {
  Spec spec;
  LoadedCatalog catalog;
  std::string engine_name; ///< the engine profile estimated with
  Confidence confidence = Confidence::p90;
  /// What was estimated: one GPU type's deployment (or training run), or the spec's prefill and
  /// decode pools. Exactly one is held.
  std::variant<EstimateResult, DisaggDeploymentResult> estimated;
  bool feasible = false; ///< a training estimate, or a deployment the verdict finds feasible
};

/// Loads the spec and the catalog of `request` and estimates the deployment on --gpu, else the spec's
/// (its prefill and decode pools when it has them and no --gpu is given).
EstimateOutcome run_estimate(const EstimateRequest& request, Diagnostics& diagnostics);

} // namespace rightsize::app
