// The accuracy report's fits and cross-validation (bench/accuracy_report.cpp): the catalog as the
// CLI loads it, the serving factors and bands refitted without held-out rows, leave one pair out,
// the grouped cross-validation (issue 37) and the ablations of every fitted value.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/context.hpp"
#include "grouped_cv.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"
#include "serving_score.hpp"

namespace rightsize::bench::accuracy {

extern const std::string k_root;
extern const std::string k_serving_csv;
extern const std::string k_models_dir;

struct ServingGate {
  std::string key;
  double median_ape_pct = 0.0;
  std::size_t rows = 0;
  /// Grouped gates: the share of rows inside their p10–p90 band, held to issue 37's 75–85 %
  /// (k_band_coverage_low_pct..high); < 0 = not gated.
  double band_coverage_pct = -1.0;
};

/// Issue 37's target for the grouped band coverage, which `accuracy_report --check` holds.
inline constexpr double k_band_coverage_low_pct = 75.0;
inline constexpr double k_band_coverage_high_pct = 85.0;

// The serving gates: median APE over the rows whose preset the CSV names (serving_*), over the rows
// of issue 19's models scored through the model-id table (serving_*_new) and over the
// disaggregated runs (serving_*_disagg), each gated separately so none hides another.
std::vector<ServingGate> serving_gates(const bench::ServingScore& serving);

// What the serving fits and scoring run with: the shipped engine profiles and every calibration
// component (the default), or one fitted value turned to its neutral value (the ablation table).
struct Ablation {
  std::string name;                                ///< "" = as shipped
  std::string change;                              ///< what was changed, for the table ("30 µs → 0")
  std::optional<EngineProfiles> engines;           ///< changed profiles; none = as shipped
  std::array<bool, k_engine_kind_count> touches{}; ///< the engines whose profile changed
  bool serving_factors = true, expert_reads = true, serving_bands = true, case_factors = true;
  bool reach_bands = true; ///< leave one GPU out scores held-out GPUs with reach bands (reach_bands.hpp)
  /// Nothing changed: the shipped profiles and every component.
  [[nodiscard]] bool as_shipped() const {
    return !engines && serving_factors && expert_reads && serving_bands && case_factors && reach_bands;
  }
};
extern const Ablation k_shipped;

// The shipped catalog as the CLI loads it (the data folder and today's date read as the CLI reads them).
app::LoadedCatalog shipped_catalog(bool no_calibration);
// The calibrated catalog as the CLI sees it under `cal` (and the ablation's engine profiles).
app::LoadedCatalog calibrated_catalog(const Calibration& cal, const Ablation& ablation = k_shipped);
// data/calibration.json as shipped.
Calibration shipped_calibration();

// Serving factors and bands on top of the validation-case calibration `base`, leaving the rows
// `excluded` accepts out of both; `points` (optional) reuses point predictions across refits.
Calibration serving_calibration(const Calibration& base, const bench::RowExcluded& excluded = {},
                                const Ablation& ablation = k_shipped, bench::PointCache* points = nullptr);
// Leave-one-(model, GPU)-pair-out: each pair's rows predicted with factors and bands fitted
// without them (the engine profiles' wave synchrony and fixed TTFT stay fitted on all rows).
bench::ServingScore serving_loo(const Calibration& base, const bench::ServingScore& all,
                                bench::PointCache* points);
// Every row scored with the calibrated catalog under `cal`.
bench::ServingScore score_serving_runs(const Calibration& cal, bool with_closest_workers = false);

// The reference engine of the case fit (EngineConfig's defaults) from a vLLM profile: the profile
// less what sets vLLM apart from the reference, its fitted wave synchrony and fixed TTFT
// (tests/unit/test_engines_io.cpp holds every other field equal).
inline EngineConfig case_fit_engine(const EngineConfig& vllm) {
  const EngineConfig reference;
  EngineConfig out = vllm;
  out.wave_synchrony = reference.wave_synchrony;
  out.ttft_fixed_s = reference.ttft_fixed_s;
  return out;
}

// The validation-case calibration, and its refits without the cases that copy a held-out serving
// row (bench::copied_row): one refit per distinct set of such cases, kept for every fold that
// leaves out the same set. The cases are predicted with `engine`, the reference profile of the case
// fit (EngineConfig's defaults: vLLM's); an ablation that changes it refits them (with_engine).
class CaseFits {
public:
  CaseFits(const std::vector<ValidationCase>& cases, const std::vector<Gpu>& gpus, Calibration base,
           const std::vector<ServingRun>& runs, const EngineConfig& engine = EngineConfig{})
      : cases_(cases), gpus_(gpus), base_(std::move(base)), engine_(engine) {
    for (const ValidationCase& c : cases_) {
      const std::size_t row = bench::copied_row(c, runs);
      rows_.push_back(row < runs.size() ? &runs[row] : nullptr);
    }
  }

  // The same cases fitted from scratch with `engine` as their reference profile.
  [[nodiscard]] CaseFits with_engine(const EngineConfig& engine) const {
    const FitOptions options;
    Calibration base = build_calibration(fit_efficiencies(cases_, gpus_, engine, options),
                                         evaluate_cases(cases_, gpus_, engine, options));
    return CaseFits(cases_, gpus_, std::move(base), rows_, engine);
  }

  // The calibration fitted on the cases whose copied row `held_out` does not accept.
  const Calibration& without(const bench::RowExcluded& held_out) {
    std::vector<std::string> left_out;
    for (std::size_t i = 0; i < cases_.size(); ++i)
      if (rows_[i] != nullptr && held_out(*rows_[i])) left_out.push_back(cases_[i].id);
    if (left_out.empty()) return base_;
    const auto found = refits_.find(left_out);
    if (found != refits_.end()) return found->second;
    std::vector<ValidationCase> kept;
    for (const ValidationCase& c : cases_)
      if (std::find(left_out.begin(), left_out.end(), c.id) == left_out.end()) kept.push_back(c);
    const FitOptions options;
    Calibration refit = build_calibration(fit_efficiencies(kept, gpus_, engine_, options),
                                          evaluate_cases(kept, gpus_, engine_, options));
    return refits_.emplace(left_out, std::move(refit)).first->second;
  }

  // "case id (row id)" for every case that copies a serving row.
  [[nodiscard]] std::vector<std::string> copies() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < cases_.size(); ++i)
      if (rows_[i] != nullptr) out.push_back(fmt::format("`{}` (row `{}`)", cases_[i].id, rows_[i]->id));
    return out;
  }

private:
  CaseFits(const std::vector<ValidationCase>& cases, const std::vector<Gpu>& gpus, Calibration base,
           std::vector<const ServingRun*> rows, const EngineConfig& engine)
      : cases_(cases), gpus_(gpus), base_(std::move(base)), engine_(engine), rows_(std::move(rows)) {}

  const std::vector<ValidationCase>& cases_;
  const std::vector<Gpu>& gpus_;
  Calibration base_;
  EngineConfig engine_;
  std::vector<const ServingRun*> rows_; ///< per case: the serving row it copies, or nullptr
  std::map<std::vector<std::string>, Calibration> refits_;
};

// One grouping's held-out predictions of the aggregated rows (run pointers into the in-sample runs).
struct GroupedSet {
  bench::CvGrouping grouping;
  std::vector<ServingResult> results;
};

// The grouped cross-validation of the aggregated rows of `serving` under `ablation`, for the
// groupings whose suffix is in `suffixes` (empty = all): every fold refits the case calibration
// (without the cases that copy its rows), the serving factors, the expert reads and the bands
// without the held-out group. The engine profiles stay as given (their fitted values are fixed).
std::vector<GroupedSet> grouped_cv(CaseFits& fits, const bench::ServingScore& serving,
                                   const Ablation& ablation, bench::PointCache& points,
                                   const std::vector<std::string>& suffixes = {});
// The serving gates of the grouped figures: median abs. error of TTFT and TPOT per grouping
// (serving_ttft_lomo, serving_tpot_logo, ...).
std::vector<ServingGate> grouped_gates(const std::vector<GroupedSet>& sets);
// The fitted values of data/engines.json (basis "fitted"), each at its neutral value in its own ablation.
std::vector<Ablation> engine_ablations();
// The fitted calibration components, each turned off in its own ablation.
std::vector<Ablation> component_ablations();

} // namespace rightsize::bench::accuracy
