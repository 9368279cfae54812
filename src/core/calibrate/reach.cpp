// Reach (methodology §3.5 "Bands by reach"): how far an estimate is from measured runs, each GPU's
// reach from the calibration's bands, and the reach band held-out groups showed.
#include <algorithm>
#include <string>
#include <vector>

#include "rightsize/calibration.hpp"

namespace rightsize {

std::optional<ReachBand> reach_band(const Calibration& calibration, FigureKind kind, Reach reach) {
  if (reach == Reach::measured) return std::nullopt;
  // Training throughput takes serving throughput's reach band as its stand-in: four GPUs with training
  // cases, all NVIDIA, are too few to hold one out per reach (methodology §3.5 "Bands by reach").
  const bool throughput = kind == FigureKind::throughput || kind == FigureKind::training_throughput;
  if (!throughput && kind != FigureKind::ttft && kind != FigureKind::tpot) return std::nullopt;
  // The reach's own band, with every nearer reach's nested inside: an estimate on a GPU nobody measured
  // is also of a model nobody measured there, so it is never narrower than model_unmeasured's.
  std::optional<ReachBand> out;
  const FigureKind own_kind = throughput ? FigureKind::tpot : kind;
  for (const ReachBand& r : calibration.reach_bands) {
    if (r.kind != own_kind || r.reach > reach) continue;
    if (!out) out = ReachBand{kind, reach, r.ratio_low, r.ratio_high, r.rows, r.held_out};
    out->ratio_low = std::min(out->ratio_low, r.ratio_low);
    out->ratio_high = std::max(out->ratio_high, r.ratio_high);
    if (r.reach == reach) {
      out->rows = r.rows;
      out->held_out = r.held_out; // the notes name the groups held out at this reach
    }
  }
  if (!out) return std::nullopt;
  if (throughput) {
    // Tokens/s at a given concurrency scale with 1 / TPOT: the TPOT ratio's ends swap and invert.
    const double low = out->ratio_low;
    out->ratio_low = 1.0 / out->ratio_high;
    out->ratio_high = 1.0 / low;
  }
  return out;
}

namespace {

// Sets each GPU's `Gpu::*field` to measured where `measured(id)`, else gpu_sibling where a GPU of its
// family in `gpus` is measured, else extrapolated.
template <typename Measured>
void assign_reach_by(std::vector<Gpu>& gpus, Reach Gpu::*field, Measured measured) {
  std::vector<std::string> measured_families;
  for (Gpu& g : gpus) {
    g.*field = measured(g.id) ? Reach::measured : Reach::extrapolated;
    if (g.*field == Reach::measured) measured_families.push_back(gpu_family(g));
  }
  for (Gpu& g : gpus) {
    if (g.*field != Reach::measured && std::find(measured_families.begin(), measured_families.end(),
                                                 gpu_family(g)) != measured_families.end())
      g.*field = Reach::gpu_sibling;
  }
}

} // namespace

namespace {

bool has_band(const Calibration& calibration, const std::string& gpu_id, auto own) {
  return std::any_of(calibration.bands.begin(), calibration.bands.end(),
                     [&](const BandEntry& b) { return b.gpu_id == gpu_id && own(b); });
}

// A TTFT or TPOT band from serving runs: the shipped rows' or a --calibration overlay's (`user`).
bool serving_band(const BandEntry& b, bool user) {
  if (b.kind != FigureKind::ttft && b.kind != FigureKind::tpot) return false;
  return b.rule.starts_with("user runs") || (!user && b.rule == "serving rows");
}

} // namespace

Reach serving_reach(const Calibration* calibration, const Gpu& gpu, const ModelSpec& model) {
  // The serving rows are LLM runs: an image or ViT model's accuracy is its own cases' (class bands).
  if (calibration == nullptr || gpu.reach != Reach::measured || model.kind != ModelKind::decoder)
    return gpu.reach;
  const auto listed = std::find_if(calibration->measured_models.begin(), calibration->measured_models.end(),
                                   [&gpu](const MeasuredModels& m) { return m.gpu_id == gpu.id; });
  if (listed == calibration->measured_models.end()) return gpu.reach;
  if (std::binary_search(listed->models.begin(), listed->models.end(), model.name)) return Reach::measured;
  const bool user_runs =
      has_band(*calibration, gpu.id, [](const BandEntry& b) { return serving_band(b, true); });
  return user_runs ? Reach::measured : Reach::model_unmeasured;
}

int user_band_runs(const Calibration& calibration, const std::string& gpu_id) {
  int runs = 0;
  for (const BandEntry& b : calibration.bands) {
    const bool serving =
        b.kind == FigureKind::ttft || b.kind == FigureKind::tpot || b.kind == FigureKind::throughput;
    if (serving && b.gpu_id == gpu_id && b.rule.starts_with("user runs")) runs = std::max(runs, b.cases);
  }
  return runs;
}

void assign_reach(const Calibration& calibration, std::vector<Gpu>& gpus) {
  assign_reach_by(gpus, &Gpu::reach, [&](const std::string& id) {
    return has_band(calibration, id, [](const BandEntry& b) { return serving_band(b, false); });
  });
  // Training: the GPU's own training-throughput cases (rules "own…"; "pooled" alone borrows others').
  assign_reach_by(gpus, &Gpu::training_reach, [&](const std::string& id) {
    return has_band(calibration, id, [](const BandEntry& b) {
      return b.kind == FigureKind::training_throughput &&
             (b.rule.starts_with("own") || b.rule.starts_with("user runs"));
    });
  });
}

} // namespace rightsize
