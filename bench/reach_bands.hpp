#pragma once
// Bands by reach (issue 37 item 3; docs/accuracy.md "Bands by reach"): the TTFT and TPOT bands of
// estimates on a GPU without serving runs of its own, from the leave-one-GPU-out residuals, so that
// a band widens as the estimate reaches further from what was measured. Header-only, bench only:
// bench/accuracy_report writes them into data/calibration.json; core::band_for applies them.
// Worked example: tests/unit/test_reach_bands.cpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "rightsize/calibration.hpp"
#include "rightsize/serving_validation.hpp"
#include "serving_score.hpp"

namespace rightsize::bench {

/// Rows a reach band needs before it stands (as a GPU's serving-row band, add_serving_bands).
inline constexpr std::size_t k_reach_min_rows = 20;

/// One reach band: e^±q, q the 80th percentile of |ln r| over the held-out ratios r = measured /
/// predicted (split conformal prediction's absolute-residual score [CONFORMAL] at 80 % coverage).
/// A held-out group's error has a size that carries to the next group but not a sign (leave one GPU
/// out: H100 −16 %, its sibling H200 +18.5 % median TTFT), so p10..p90 of the signed ratios would
/// centre the band on the other groups' bias (methodology §3.5 "Bands by reach").
inline ReachBand conformal_reach_band(FigureKind kind, Reach reach, const std::vector<double>& ratios,
                                      const std::set<std::string>& held_out) {
  std::vector<double> spread; // |ln r|: the conformal score of each held-out row
  spread.reserve(ratios.size());
  for (const double r : ratios)
    spread.push_back(std::fabs(std::log(r)));
  const double q = quantile(spread, 0.80);
  ReachBand b;
  b.kind = kind;
  b.reach = reach;
  b.ratio_low = std::exp(-q);
  b.ratio_high = std::exp(q);
  b.rows = static_cast<int>(ratios.size());
  b.held_out.assign(held_out.begin(), held_out.end());
  return b;
}

/// The reach of each held-out GPU's rows in a leave-one-GPU-out pass (`logo`): gpu_sibling when
/// another GPU of its family (gpu_family over `gpus`) has serving rows, extrapolated otherwise. By
/// GPU id; one rule for the reach bands below and the report's coverage table.
inline std::map<std::string, Reach> held_out_gpu_reach(const std::vector<ServingResult>& logo,
                                                       const std::vector<Gpu>& gpus) {
  const auto family = [&gpus](const std::string& id) {
    const auto it = std::find_if(gpus.begin(), gpus.end(), [&id](const Gpu& g) { return g.id == id; });
    return it == gpus.end() ? id : gpu_family(*it);
  };
  std::map<std::string, std::set<std::string>> measured_by_family;
  for (const ServingResult& r : logo)
    measured_by_family[family(r.run->gpu_id)].insert(r.run->gpu_id);
  std::map<std::string, Reach> out;
  for (const auto& [name, ids] : measured_by_family)
    for (const std::string& id : ids)
      out[id] = ids.size() > 1 ? Reach::gpu_sibling : Reach::extrapolated;
  return out;
}

/// The reach bands from the held-out predictions of a leave-one-GPU-out pass (`logo`: every row
/// predicted by a fit that never saw its GPU), leaving out the rows of `except_gpu` (the fold being
/// scored, so that its own band never comes from its own rows; "" = none). A held-out GPU's rows are
/// residuals of its held_out_gpu_reach, each band conformal_reach_band's. Extrapolated is never narrower than
/// gpu_sibling and, without rows of its own, is gpu_sibling's. Rows of replicas across nodes are left out, as
/// for the serving-row bands.
inline std::vector<ReachBand> reach_bands_from(const std::vector<ServingResult>& logo,
                                               const std::vector<Gpu>& gpus, const std::string& except_gpu) {
  const std::map<std::string, Reach> reach = held_out_gpu_reach(logo, gpus);
  struct Residuals {
    std::vector<double> ttft, tpot;
    std::set<std::string> gpu_ids;
  };
  std::map<Reach, Residuals> by_reach;
  for (const ServingResult& r : logo) {
    if (r.run->gpu_id == except_gpu || deployment_of(*r.run).gpus_per_replica() > 8) continue;
    Residuals& to = by_reach[reach.at(r.run->gpu_id)];
    to.ttft.push_back(r.run->ttft_s / r.ttft_pred_s);
    to.tpot.push_back(r.run->tpot_s / r.tpot_pred_s);
    to.gpu_ids.insert(r.run->gpu_id);
  }
  std::vector<ReachBand> out;
  for (const FigureKind kind : {FigureKind::ttft, FigureKind::tpot}) {
    const Residuals& near = by_reach[Reach::gpu_sibling];
    const Residuals& far = by_reach[Reach::extrapolated];
    const auto& near_ratios = kind == FigureKind::ttft ? near.ttft : near.tpot;
    const auto& far_ratios = kind == FigureKind::ttft ? far.ttft : far.tpot;
    if (near_ratios.size() < k_reach_min_rows) continue; // no band a held-out GPU could stand on
    const ReachBand sibling = conformal_reach_band(kind, Reach::gpu_sibling, near_ratios, near.gpu_ids);
    ReachBand extrapolated = sibling;
    extrapolated.reach = Reach::extrapolated;
    if (far_ratios.size() >= k_reach_min_rows) {
      extrapolated = conformal_reach_band(kind, Reach::extrapolated, far_ratios, far.gpu_ids);
      extrapolated.ratio_low = std::min(extrapolated.ratio_low, sibling.ratio_low);
      extrapolated.ratio_high = std::max(extrapolated.ratio_high, sibling.ratio_high);
    }
    out.push_back(sibling);
    out.push_back(extrapolated);
  }
  return out;
}

/// The model_unmeasured reach bands (TTFT, TPOT) from the held-out predictions of a
/// leave-one-model-out pass (`lomo`: every row predicted by a fit that never saw its model), leaving
/// out the rows of `except_model` (the fold being scored; "" = none): the band an estimate of a model
/// nobody measured gets on a measured GPU (core::serving_reach), and, nested, on every GPU further
/// out (core::reach_band). `except_gpu` leaves out a GPU's rows too (a leave-one-GPU-out fold scoring
/// that GPU). Rows of replicas across nodes are left out, as for the serving-row bands; none below
/// k_reach_min_rows rows.
inline std::vector<ReachBand> model_reach_bands_from(const std::vector<ServingResult>& lomo,
                                                     const std::string& except_model,
                                                     const std::string& except_gpu = "") {
  std::vector<double> ttft, tpot;
  std::set<std::string> models;
  for (const ServingResult& r : lomo) {
    if (r.run->preset == except_model || r.run->gpu_id == except_gpu ||
        deployment_of(*r.run).gpus_per_replica() > 8)
      continue;
    ttft.push_back(r.run->ttft_s / r.ttft_pred_s);
    tpot.push_back(r.run->tpot_s / r.tpot_pred_s);
    models.insert(r.run->preset);
  }
  if (ttft.size() < k_reach_min_rows) return {};
  return {conformal_reach_band(FigureKind::ttft, Reach::model_unmeasured, ttft, models),
          conformal_reach_band(FigureKind::tpot, Reach::model_unmeasured, tpot, models)};
}

/// Every reach band in the calibration's order (kind, then reach): the model_unmeasured ones and
/// the GPU ones.
inline std::vector<ReachBand> sorted_reach_bands(std::vector<ReachBand> model,
                                                 const std::vector<ReachBand>& gpu) {
  model.insert(model.end(), gpu.begin(), gpu.end());
  std::stable_sort(model.begin(), model.end(), [](const ReachBand& a, const ReachBand& b) {
    return std::tie(a.kind, a.reach) < std::tie(b.kind, b.reach);
  });
  return model;
}

} // namespace rightsize::bench
