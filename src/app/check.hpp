#pragma once
// The `check` use case (docs/cli.md "check"), a CI gate: the deployment's layout (its pins kept by
// core::fit_layout, else the layout recommend's search ranks best on its GPU count,
// core::layout_for_count), its verdict (core::judge, load included), the cheapest deployment of the
// same GPU type (over-provisioning, or what would pass when it fails) and the cheapest alternative over
// the compared GPUs (a note when it is another GPU type). The result holds every decision — meets,
// over-provisioned, pass — and the writers in src/render only format it.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/bands.hpp"
#include "app/context.hpp"
#include "app/deploy_artifact.hpp"
#include "app/diagnostics.hpp"
#include "app/disagg_deployment.hpp"
#include "app/inputs.hpp"
#include "app/training_check.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// The settings of one check once the spec and catalog are loaded.
struct CheckSettings {
  DeploymentSpec deployment; ///< the deployment to judge; `gpu` is a catalog id
  bool ep_from_spec = false; ///< its EP is the spec's /deployment/ep (errors name it, not --ep)
  EngineConfig engine;       ///< the engine profile with the command line's overrides
  Confidence confidence = Confidence::p90;
  double max_overspend = 0.2; ///< fail when a cheaper option saves more than this fraction
  double headroom = -1.0; ///< --headroom: over the peak load, for the verdict and the alternatives; < 0 = 0.2
  std::vector<std::string> alternatives;   ///< GPU ids to compare against (empty: spec, else the catalog)
  std::optional<ArtifactRequest> artifact; ///< --emit: plan the checked deployment's artifact
  std::int64_t today_days = 0; ///< days since 1970-01-01: each price's age, for the ranking's price margins
};

/// A checked deployment and every decision about it.
struct CheckResult {
  SearchPolicy policy;
  /// recommend's search over the deployment's GPU type (its limits are the spec's, as recommend's):
  /// the unpinned layout, would_pass and cheaper_same_gpu come from it.
  SearchPolicy same_policy;
  SearchInputs current_in;  ///< the deployment's GPU and the spec's model
  SearchInputs compared_in; ///< the GPUs the overspend test compared against
  Deployment layout;        ///< one replica's layout
  /// How the layout was chosen: none when a degree was pinned (core::fit_layout kept the pins), else
  /// core::layout_for_count's basis for the GPU count.
  std::optional<CountLayoutBasis> layout_basis;
  std::size_t layout_rank = 0;  ///< the same-type search's rank of that layout (0: not one of its)
  bool same_gpu_passes = false; ///< some deployment of the GPU type meets the SLA (the search passes one)
  int gpus = 0;                 ///< the deployment's GPUs
  int replicas = 0;             ///< deployment GPUs ÷ GPUs per replica
  Candidate current;            ///< the deployment as checked (replicas of the chosen layout)
  Verdict verdict;              ///< core::judge on it, load included
  CostAtLoad current_at_load;   ///< its cost over the SLA's load (core::cost_at_load)
  EstimateBands current_bands;  ///< its error bands
  /// The share of its requests within every latency target at the verdict's band end (methodology
  /// §6.1); has_targets false when the SLA sets none or the deployment is not feasible.
  Goodput goodput;
  /// The cheapest alternative that meets everything (of compared_in), when it saves (saving > 0) or
  /// nothing of the deployment's GPU type passes (saving 0).
  std::optional<Candidate> cheaper;
  double saving = 0.0; ///< 1 − cheaper ÷ reference cost over the load served (recommend's rank): the
                       ///< deployment's when it meets the SLA, else would_pass's
  /// Meets the SLA, and `cheaper` is another GPU type: a note, not a failure (--deployment fixes the type).
  bool cheaper_other_gpu = false;
  /// The margin recommend's ranking charged `cheaper`'s price and its newest quote's age (-1:
  /// undated); `cheaper` is cheaper once both it and the deployment are charged theirs (§5.2).
  double cheaper_price_margin = 0.0;
  std::int64_t cheaper_price_age_days = -1;
  /// When it meets the SLA: the cheapest passing deployment of the same GPU type, when it saves.
  std::optional<Candidate> cheaper_same_gpu;
  double same_gpu_saving = 0.0; ///< 1 − cheaper_same_gpu ÷ the deployment's cost over the load served
  std::optional<Candidate> would_pass; ///< when it fails: the cheapest passing deployment of the same GPU
  std::vector<std::string> compared;   ///< GPU ids the overspend test compared against
  bool meets = false;                  ///< the verdict passes
  /// Meets, and a cheaper deployment of the same GPU type saves more than max_overspend, per token
  /// and per hour.
  bool over_provisioned = false;
  bool pass = false;                    ///< meets and not over-provisioned: the gate's answer
  std::optional<ArtifactPlan> artifact; ///< with request.artifact, when it meets the SLA
};

/// Judges `request.deployment` for `spec` (an inference spec with an aggregated deployment). A GPU
/// count that no layout (pinned, or the search's) splits is a usage Error naming --deployment.
CheckResult run_check(const Spec& spec, const LoadedCatalog& catalog, const CheckSettings& settings);

/// `check`'s flags, parsed: what to load and how to judge it.
struct CheckRequest {
  SpecInputs inputs;
  std::optional<DeploymentSpec> deployment; ///< --deployment (its GPU as typed); none = the spec's
  int tp = 0; ///< --tp, --pp, --ep, --attention-dp over the deployment's; 0 = keep
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  /// --confidence, --max-overspend, --headroom, --gpu and --emit; the use case sets the deployment, its
  /// EP's origin and the engine once the spec and catalog are loaded.
  CheckSettings settings;
};

/// The deployment `check` judged, as one of its kinds: an aggregated deployment (replicas of one
/// layout), the spec's prefill and decode pools, or a training run. Exactly one is held.
using CheckedDeployment = std::variant<CheckResult, DisaggDeploymentResult, TrainingCheckResult>;

/// Everything `check` loaded and decided: the writers' input.
struct CheckOutcome {
  Spec spec;
  LoadedCatalog catalog;
  std::string engine_name; ///< the engine profile the deployment was judged with
  Confidence confidence = Confidence::p90;
  double max_overspend = 0.2;
  CheckedDeployment checked; ///< the deployment and every decision about it
  bool pass = false;         ///< the gate's answer
  /// The aggregated deployment's check; null for pools or a training run.
  [[nodiscard]] const CheckResult* aggregated() const { return std::get_if<CheckResult>(&checked); }
  /// The training run's check; null for an inference deployment.
  [[nodiscard]] const TrainingCheckResult* training() const {
    return std::get_if<TrainingCheckResult>(&checked);
  }
};

/// Loads the spec and the catalog of `request` and checks the deployment: --deployment, else the
/// spec's (its prefill and decode pools when it has them). Usage Errors name the flag that cannot
/// apply to the spec (--emit or --attention-dp for a training spec, a layout pin or --emit on pools,
/// no deployment at all).
CheckOutcome run_check(const CheckRequest& request, Diagnostics& diagnostics);

} // namespace rightsize::app
