#include "app/cost_of_confidence.hpp"

#include <algorithm>

namespace rightsize::app {
namespace {

ConfidenceSizing confidence_sizing_of(const Candidate& c) {
  ConfidenceSizing s;
  s.gpu_index = c.gpu_index;
  s.precision_index = c.precision_index;
  s.layout = c.layout;
  s.replicas = c.replicas;
  s.total_gpus = c.total_gpus();
  s.usd_per_hour = c.estimate.usd_per_hour;
  s.price_known = c.price_known;
  return s;
}

} // namespace

CostOfConfidence cost_of_confidence(const Recommendation& judged, const Recommendation& point,
                                    Confidence confidence) {
  CostOfConfidence out;
  out.confidence = confidence;
  if (!judged.candidates.empty()) out.judged = confidence_sizing_of(judged.candidates.front());
  if (!point.candidates.empty()) out.point = confidence_sizing_of(point.candidates.front());
  if (out.other_gpu()) {
    const auto same = std::find_if(point.candidates.begin(), point.candidates.end(),
                                   [&](const Candidate& c) { return c.gpu_index == out.judged->gpu_index; });
    if (same != point.candidates.end()) out.point_same_gpu = confidence_sizing_of(*same);
  }
  if (out.judged && out.point && out.judged->price_known && out.point->price_known &&
      out.point->usd_per_hour > 0.0) {
    out.extra_usd_per_hour = out.judged->usd_per_hour - out.point->usd_per_hour;
    out.extra_fraction = *out.extra_usd_per_hour / out.point->usd_per_hour;
  }
  return out;
}

bool states_cost_of_confidence(Confidence confidence, RankBy rank_by) {
  return confidence == Confidence::p90 &&
         (rank_by == RankBy::cost_per_token || rank_by == RankBy::cost_per_request);
}

} // namespace rightsize::app
