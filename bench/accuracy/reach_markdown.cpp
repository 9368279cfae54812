// docs/accuracy.md "Band coverage by reach" (issue 37 item 3): each reach's rows predicted as that
// reach is predicted as shipped — measured in sample, model_unmeasured with its model held out,
// gpu_sibling and extrapolated with their GPU held out, another vendor's GPU on the AMD cases nobody
// fitted — with the band the shipped calibration gives that reach.
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "accuracy/markdown.hpp"
#include "reach_bands.hpp"

namespace rightsize::bench::accuracy {
namespace {

// "0.58–1.71" for a reach's shipped TTFT or TPOT band (nested, core::reach_band); the GPU's own for
// measured.
std::string shipped_band(const Calibration& cal, FigureKind kind, Reach reach) {
  if (reach == Reach::measured) return "the GPU's serving-row band";
  const auto band = reach_band(cal, kind, reach);
  return band ? fmt::format("{:.2f}–{:.2f}", band->ratio_low, band->ratio_high) : std::string("none");
}

std::string row(const std::string& reach, const std::string& validation, const ServingErrorSummary& t,
                const ServingErrorSummary& p, const std::string& ttft_band, const std::string& tpot_band) {
  return fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % | {} | {} | {:.1f} % | {:.1f} % | {} |\n", reach,
                     validation, t.rows, t.median_ape_pct, t.band_coverage_pct, ttft_band, p.rows,
                     p.median_ape_pct, p.band_coverage_pct, tpot_band);
}

} // namespace

std::string reach_markdown(const std::vector<ServingResult>& in_sample,
                           const std::vector<ServingResult>& lomo, const std::vector<ServingResult>& logo,
                           const std::vector<Gpu>& gpus, const bench::HeldOutScore& amd,
                           const Calibration& cal) {
  const auto pointers = [](const std::vector<ServingResult>& rows) {
    std::vector<const ServingResult*> out;
    out.reserve(rows.size());
    for (const ServingResult& r : rows)
      out.push_back(&r);
    return out;
  };
  const std::map<std::string, Reach> gpu_reach = held_out_gpu_reach(logo, gpus); // bench/reach_bands.hpp
  std::vector<const ServingResult*> sibling, extrapolated;
  for (const ServingResult& r : logo)
    (gpu_reach.at(r.run->gpu_id) == Reach::gpu_sibling ? sibling : extrapolated).push_back(&r);
  std::string md =
      "| reach | rows predicted as | TTFT n | TTFT median abs | TTFT in band | TTFT reach band | "
      "TPOT n | TPOT median abs | TPOT in band | TPOT reach band |\n"
      "|---|---|---:|---:|---:|---|---:|---:|---:|---|\n";
  const auto add = [&](Reach reach, const std::string& validation,
                       const std::vector<const ServingResult*>& rows) {
    md += row(to_string(reach), validation, summarize_serving("", rows, true),
              summarize_serving("", rows, false), shipped_band(cal, FigureKind::ttft, reach),
              shipped_band(cal, FigureKind::tpot, reach));
  };
  add(Reach::measured, "in sample (the shipped fit)", pointers(in_sample));
  add(Reach::model_unmeasured, "leave one model out", pointers(lomo));
  add(Reach::gpu_sibling, "leave one GPU out (H100, H200)", sibling);
  add(Reach::extrapolated, "leave one GPU out (B200)", extrapolated);
  std::vector<const HeldOutResult*> ttft, tpot;
  for (const HeldOutResult& r : amd.results) {
    if (r.c->kind == FigureKind::ttft) ttft.push_back(&r);
    if (r.c->kind == FigureKind::tpot) tpot.push_back(&r);
  }
  md += row("extrapolated (another vendor)", "AMD cases, never fitted", held_out_figures(ttft),
            held_out_figures(tpot), shipped_band(cal, FigureKind::ttft, Reach::extrapolated),
            shipped_band(cal, FigureKind::tpot, Reach::extrapolated));
  return md;
}

} // namespace rightsize::bench::accuracy
