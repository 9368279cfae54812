#pragma once
// The cost of confidence (docs/cli.md "recommend": the `confidence:` line; methodology "Confidence"):
// `recommend` judges every SLA term at the pessimistic end of its error band (--confidence p90); beside
// that winner it states the winner of the same search judged at the point estimate (p50) and what the
// difference costs per hour, so the price of the band is visible and a reason to calibrate.
#include <cstddef>
#include <optional>

#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"

namespace rightsize::app {

/// Hourly costs within this fraction of the point sizing's count as equal: "the band costs nothing
/// here" (check's over-provisioning test uses the same 0.5 %).
inline constexpr double k_confidence_equal_cost_fraction = 0.005;

/// One search's winner as the confidence line names it.
struct ConfidenceSizing {
  std::size_t gpu_index = 0;       ///< into the searched GPUs (SearchInputs::gpus)
  std::size_t precision_index = 0; ///< into the searched precisions
  Deployment layout;               ///< one replica
  int replicas = 0;
  int total_gpus = 0;        ///< replicas × GPUs per replica
  double usd_per_hour = 0.0; ///< the GPUs billed, per hour
  bool price_known = false;
};

/// The judged winner beside the point estimate's (both from one candidate generation: the same
/// GPUs, precisions, layouts, SLA and ranking, only the confidence differs).
struct CostOfConfidence {
  Confidence confidence = Confidence::p90; ///< the end of the band the judged sizing holds at
  std::optional<ConfidenceSizing> judged;  ///< the recommendation's winner; none when nothing meets it
  std::optional<ConfidenceSizing> point;   ///< the winner when the point estimate (p50) is judged
  /// The point search's best candidate of the judged winner's GPU type, when the point winner is of
  /// another type (like with like); none otherwise.
  std::optional<ConfidenceSizing> point_same_gpu;
  /// The runs of a --calibration overlay the judged winner's GPU (else the point winner's) takes its
  /// bands from (core::user_band_runs); 0 = the shipped bands, which calibrating would narrow.
  int user_band_runs = 0;
  /// The runs of the overlay stack on that GPU (0 = none): fewer than k_min_band_runs fit its factors
  /// but give no band, so the line asks for more runs rather than for a calibration.
  int overlay_runs = 0;
  /// judged − point $/h, and that over the point's $/h; none unless both have a known price.
  std::optional<double> extra_usd_per_hour;
  std::optional<double> extra_fraction;
  /// Both priced and the judged sizing costs at most k_confidence_equal_cost_fraction more per hour.
  [[nodiscard]] bool costs_nothing() const {
    return extra_fraction && *extra_fraction <= k_confidence_equal_cost_fraction;
  }
  /// The point winner is another GPU type than the judged one.
  [[nodiscard]] bool other_gpu() const { return judged && point && judged->gpu_index != point->gpu_index; }
};

/// The cost of confidence from two searches' passing candidates in rank order: `judged` at
/// `confidence`, `point` at p50. Arithmetic only: extra = judged $/h − point $/h, fraction = extra ÷
/// point $/h (64 × $4.32 = $276.48 vs 48 × $4.32 = $207.36: $69.12/h, +33 %).
CostOfConfidence cost_of_confidence(const Recommendation& judged, const Recommendation& point,
                                    Confidence confidence);

/// Whether `recommend` states the cost of confidence: a cost ranking (cost_per_token,
/// cost_per_request) judged at p90. --confidence p50 judges the point already; the latency, GPU and
/// energy rankings do not pick by cost, so a $/h difference is not what their band costs.
bool states_cost_of_confidence(Confidence confidence, RankBy rank_by);

} // namespace rightsize::app
