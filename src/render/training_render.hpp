#pragma once
// Rendering of training estimates (estimate) and training recommendations (recommend).
#include <string>

#include <nlohmann/json.hpp>

#include "render/render.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::cli {

/// The estimate document for a training run: model, deployment, memory (with gradients and
/// optimizer), training {layout, step_time_s, tokens_per_s, ...}, cost {usd_per_hour, usd_total} and
/// the instances billed under `price` (instances_json).
nlohmann::json training_json(const PreparedModel& model, const std::string& gpu_id, const GpuPrice& price,
                             const TrainingEstimate& estimate, bool price_known);

/// Adds `*_low` / `*_high` siblings for tokens/s, memory, step time, time to train and cost, as the
/// use case computed them (app::training_bands).
void add_training_bands(nlohmann::json& doc, const app::TrainingBands& bands);

/// One run of a training search or check: training_json with its bands, rank, meets_sla, reasons and
/// reject_reason.
nlohmann::json training_candidate_json(const SearchInputs& in, const TrainingCandidate& c,
                                       const app::TrainingBands& bands);

/// A training run's goals: "finish within 720 h, cost at most $2e+06"; empty without any.
std::string training_goals_text(const Sla& sla);

/// A duration for people: "12.5 min", "30.4 h", "18.6 days".
std::string format_hours(double seconds);

/// Human-readable training estimate.
void print_training_table(const Spec& spec, const PreparedModel& model, const Gpu& gpu,
                          const TrainingEstimate& estimate, const ResolvedPrice& price);

/// "needs 151.2 GB per GPU, has 72.0 GB usable", "takes 812 h > deadline 720 h", "costs $1.2M > budget $1M".
std::string describe_training_rejection(const TrainingCandidate& candidate);

/// "TP8·PP2·DP4 ZeRO-1 mb1 selective".
std::string training_layout_label(const TrainingLayout& layout);

} // namespace rightsize::cli
