// Calibration to a user's own benchmark runs (docs/calibration.md): the per-GPU fit of
// calibration_fit.cpp (methodology §4.5, "calibrated per (GPU, engine, dtype) from a few measured
// points") restricted to one GPU x engine and started from the shipped factors, with leave-one-out
// errors per figure and bands from the leave-one-out residuals (the rule of docs/accuracy.md).
#include "rightsize/stack_calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <utility>

namespace rightsize {
namespace {

bool usable(double predicted) {
  return predicted > 0.0 && std::isfinite(predicted);
}

std::vector<ValidationCase> cases_of(const std::vector<StackRun>& runs, std::size_t skip) {
  std::vector<ValidationCase> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == skip) continue;
    for (ValidationCase& c : stack_cases(runs[i]))
      out.push_back(std::move(c));
  }
  return out;
}

constexpr FigureKind k_figures[] = {FigureKind::ttft, FigureKind::tpot, FigureKind::throughput,
                                    FigureKind::training_throughput, FigureKind::training_memory};
constexpr std::size_t k_figure_count = std::size(k_figures);

// Absolute errors of one figure: shipped and fitted predictions against the measurement.
struct Residuals {
  std::vector<double> ape_shipped, ape_fitted, ratio_fitted;
};

void add(Residuals& r, double measured, double shipped, double fitted) {
  if (!usable(shipped) || !usable(fitted)) return;
  r.ape_shipped.push_back(ape_pct(shipped, measured));
  r.ape_fitted.push_back(ape_pct(fitted, measured));
  r.ratio_fitted.push_back(measured / fitted);
}

std::size_t figure_index(FigureKind k) {
  for (std::size_t i = 0; i < k_figure_count; ++i)
    if (k_figures[i] == k) return i;
  return 2; // not produced by stack_cases
}

std::vector<FigureError> errors_of(const std::array<Residuals, k_figure_count>& res) {
  std::vector<FigureError> out;
  for (FigureKind k : k_figures) {
    const Residuals& r = res[figure_index(k)];
    if (r.ape_shipped.empty()) continue;
    out.push_back(FigureError{k, static_cast<int>(r.ape_shipped.size()), quantile(r.ape_shipped, 0.5),
                              quantile(r.ape_fitted, 0.5)});
  }
  return out;
}

// Replaces (or inserts, keeping the kind-then-GPU order) the band of b.kind on b.gpu_id.
void put_band(Calibration& cal, const BandEntry& b) {
  auto it = std::find_if(cal.bands.begin(), cal.bands.end(),
                         [&](const BandEntry& e) { return e.kind == b.kind && e.gpu_id == b.gpu_id; });
  if (it != cal.bands.end()) {
    *it = b;
    return;
  }
  cal.bands.insert(std::upper_bound(cal.bands.begin(), cal.bands.end(), b,
                                    [](const BandEntry& x, const BandEntry& y) {
                                      return std::pair(x.kind, x.gpu_id) < std::pair(y.kind, y.gpu_id);
                                    }),
                   b);
}

} // namespace

std::vector<ValidationCase> stack_cases(const StackRun& r) {
  if (!r.cases.empty()) return r.cases;
  ValidationCase base;
  base.model = r.model;
  base.precision = precision_of(r.run);
  base.gpu_id = r.run.gpu_id;
  base.deployment = deployment_of(r.run);
  base.workload.input_tokens = r.run.input_tokens;
  base.workload.output_tokens = r.run.output_tokens;
  base.workload.concurrency = r.run.concurrency;
  base.model_class = model_class_of(r.model);
  std::vector<ValidationCase> out;
  const auto push = [&](FigureKind kind, double measured) {
    if (!(measured > 0.0)) return;
    ValidationCase c = base;
    c.id = r.run.id + ":" + to_string(kind);
    c.kind = kind;
    c.measured = measured;
    out.push_back(std::move(c));
  };
  push(FigureKind::ttft, r.run.ttft_s);
  push(FigureKind::tpot, r.run.tpot_s);
  push(FigureKind::throughput, r.output_tokens_per_s);
  return out;
}

StackFit fit_stack(const std::vector<StackRun>& fit_runs, const std::vector<StackRun>& holdout_runs,
                   const Gpu& gpu, const EngineConfig& engine, const FitOptions& options) {
  StackFit out;
  out.gpu_id = gpu.id;
  out.engine = fit_runs.empty() ? std::string() : fit_runs.front().run.engine;
  out.shipped = gpu.efficiency;
  for (const StackRun& r : fit_runs)
    out.runs.push_back(r.run.id);
  constexpr std::size_t k_none = static_cast<std::size_t>(-1);
  out.fitted = fit_gpu_from(cases_of(fit_runs, k_none), gpu, engine, options, "shipped");

  // Leave-one-out: each run predicted by factors fitted to the other runs only.
  std::array<Residuals, k_figure_count> loo;
  for (std::size_t i = 0; i < fit_runs.size(); ++i) {
    Gpu without = gpu;
    without.efficiency = fit_gpu_from(cases_of(fit_runs, i), gpu, engine, options, "shipped").efficiency;
    for (const ValidationCase& c : stack_cases(fit_runs[i])) {
      add(loo[figure_index(c.kind)], c.measured, predict_case(c, gpu, engine),
          predict_case(c, without, engine));
    }
  }
  out.loo = errors_of(loo);
  for (FigureKind k : k_figures) {
    const Residuals& r = loo[figure_index(k)];
    if (static_cast<int>(r.ratio_fitted.size()) < k_min_band_runs) continue;
    BandEntry b;
    b.kind = k;
    b.gpu_id = gpu.id;
    // The docs/accuracy.md rule: p10 and p90 of measured / predicted, never narrower than the point.
    b.ratio_low = std::min(1.0, quantile(r.ratio_fitted, 0.10));
    b.ratio_high = std::max(1.0, quantile(r.ratio_fitted, 0.90));
    b.cases = static_cast<int>(r.ratio_fitted.size());
    b.rule = "user runs, leave-one-out";
    out.bands.push_back(b);
  }

  Gpu fitted = gpu;
  fitted.efficiency = out.fitted.efficiency;
  std::array<Residuals, k_figure_count> held;
  for (const StackRun& r : holdout_runs) {
    for (const ValidationCase& c : stack_cases(r))
      add(held[figure_index(c.kind)], c.measured, predict_case(c, gpu, engine),
          predict_case(c, fitted, engine));
  }
  out.holdout = errors_of(held);
  return out;
}

void apply_stack_fits(const std::vector<StackFit>& stacks, std::vector<Gpu>& gpus, Calibration& calibration) {
  for (const StackFit& s : stacks) {
    auto g = std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& x) { return x.id == s.gpu_id; });
    if (g == gpus.end()) continue;
    GpuEfficiency& e = g->efficiency;
    const FittedEfficiency& f = s.fitted;
    std::string fitted_names;
    const auto take = [&](double& slot, double value, const std::string& source, const char* name) {
      if (source != "fitted") return;
      slot = value;
      fitted_names += (fitted_names.empty() ? "" : ", ") + std::string(name);
    };
    take(e.decode_bandwidth, f.efficiency.decode_bandwidth, f.decode_source, "decode_bandwidth");
    take(e.prefill_compute, f.efficiency.prefill_compute, f.prefill_source, "prefill_compute");
    take(e.communication, f.efficiency.communication, f.communication_source, "communication");
    take(e.training_mfu, f.efficiency.training_mfu, f.training_source, "training_mfu");
    e.provenance += "; overlay (" + s.engine + ", " + std::to_string(s.runs.size()) +
                    " runs): " + (fitted_names.empty() ? std::string("no factor fitted") : fitted_names);
    for (const BandEntry& b : s.bands)
      put_band(calibration, b);
  }
}

} // namespace rightsize
