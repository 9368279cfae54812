// A calibrate overlay's residual applied to one estimate (docs/calibration.md "Residuals",
// methodology §3.4.1): the factors a user's runs fit leave a figure off in a way that
// follows the load or the prompt; the overlay carries ln(measured / predicted) = a + b·ln(C) +
// c·ln(ISL) per stack, and the estimate of that stack takes exp(·) on its TTFT or TPOT.
#include <algorithm>
#include <cmath>

#include "rightsize/inference.hpp"

namespace rightsize {
namespace {

const StackResidual* residual_of(const Gpu& gpu, const PreparedModel& pm, const Deployment& dep,
                                 const EngineConfig& engine) {
  if (engine.kind.empty()) return nullptr;
  const std::string_view weights = format_info(pm.precision.weights).name;
  for (const StackResidual& r : gpu.residuals) {
    if (r.model == pm.model.name && r.weights == weights && r.engine == engine.kind && r.tp == dep.tp &&
        r.pp == dep.pp && r.ep == dep.ep && dep.attention_dp == 1)
      return &r;
  }
  return nullptr;
}

bool within_reach(double x, double lo, double hi) {
  return x >= lo / k_residual_reach && x <= hi * k_residual_reach;
}

void scale(Percentiles& p, double k) {
  p.p50_s *= k;
  p.p90_s *= k;
  p.p99_s *= k;
}

} // namespace

double residual_log(const ResidualTerm& term, double ln_concurrency, double ln_input) {
  const double x[3] = {1.0, ln_concurrency, ln_input};
  double r = 0.0;
  for (std::size_t i = 0; i < term.coefficients.size() && i < 3; ++i)
    r += term.coefficients[i] * x[i];
  return r;
}

void apply_stack_residual(const PreparedModel& pm, const Gpu& gpu, const Deployment& dep,
                          const EngineConfig& engine, const InferenceWorkload& w, InferenceEstimate& est) {
  const StackResidual* r = residual_of(gpu, pm, dep, engine);
  if (r == nullptr) return;
  const double c = static_cast<double>(std::max<std::int64_t>(1, est.concurrency));
  const double isl = static_cast<double>(std::max<std::int64_t>(1, w.input_tokens));
  if (!within_reach(c, r->concurrency_min, r->concurrency_max) ||
      !within_reach(isl, r->input_min, r->input_max)) {
    est.residual.outside_range = true;
    return;
  }
  const double lc = std::log(std::clamp(c, r->concurrency_min, r->concurrency_max));
  const double li = std::log(std::clamp(isl, r->input_min, r->input_max));
  const double k_ttft = std::exp(residual_log(r->ttft, lc, li));
  const double k_tpot = std::exp(residual_log(r->tpot, lc, li));
  est.residual = {k_ttft, k_tpot, true, false};
  // e2e = TTFT + (OSL − 1)·TPOT (methodology §3.1): each part takes its own multiplier.
  const double rest_s = std::max(0.0, est.e2e_s - est.ttft_s);
  const double e2e_new_s = est.ttft_s * k_ttft + rest_s * k_tpot;
  const double e2e_ratio = est.e2e_s > 0.0 ? e2e_new_s / est.e2e_s : 1.0;
  est.ttft_s *= k_ttft;
  est.tpot_s *= k_tpot;
  est.e2e_s = e2e_new_s;
  scale(est.ttft, k_ttft);
  scale(est.tpot, k_tpot);
  scale(est.e2e, e2e_ratio);
  // A closed loop serves C requests per e2e: its throughput follows the e2e (an open loop's is its
  // arrival rate, set after).
  if (!est.open_loop && e2e_ratio > 0.0) {
    est.output_tokens_per_s /= e2e_ratio;
    est.requests_per_s /= e2e_ratio;
    est.capacity_output_tokens_per_s /= e2e_ratio;
    est.capacity_requests_per_s /= e2e_ratio;
  }
}

} // namespace rightsize
