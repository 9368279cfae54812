// Goodput (docs/methodology.md §6 "Goodput", [DISTSERVE] §2): the share of requests within every
// latency target from each figure's percentiles, and the requests/s that meet them.
#include "rightsize/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace rightsize {
namespace {

// The share above x between two percentiles (qa, a) and (qb, b) on an exponential tail:
// (1 − qa)·((1 − qb)/(1 − qa))^((x − a)/(b − a)).
double tail_between(double x, double a, double qa, double b, double qb) {
  if (!(b > a)) return x >= b ? 1.0 - qb : 1.0 - qa;
  return (1.0 - qa) * std::pow((1.0 - qb) / (1.0 - qa), (x - a) / (b - a));
}

} // namespace

double share_within(double limit_s, double floor_s, const Percentiles& p) {
  if (!(limit_s >= 0.0)) return 0.0;
  if (limit_s < p.p50_s) {
    if (!(p.p50_s > floor_s) || limit_s <= floor_s) return 0.0;
    return 0.5 * (limit_s - floor_s) / (p.p50_s - floor_s);
  }
  if (limit_s < p.p90_s) return 1.0 - tail_between(limit_s, p.p50_s, 0.5, p.p90_s, 0.9);
  if (limit_s < p.p99_s) return 1.0 - tail_between(limit_s, p.p90_s, 0.9, p.p99_s, 0.99);
  // Beyond p99: tenfold less per (p99 − p90); nothing above a figure without spread.
  if (!(p.p99_s > p.p90_s)) return 1.0;
  return 1.0 - 0.01 * std::pow(0.1, (limit_s - p.p99_s) / (p.p99_s - p.p90_s));
}

Goodput goodput(const InferenceEstimate& point, const Sla& sla, const BandFactors& bands,
                const InferenceEstimate* slow_end) {
  // An open loop's requests at the band's slow end (methodology §3.5), served at the point's rate.
  const bool slow = slow_end != nullptr && point.open_loop && !point.overloaded;
  const InferenceEstimate& e = slow ? *slow_end : point;
  Goodput g;
  g.has_targets = sla.ttft_ms.has_value() || sla.tpot_ms.has_value() || sla.e2e_ms.has_value();
  g.ttft_limit_ms = sla.ttft_ms.value_or(0.0);
  g.tpot_limit_ms = sla.tpot_ms.value_or(0.0);
  g.e2e_limit_ms = sla.e2e_ms.value_or(0.0);
  const auto scaled = [](const Percentiles& p, double k) {
    return Percentiles{p.p50_s * k, p.p90_s * k, p.p99_s * k};
  };
  if (sla.ttft_ms)
    g.ttft_share = share_within(*sla.ttft_ms * 1e-3, e.ttft_floor_s, scaled(e.ttft, bands.ttft_high));
  if (sla.tpot_ms)
    g.tpot_share = share_within(*sla.tpot_ms * 1e-3, e.tpot_floor_s, scaled(e.tpot, bands.tpot_high));
  if (sla.e2e_ms) {
    // E2E ≈ TTFT + (OSL − 1)·TPOT: the decode part's tokens from the medians, its floor from the floors.
    const double tokens =
        e.tpot.p50_s > 0.0 ? std::max(0.0, (e.e2e.p50_s - e.ttft.p50_s) / e.tpot.p50_s) : 0.0;
    const Percentiles p{e2e_at_band(e.e2e.p50_s, e.ttft.p50_s, bands),
                        e2e_at_band(e.e2e.p90_s, e.ttft.p90_s, bands),
                        e2e_at_band(e.e2e.p99_s, e.ttft.p99_s, bands)};
    g.e2e_share = share_within(*sla.e2e_ms * 1e-3, e.ttft_floor_s + tokens * e.tpot_floor_s, p);
  }
  // Past capacity (at the point, or at the slow end) the queue grows without end: TTFT and E2E
  // unbounded, as judged, so no request is within their targets.
  g.overloaded_at_band = slow && slow_end->overloaded;
  if (g.overloaded_at_band || point.overloaded || e.overloaded) {
    if (sla.ttft_ms) g.ttft_share = 0.0;
    if (sla.e2e_ms) g.e2e_share = 0.0;
  }
  g.slo_attainment = point.overloaded || e.overloaded ? 0.0 : g.ttft_share * g.tpot_share * g.e2e_share;
  g.requests_per_s = point.requests_per_s * g.slo_attainment;
  return g;
}

} // namespace rightsize
