// Residuals of a calibrate stack (docs/calibration.md "Residuals", methodology §3.4.1): what the
// fitted factors leave of a figure, modelled per stack (model, weights, engine, layout) as
// ln(measured / predicted) = a + b·ln(concurrency) + c·ln(input tokens) with 0 to 3 terms. The
// number of terms is chosen by leave-one-out over the stack's fit runs; a richer model must cut the
// mean |ln error| leave-one-out by k_richer_gain to be chosen (with five runs a third term is cheap
// to fit and expensive to trust). Measured on the serving CSV by bench/calibrate_groups.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "rightsize/stack_calibration.hpp"

namespace rightsize {
namespace {

constexpr int k_max_terms = 3;
constexpr double k_richer_gain = 0.9; // a richer model's LOO mean |ln error| must be below 0.9× the simpler's

struct Obs {
  double r = 0.0;  // ln(measured / predicted)
  double lc = 0.0; // ln(concurrency)
  double li = 0.0; // ln(input tokens)
};

// Least squares on the first `terms` of (1, ln C, ln ISL) by Gauss-Jordan with partial pivoting; a
// singular system (every run at one concurrency) falls back to fewer terms.
std::vector<double> least_squares(const std::vector<Obs>& obs, int terms) {
  if (terms <= 0) return {};
  double a[k_max_terms][k_max_terms + 1] = {};
  for (const Obs& o : obs) {
    const double x[k_max_terms] = {1.0, o.lc, o.li};
    for (int i = 0; i < terms; ++i) {
      for (int j = 0; j < terms; ++j)
        a[i][j] += x[i] * x[j];
      a[i][k_max_terms] += x[i] * o.r;
    }
  }
  for (int c = 0; c < terms; ++c) {
    int pivot = c;
    for (int r = c + 1; r < terms; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    if (std::abs(a[pivot][c]) < 1e-9) return least_squares(obs, terms - 1);
    for (int k = 0; k <= k_max_terms; ++k)
      std::swap(a[c][k], a[pivot][k]);
    for (int r = 0; r < terms; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = 0; k <= k_max_terms; ++k)
        a[r][k] -= f * a[c][k];
    }
  }
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(terms));
  for (int i = 0; i < terms; ++i)
    out.push_back(a[i][k_max_terms] / a[i][i]);
  return out;
}

double ape_pct(double log_ratio) {
  return 100.0 * std::abs(std::exp(log_ratio) - 1.0);
}

// The term the runs select (leave-one-out), fitted to all of them, with its before/after errors;
// `loo_log` receives, per observation, the chosen term refitted without it and evaluated at it.
ResidualTerm select_term(const std::vector<Obs>& obs, std::vector<double>& loo_log) {
  ResidualTerm out;
  std::vector<double> before;
  before.reserve(obs.size());
  for (const Obs& o : obs)
    before.push_back(ape_pct(-o.r));
  out.loo_before_pct = median(before);
  double best = -1.0;       // the chosen term count's mean |ln error| leave-one-out
  double best_median = 0.0; // and its median APE, the figure the tables report
  int best_terms = 0;
  loo_log.assign(obs.size(), 0.0);
  for (int terms = 0; terms <= k_max_terms; ++terms) {
    if (static_cast<std::size_t>(terms) + 2 > obs.size()) break; // LOO needs a spare run
    std::vector<double> errors, predicted;
    double log_sum = 0.0;
    for (std::size_t i = 0; i < obs.size(); ++i) {
      std::vector<Obs> rest;
      for (std::size_t j = 0; j < obs.size(); ++j)
        if (j != i) rest.push_back(obs[j]);
      ResidualTerm t;
      t.coefficients = least_squares(rest, terms);
      predicted.push_back(residual_log(t, obs[i].lc, obs[i].li));
      errors.push_back(ape_pct(predicted.back() - obs[i].r));
      log_sum += std::abs(predicted.back() - obs[i].r);
    }
    // The terms are chosen on the mean |ln error|, not the median: with five runs a median ignores
    // two runs a richer model extrapolates badly to, which is what it then does to the rest.
    const double e = log_sum / static_cast<double>(obs.size());
    if (best < 0.0 || e < k_richer_gain * best) {
      best = e;
      best_median = median(errors);
      best_terms = terms;
      loo_log = predicted;
    }
  }
  out.coefficients = least_squares(obs, best_terms);
  out.loo_after_pct = best_terms == 0 ? out.loo_before_pct : best_median;
  return out;
}

using ScopeKey = std::tuple<std::string, std::string, std::string, int, int, int>;

} // namespace

std::vector<StackResidual> fit_residuals(const std::vector<StackRun>& runs, const Gpu& runtime,
                                         const EngineConfig& engine) {
  std::map<ScopeKey, std::vector<std::size_t>> scopes;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const StackRun& r = runs[i];
    if (r.run.engine == "training") continue;
    const std::vector<ValidationCase> cases = stack_cases(r);
    if (cases.empty()) continue;
    const Deployment& d = cases.front().deployment;
    if (d.attention_dp > 1) continue;
    scopes[{r.model.name, std::string(format_info(cases.front().precision.weights).name), r.run.engine, d.tp,
            d.pp, d.ep}]
        .push_back(i);
  }
  std::vector<StackResidual> out;
  for (const auto& [key, members] : scopes) {
    if (static_cast<int>(members.size()) < k_min_residual_runs) continue;
    StackResidual s;
    std::tie(s.model, s.weights, s.engine, s.tp, s.pp, s.ep) = key;
    s.runs = static_cast<int>(members.size());
    s.concurrency_min = s.input_min = 1e300;
    s.concurrency_max = s.input_max = 0.0;
    std::vector<Obs> ttft, tpot;
    for (const std::size_t index : members) {
      const StackRun* r = &runs[index];
      const double c = static_cast<double>(std::max<std::int64_t>(1, r->run.concurrency));
      const double isl = static_cast<double>(std::max<std::int64_t>(1, r->run.input_tokens));
      s.concurrency_min = std::min(s.concurrency_min, c);
      s.concurrency_max = std::max(s.concurrency_max, c);
      s.input_min = std::min(s.input_min, isl);
      s.input_max = std::max(s.input_max, isl);
      for (const ValidationCase& vc : stack_cases(*r)) {
        if (vc.kind != FigureKind::ttft && vc.kind != FigureKind::tpot) continue;
        const double predicted = predict_case(vc, runtime, engine);
        if (!(predicted > 0.0) || !(vc.measured > 0.0)) continue;
        (vc.kind == FigureKind::ttft ? ttft : tpot)
            .push_back({std::log(vc.measured / predicted), std::log(c), std::log(isl)});
      }
    }
    std::vector<double> loo_log;
    if (static_cast<int>(ttft.size()) >= k_min_residual_runs) s.ttft = select_term(ttft, loo_log);
    if (static_cast<int>(tpot.size()) >= k_min_residual_runs) s.tpot = select_term(tpot, loo_log);
    if (!s.ttft.coefficients.empty() || !s.tpot.coefficients.empty()) out.push_back(std::move(s));
  }
  return out;
}

} // namespace rightsize
