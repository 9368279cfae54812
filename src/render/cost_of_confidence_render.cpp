#include "render/cost_of_confidence_render.hpp"

#include <fmt/format.h>

#include "render/recommend_render.hpp"
#include "render/render.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::cli {
namespace {

// "16 × H100-SXM, $69.12/h" (the GPUs billed per hour; "no price" when the catalog has none);
// "4 × L40S fp8, $6.00/h" when several precisions were searched.
std::string confidence_sizing_text(const SearchInputs& in, const app::ConfidenceSizing& s) {
  // With --precisions the two winners may differ in precision too: name it, as the table does.
  const std::string precision =
      in.precisions.size() > 1 ? " " + precision_name(in, in.precisions[s.precision_index]) : "";
  const std::string price = s.price_known ? format_usd(s.usd_per_hour) + "/h" : std::string("no price");
  return fmt::format("{} × {}{}, {}", s.total_gpus, in.gpus[s.gpu_index].id, precision, price);
}

nlohmann::json confidence_sizing_json(const SearchInputs& in, const std::optional<app::ConfidenceSizing>& s) {
  if (!s) return nullptr;
  return {{"gpus", s->total_gpus},
          {"gpu", in.gpus[s->gpu_index].id},
          {"layout", layout_label(s->layout)},
          {"replicas", s->replicas},
          {"precision", precision_name(in, in.precisions[s->precision_index])},
          {"usd_per_hour", s->price_known ? nlohmann::json(round_sig(s->usd_per_hour)) : nlohmann::json()}};
}

nlohmann::json optional_number_json(const std::optional<double>& value) {
  return value ? nlohmann::json(round_sig(*value)) : nlohmann::json();
}

// What narrows the band: calibrating, or nothing more when it is the user's runs' already.
std::string narrowing_text(const app::CostOfConfidence& cost) {
  if (cost.user_band_runs > 0)
    return fmt::format("the band is your {} runs' (--calibration)", cost.user_band_runs);
  if (cost.overlay_runs > 0) {
    // Too few runs, or (rarely) too few of them measuring each figure: the band needs k_min_band_runs.
    return fmt::format("your overlay's {} run{} set the factors but no band: {} or more {}narrow it "
                       "(docs/calibration.md)",
                       cost.overlay_runs, cost.overlay_runs == 1 ? "" : "s", k_min_band_runs,
                       cost.overlay_runs < k_min_band_runs ? "" : "measuring TTFT and TPOT ");
  }
  return "calibrate on your own runs to narrow it (docs/calibration.md)";
}

// Nothing meets the requirements at the judged end; the point estimate's winner is what would.
std::string point_only_line(const SearchInputs& in, const app::CostOfConfidence& cost) {
  const app::ConfidenceSizing& p = *cost.point;
  const std::string precision =
      in.precisions.size() > 1 ? " " + precision_name(in, in.precisions[p.precision_index]) : "";
  const std::string price = p.price_known ? "for " + format_usd(p.usd_per_hour) + "/h" : "unpriced";
  return fmt::format(
      "confidence: nothing meets the requirements at {}; at the point estimate (p50) {} × {}{} "
      "({}, {} replica{}) would, {}; {}, or judge the point with --confidence p50",
      to_string(cost.confidence), p.total_gpus, in.gpus[p.gpu_index].id, precision, layout_label(p.layout),
      p.replicas, p.replicas == 1 ? "" : "s", price, narrowing_text(cost));
}

} // namespace

std::string cost_of_confidence_line(const SearchInputs& in, const app::CostOfConfidence& cost) {
  if (!cost.point) return "";
  if (!cost.judged) return point_only_line(in, cost);
  const app::ConfidenceSizing& j = *cost.judged;
  const app::ConfidenceSizing& p = *cost.point;
  const char* level = to_string(cost.confidence);
  if (cost.costs_nothing() && j.gpu_index == p.gpu_index && j.total_gpus == p.total_gpus) {
    return fmt::format(
        "confidence: {} and the point estimate (p50) both size {}: the band costs nothing here", level,
        confidence_sizing_text(in, j));
  }
  std::string line = fmt::format("confidence: {} sizing {}; at the point estimate (p50) {}", level,
                                 confidence_sizing_text(in, j), confidence_sizing_text(in, p));
  if (cost.other_gpu()) {
    line += cost.point_same_gpu
                ? fmt::format(" (another GPU type; at p50 on {}: {})", in.gpus[j.gpu_index].id,
                              confidence_sizing_text(in, *cost.point_same_gpu))
                : std::string(" (another GPU type)");
  }
  if (cost.costs_nothing()) return line + ": the band costs nothing here";
  if (cost.extra_usd_per_hour) {
    line += fmt::format(": the band costs {}/h (+{:.0f} %)", format_usd(*cost.extra_usd_per_hour),
                        *cost.extra_fraction * 100.0);
  }
  return line + "; " + narrowing_text(cost);
}

nlohmann::json cost_of_confidence_json(const SearchInputs& in,
                                       const std::optional<app::CostOfConfidence>& cost) {
  if (!cost) return nullptr;
  return {{"confidence", to_string(cost->confidence)},
          {"judged", confidence_sizing_json(in, cost->judged)},
          {"point", confidence_sizing_json(in, cost->point)},
          {"point_same_gpu", confidence_sizing_json(in, cost->point_same_gpu)},
          {"extra_usd_per_hour", optional_number_json(cost->extra_usd_per_hour)},
          {"extra_fraction", optional_number_json(cost->extra_fraction)},
          {"band_from_user_runs", cost->user_band_runs},
          {"costs_nothing", cost->costs_nothing()}};
}

} // namespace rightsize::cli
