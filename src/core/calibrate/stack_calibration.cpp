// Calibration to a user's own benchmark runs (docs/calibration.md): the per-GPU fit of
// calibration_fit.cpp (methodology §4.5, "calibrated per (GPU, engine, dtype) from a few measured
// points") restricted to one GPU x engine and started from the shipped factors, with leave-one-out
// errors per figure and bands from the cross-validation residuals (leave-one-out up to 10 runs, then
// 10 folds; the rule of docs/accuracy.md).
#include "rightsize/stack_calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>

#include "rightsize/inference.hpp"

namespace rightsize {
namespace {

bool usable(double predicted) {
  return predicted > 0.0 && std::isfinite(predicted);
}

// Cross-validation folds (docs/calibration.md "Errors and bands"): leave-one-out up to
// k_max_folds runs, then k_max_folds folds with run i in fold i mod k_max_folds, so a stack of n
// runs costs min(n, 10) + 1 fits instead of n + 1 (1,000 runs refitted 1,000 times took minutes;
// issue 42). Deterministic: the same runs in the same order give the same folds.
constexpr std::size_t k_max_folds = 10;
constexpr std::size_t k_no_fold = static_cast<std::size_t>(-1);

std::vector<std::size_t> folds_of(std::size_t runs) {
  std::vector<std::size_t> fold(runs);
  const std::size_t k = std::min(runs, k_max_folds);
  for (std::size_t i = 0; i < runs; ++i)
    fold[i] = i % std::max<std::size_t>(1, k);
  return fold;
}

// Whether two serving cases ask the estimator the same question: the same model, precision, GPU,
// layout and workload (stack_cases sets nothing else). Their figures then come from one estimate.
bool same_inputs(const ValidationCase& a, const ValidationCase& b) {
  const ModelSpec& ma = a.model;
  const ModelSpec& mb = b.model;
  const Precision& pa = a.precision;
  const Precision& pb = b.precision;
  const Deployment& da = a.deployment;
  const Deployment& db = b.deployment;
  return ma.name == mb.name && ma.layers == mb.layers && ma.hidden_size == mb.hidden_size &&
         ma.heads == mb.heads && ma.kv_heads == mb.kv_heads && ma.ffn_size == mb.ffn_size &&
         ma.vocab_size == mb.vocab_size && pa.weights == pb.weights && pa.activations == pb.activations &&
         pa.kv_cache == pb.kv_cache && pa.group_size == pb.group_size && a.gpu_id == b.gpu_id &&
         da.gpus == db.gpus && da.tp == db.tp && da.pp == db.pp && da.ep == db.ep &&
         da.attention_dp == db.attention_dp && a.workload.input_tokens == b.workload.input_tokens &&
         a.workload.output_tokens == b.workload.output_tokens &&
         a.workload.concurrency == b.workload.concurrency;
}

// The cases of every run outside fold `skip` (k_no_fold: all of them). One run's figures share its
// inputs, and so do runs that repeat another's (the same benchmark run again): each group is
// estimated once per evaluation of the fit (calibration_fit.cpp log_loss), which keeps 1,000
// repeated runs within the limits (issue 42).
std::vector<ValidationCase> cases_outside(const std::vector<StackRun>& runs,
                                          const std::vector<std::size_t>& fold, std::size_t skip) {
  std::vector<ValidationCase> out;
  std::vector<std::size_t> firsts; // index in `out` of each distinct serving inputs group's first case
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (fold[i] == skip) continue;
    const bool serving = runs[i].cases.empty();
    std::size_t group = i + 1;
    bool seen = false;
    for (ValidationCase& c : stack_cases(runs[i])) {
      if (serving && !seen) {
        seen = true;
        for (std::size_t f : firsts) {
          if (same_inputs(out[f], c)) {
            group = out[f].inputs_group;
            break;
          }
        }
        if (group == i + 1) firsts.push_back(out.size());
      }
      c.inputs_group = group;
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The stack's folds and, per fold, the GPU with the factors fitted without that fold's runs.
struct Folds {
  std::vector<std::size_t> of_run;
  std::vector<Gpu> without;
  [[nodiscard]] const Gpu& gpu_without_run(std::size_t i) const { return without[of_run[i]]; }
};

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

// Replaces (or inserts, keeping the kind-then-GPU order) the entry of x.kind on x.gpu_id: bands
// and tails.
template <class Entry> void put_entry(std::vector<Entry>& entries, const Entry& x) {
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const Entry& e) { return e.kind == x.kind && e.gpu_id == x.gpu_id; });
  if (it != entries.end()) {
    *it = x;
    return;
  }
  entries.insert(std::upper_bound(entries.begin(), entries.end(), x,
                                  [](const Entry& l, const Entry& r) {
                                    return std::pair(l.kind, l.gpu_id) < std::pair(r.kind, r.gpu_id);
                                  }),
                 x);
}

// The estimator's own p99 of a latency case (its queueing model), as `estimate` prints it.
double predicted_p99(const ValidationCase& c, const Gpu& gpu, const EngineConfig& engine) {
  const PreparedModel pm = prepare_model(c.model, c.precision);
  const InferenceEstimate e =
      estimate_inference(pm, c.workload, gpu, c.deployment, case_engine(c, engine), nullptr, 0.0);
  return c.kind == FigureKind::ttft ? e.ttft.p99_s : e.tpot.p99_s;
}

double measured_p99(const StackRun& r, FigureKind kind) {
  return kind == FigureKind::ttft ? r.ttft_p99_s : r.tpot_p99_s;
}

double measured_mean(const StackRun& r, FigureKind kind) {
  return kind == FigureKind::ttft ? r.run.ttft_s : r.run.tpot_s;
}

// Median of measured p99 / mean over the runs reporting both, leaving out fold `skip`.
std::vector<double> tail_ratios(const std::vector<StackRun>& runs, FigureKind kind,
                                const std::vector<std::size_t>& fold, std::size_t skip) {
  std::vector<double> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (fold[i] == skip) continue;
    const double p99 = measured_p99(runs[i], kind), m = measured_mean(runs[i], kind);
    if (p99 > 0.0 && m > 0.0) out.push_back(p99 / m);
  }
  return out;
}

// The tail fit of one latency figure: needs k_min_tail_runs runs reporting its p99; each run is
// predicted with the factors and the tail fitted without its fold.
std::optional<TailFit> fit_tail(const std::vector<StackRun>& runs, FigureKind kind, const Gpu& gpu,
                                const Folds& folds, const EngineConfig& engine) {
  const std::vector<double> all = tail_ratios(runs, kind, folds.of_run, k_no_fold);
  if (static_cast<int>(all.size()) < k_min_tail_runs) return std::nullopt;
  TailFit t;
  t.kind = kind;
  t.runs = static_cast<int>(all.size());
  t.p99_over_mean = quantile(all, 0.5);
  // The tail fitted without each fold (one median per fold, not per run).
  std::vector<double> tail_without(folds.without.size());
  for (std::size_t f = 0; f < tail_without.size(); ++f)
    tail_without[f] = quantile(tail_ratios(runs, kind, folds.of_run, f), 0.5);
  std::vector<double> ape_shipped, ape_fitted;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const double measured = measured_p99(runs[i], kind);
    if (!(measured > 0.0) || !(measured_mean(runs[i], kind) > 0.0)) continue;
    for (const ValidationCase& c : stack_cases(runs[i])) {
      if (c.kind != kind) continue;
      const double shipped = predicted_p99(c, gpu, engine);
      const double fitted = predict_case(c, folds.gpu_without_run(i), engine) * tail_without[folds.of_run[i]];
      if (!usable(shipped) || !usable(fitted)) continue;
      ape_shipped.push_back(ape_pct(shipped, measured));
      ape_fitted.push_back(ape_pct(fitted, measured));
    }
  }
  t.median_ape_shipped_pct = quantile(ape_shipped, 0.5);
  t.median_ape_fitted_pct = quantile(ape_fitted, 0.5);
  return t;
}

// Per-layout fits (docs/calibration.md, "Layout families"): only when the runs span two or more
// families; a family with k_min_layout_runs runs gets its own factors, started from the stack's.
std::vector<LayoutFit> fit_layouts(const std::vector<StackRun>& runs, const StackFit& stack, const Gpu& gpu,
                                   const Folds& folds, const EngineConfig& engine,
                                   const FitOptions& options) {
  std::vector<LayoutFit> out;
  for (LayoutFamily family : {LayoutFamily::tp, LayoutFamily::tp_pp, LayoutFamily::ep, LayoutFamily::adp}) {
    std::vector<std::size_t> index; // positions in `runs`
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (layout_family(deployment_of(runs[i].run)) == family) index.push_back(i);
    if (index.empty()) continue;
    LayoutFit f;
    f.family = family;
    f.runs.reserve(index.size());
    for (std::size_t i : index)
      f.runs.push_back(runs[i].run.id);
    out.push_back(std::move(f));
    if (static_cast<int>(index.size()) < k_min_layout_runs) continue;
    LayoutFit& fit = out.back();
    std::vector<StackRun> mine;
    std::vector<std::size_t> mine_fold; // each run keeps its stack fold
    mine.reserve(index.size());
    for (std::size_t i : index) {
      mine.push_back(runs[i]);
      mine_fold.push_back(folds.of_run[i]);
    }
    Gpu start = gpu;
    start.efficiency = stack.fitted.efficiency;
    fit.own = true;
    fit.fitted = fit_gpu_from(cases_outside(mine, mine_fold, k_no_fold), start, engine, options, "stack");
    // Per stack fold: the family's factors fitted without that fold, started from the stack's
    // factors fitted without it.
    std::vector<std::optional<Gpu>> family_without(folds.without.size());
    std::array<Residuals, k_figure_count> loo;
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t fold = mine_fold[j];
      const Gpu& without = folds.without[fold];
      if (!family_without[fold]) {
        family_without[fold] = without;
        family_without[fold]->efficiency =
            fit_gpu_from(cases_outside(mine, mine_fold, fold), without, engine, options, "stack").efficiency;
      }
      for (const ValidationCase& c : stack_cases(mine[j])) {
        add(loo[figure_index(c.kind)], c.measured, predict_case(c, without, engine),
            predict_case(c, *family_without[fold], engine));
      }
    }
    fit.loo = errors_of(loo);
  }
  if (out.size() < 2) out.clear(); // one family: the GPU x engine factors are that family's
  return out;
}

// The bands of a stack: e^±q around the point, q the split-conformal radius of the leave-one-out
// ratios measured / predicted per figure (conformal_radius; issue 38: p10..p90 of five ratios held
// 64-71 % of the held-out runs of the 85 groups, the conformal band 81-91 %). Throughput the runs did not
// report takes the ratios `implied` by their TTFT and TPOT (implied_throughput_ratio), so that sizing at
// --confidence p90 uses the user's runs too (issue 38).
std::vector<BandEntry> stack_bands(const std::array<Residuals, k_figure_count>& loo, const Residuals& implied,
                                   const std::string& gpu_id, std::size_t fit_runs) {
  std::vector<BandEntry> out;
  const std::string rule =
      fit_runs <= k_max_folds ? "user runs, leave-one-out" : "user runs, 10-fold cross-validation";
  const auto enough = [](const Residuals& r) {
    return static_cast<int>(r.ratio_fitted.size()) >= k_min_band_runs;
  };
  for (FigureKind k : k_figures) {
    const Residuals& own = loo[figure_index(k)];
    const bool derived = k == FigureKind::throughput && !enough(own) && enough(implied);
    const Residuals& r = derived ? implied : own;
    if (!enough(r)) continue;
    BandEntry b;
    b.kind = k;
    b.gpu_id = gpu_id;
    const double q = conformal_radius(r.ratio_fitted, k_user_band_coverage);
    b.ratio_low = std::exp(-q);
    b.ratio_high = std::exp(q);
    b.cases = static_cast<int>(r.ratio_fitted.size());
    b.rule = derived ? rule + std::string(k_implied_throughput_rule) : rule;
    out.push_back(b);
  }
  return out;
}

// Per fold, the overlay fitted without it (fit_stack): the fold's factors and the residuals
// refitted against them on the other folds' runs (none for training runs).
Folds fold_overlays(const std::vector<StackRun>& runs, const Folds& folds, const std::string& stack_engine,
                    const EngineConfig& engine) {
  Folds out = folds;
  for (std::size_t f = 0; f < out.without.size(); ++f) {
    Gpu& g = out.without[f];
    g.residuals.clear();
    if (stack_engine == "training") continue;
    std::vector<StackRun> others;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (folds.of_run[i] != f) others.push_back(runs[i]);
    g.residuals = fit_residuals(others, g, engine);
  }
  return out;
}

} // namespace

double conformal_radius(const std::vector<double>& ratios, double coverage) {
  std::vector<double> scores; // |ln r|, the absolute-residual score of each ratio
  scores.reserve(ratios.size());
  for (const double r : ratios)
    if (r > 0.0 && std::isfinite(r)) scores.push_back(std::abs(std::log(r)));
  if (scores.empty()) return 0.0;
  std::sort(scores.begin(), scores.end());
  const double n = static_cast<double>(scores.size());
  const auto rank = static_cast<std::size_t>(std::ceil((n + 1.0) * coverage - 1e-9));
  return scores[std::clamp<std::size_t>(rank, 1, scores.size()) - 1];
}

double implied_throughput_ratio(std::array<double, 2> ttft_s, std::array<double, 2> tpot_s,
                                std::int64_t output_tokens) {
  const auto steps = static_cast<double>(std::max<std::int64_t>(0, output_tokens - 1));
  const double measured_e2e_s = ttft_s[0] + steps * tpot_s[0];
  const double predicted_e2e_s = ttft_s[1] + steps * tpot_s[1];
  if (ttft_s[0] <= 0.0 || tpot_s[0] <= 0.0 || !usable(predicted_e2e_s) || predicted_e2e_s <= 0.0) return 0.0;
  return predicted_e2e_s / measured_e2e_s;
}

StackFit fit_stack(const std::vector<StackRun>& fit_runs, const std::vector<StackRun>& holdout_runs,
                   const Gpu& gpu, const EngineConfig& engine, const FitOptions& options) {
  StackFit out;
  out.gpu_id = gpu.id;
  out.engine = fit_runs.empty() ? std::string() : fit_runs.front().run.engine;
  out.shipped = gpu.efficiency;
  for (const StackRun& r : fit_runs)
    out.runs.push_back(r.run.id);
  Folds folds;
  folds.of_run = folds_of(fit_runs.size());
  out.fitted =
      fit_gpu_from(cases_outside(fit_runs, folds.of_run, k_no_fold), gpu, engine, options, "shipped");
  // Cross-validation: each run predicted by factors fitted without its fold (leave-one-out up to
  // k_max_folds runs).
  folds.without.assign(std::min(fit_runs.size(), k_max_folds), gpu);
  for (std::size_t f = 0; f < folds.without.size(); ++f)
    folds.without[f].efficiency =
        fit_gpu_from(cases_outside(fit_runs, folds.of_run, f), gpu, engine, options, "shipped").efficiency;
  // The overlay fitted without each fold, as --calibration would apply it: that fold's factors and
  // the residuals refitted against them on the other folds' runs. Every leave-one-out figure below
  // predicts a run with it (until 2026-12-02 a residual fitted against the all-runs factors was put
  // on the fold's factors: 5 runs whose honest TTFT ratios were 0.96–1.05 got a ×0.72–×1.40 band).
  const Folds overlays = fold_overlays(fit_runs, folds, out.engine, engine);
  for (FigureKind k : {FigureKind::ttft, FigureKind::tpot}) {
    if (const auto t = fit_tail(fit_runs, k, gpu, overlays, engine)) out.tails.push_back(*t);
  }
  if (out.engine != "training") out.layouts = fit_layouts(fit_runs, out, gpu, folds, engine, options);
  // The GPU as --calibration will load it: the fitted factors and layout factors, then the
  // residuals fitted against them (docs/calibration.md "Residuals").
  std::vector<Gpu> runtime{gpu};
  runtime.front().residuals.clear();
  Calibration unused;
  apply_stack_fits({out}, runtime, unused);
  if (out.engine != "training") out.residuals = fit_residuals(fit_runs, runtime.front(), engine);
  runtime.front().residuals = out.residuals;
  // Leave-one-out over the fit runs of what the overlay predicts: the overlay fitted without the
  // run's fold. The bands come from the same ratios.
  std::array<Residuals, k_figure_count> loo;
  Residuals implied; // requests/s as each run's TTFT and TPOT imply it (stack_bands)
  for (std::size_t i = 0; i < fit_runs.size(); ++i) {
    std::array<double, 2> ttft{}, tpot{}; // {measured, predicted} of the run's means
    bool reports_throughput = false;
    std::int64_t output_tokens = 0;
    for (const ValidationCase& c : stack_cases(fit_runs[i])) {
      const double predicted = predict_case(c, overlays.gpu_without_run(i), engine);
      add(loo[figure_index(c.kind)], c.measured, predict_case(c, gpu, engine), predicted);
      if (c.kind == FigureKind::ttft) ttft = {c.measured, predicted};
      if (c.kind == FigureKind::tpot) tpot = {c.measured, predicted};
      reports_throughput = reports_throughput || c.kind == FigureKind::throughput;
      output_tokens = c.workload.output_tokens;
    }
    const double ratio = implied_throughput_ratio(ttft, tpot, output_tokens);
    if (!reports_throughput && ratio > 0.0) implied.ratio_fitted.push_back(ratio);
  }
  out.loo = errors_of(loo);
  out.bands = stack_bands(loo, implied, gpu.id, fit_runs.size());
  std::array<Residuals, k_figure_count> held;
  for (const StackRun& r : holdout_runs) {
    for (const ValidationCase& c : stack_cases(r))
      add(held[figure_index(c.kind)], c.measured, predict_case(c, gpu, engine),
          predict_case(c, runtime.front(), engine));
  }
  out.holdout = errors_of(held);
  return out;
}

namespace {

// Sets the factors whose source is "fitted" on `e`; returns their names ("" when none).
std::string take_fitted(GpuEfficiency& e, const FittedEfficiency& f) {
  std::string names;
  for (const StackFactor& factor : k_stack_factors) {
    if (f.*factor.source != "fitted") continue;
    e.*factor.value = f.efficiency.*factor.value;
    names += (names.empty() ? "" : ", ") + std::string(factor.name);
  }
  return names;
}

} // namespace

void apply_stack_fits(const std::vector<StackFit>& stacks, std::vector<Gpu>& gpus, Calibration& calibration) {
  for (const StackFit& s : stacks) {
    auto g = std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& x) { return x.id == s.gpu_id; });
    if (g == gpus.end()) continue;
    GpuEfficiency& e = g->efficiency;
    const std::string fitted_names = take_fitted(e, s.fitted);
    e.provenance += "; overlay (" + s.engine + ", " + std::to_string(s.runs.size()) +
                    " runs): " + (fitted_names.empty() ? std::string("no factor fitted") : fitted_names);
    for (const LayoutFit& l : s.layouts) {
      if (!l.own) continue;
      LayoutEfficiency le{l.family, e};
      const std::string names = take_fitted(le.efficiency, l.fitted);
      le.efficiency.provenance += std::string("; layout ") + to_string(l.family) + " (" +
                                  std::to_string(l.runs.size()) +
                                  " runs): " + (names.empty() ? std::string("no factor of its own") : names);
      g->layout_efficiency.push_back(le);
    }
    g->residuals = s.residuals;
    for (const BandEntry& b : s.bands)
      put_entry(calibration.bands, b);
    for (const TailFit& t : s.tails)
      put_entry(calibration.tails, TailEntry{t.kind, s.gpu_id, t.p99_over_mean, t.runs});
  }
}

} // namespace rightsize
