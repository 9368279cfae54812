// Request-length spreads in the arrival model (docs/methodology.md §3.1 "Request lengths"): the
// prefill-time curve of one estimate's prompts and the percentiles it moves.
#include <algorithm>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"
#include "rightsize/load_model.hpp"

namespace rightsize::detail {

Spread spread_of(const InferenceWorkload& w) {
  Spread out;
  if (w.output_spread.varies()) {
    out.out_p50 = w.output_spread.p50_tokens;
    out.out_sigma = load::lognormal_sigma(w.output_spread.p50_tokens, w.output_spread.p99_tokens);
  }
  if (!w.input_spread.varies()) return out;
  out.prompt = true;
  out.grid = load::LengthGrid(w.input_spread.p50_tokens,
                              load::lognormal_sigma(w.input_spread.p50_tokens, w.input_spread.p99_tokens));
  return out;
}

void set_curve(Spread& sp, const Setup& s, const InferenceWorkload& w, double mixed_rows,
               double service_at_mean_s, const OpenStep* step) {
  // The curve moves with the rows of the mixed step only (and the mean prompt's service with them).
  // An open loop's curve moves with its step as well (the carrier step and the decode under it).
  const double step_key =
      step != nullptr ? step->carrier_s + step->decode.compute_s + step->decode.memory_s : -1.0;
  if (!sp.prompt || (mixed_rows == sp.curve_rows && step_key == sp.curve_step &&
                     service_at_mean_s == sp.curve.at(d(w.input_tokens))))
    return;
  sp.curve_rows = mixed_rows;
  sp.curve_step = step_key;
  // A prompt of L tokens prefills what the cached prefix leaves of it (methodology §3.9).
  const double isl = d(w.input_tokens);
  const double cached_part = isl - new_prompt_tokens(s, w);
  const auto service_of = [&](double length) {
    const double fresh = std::max(1.0, length - cached_part);
    return step != nullptr ? step->prompt_s(s, fresh)
                           : prefill_time(s, fresh, mixed_rows, s.cached_tokens).total_s;
  };
  sp.curve = load::ServiceCurve{};
  sp.curve.add(isl, service_at_mean_s);
  sp.curve.add(w.input_spread.p50_tokens, service_of(w.input_spread.p50_tokens));
  sp.curve.add(w.input_spread.p99_tokens, service_of(w.input_spread.p99_tokens));
  sp.service_cv = load::service_moments(sp.curve, sp.grid).cv;
}

std::array<double, 3> Spread::ttft_quantiles_s(double service_s, double mean_wait_s, double p_wait) const {
  std::array<double, 3> out{};
  if (!prompt) {
    for (std::size_t k = 0; k < out.size(); ++k)
      out[k] = service_s + load::wait_quantile_s(mean_wait_s, p_wait, k_quantiles[k]);
    return out;
  }
  const load::PrefillWait sum(curve, grid, mean_wait_s, p_wait);
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = sum.quantile_s(k_quantiles[k]);
  return out;
}

double Spread::output_tokens(double mean_tokens, double q) const {
  return out_sigma > 0.0 ? load::lognormal_quantile(out_p50, out_sigma, q) : mean_tokens;
}

} // namespace rightsize::detail
