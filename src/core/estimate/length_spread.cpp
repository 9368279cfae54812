// Request-length spreads (docs/methodology.md §3.1 "Request lengths"): lognormal lengths through
// p50 and p99, the prefill-time curve, its moments and the quantiles of prefill plus queue wait.
#include "rightsize/length_spread.hpp"

#include <algorithm>
#include <cmath>

#include "rightsize/load_model.hpp"

namespace rightsize::load {
namespace {

constexpr double k_z_span = 6.0; // the lognormal's z is integrated over [−6, 6]
constexpr double k_z_step = 2.0 * k_z_span / static_cast<double>(LengthGrid::k_nodes - 1); // 1/4
constexpr double k_inv_sqrt_2pi = 0.3989422804014327;

double normal_pdf(double z) {
  return k_inv_sqrt_2pi * std::exp(-0.5 * z * z);
}
double normal_upper_tail(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}
double node_z(int i) {
  return -k_z_span + k_z_step * static_cast<double>(i);
}

// φ at the grid's nodes (the same for every grid).
const std::array<double, LengthGrid::k_nodes>& node_pdf() {
  static const std::array<double, LengthGrid::k_nodes> pdf = [] {
    std::array<double, LengthGrid::k_nodes> out{};
    for (int i = 0; i < LengthGrid::k_nodes; ++i)
      out[static_cast<std::size_t>(i)] = normal_pdf(node_z(i));
    return out;
  }();
  return pdf;
}

} // namespace

double lognormal_sigma(double p50, double p99) {
  if (!(p50 > 0.0) || !(p99 > p50)) return 0.0;
  return std::log(p99 / p50) / normal_quantile(0.99);
}

double lognormal_quantile(double p50, double sigma, double q) {
  return p50 * std::exp(sigma * normal_quantile(q));
}

double lognormal_cv(double sigma) {
  return std::sqrt(std::expm1(sigma * sigma));
}

LengthPercentiles lognormal_percentiles(double mean, double sigma) {
  const double p50 = mean * std::exp(-0.5 * sigma * sigma);
  return {p50, lognormal_quantile(p50, sigma, 0.99)};
}

LengthPercentiles exponential_percentiles(double mean) {
  return {mean * std::log(2.0), mean * std::log(100.0)};
}

LengthPercentiles uniform_percentiles(double min, double max) {
  return {0.5 * (min + max), min + 0.99 * (max - min)};
}

double lognormal_sigma_from_mean_p99(double mean, double p99) {
  if (!(mean > 0.0) || !(p99 > mean)) return 0.0;
  const double z = normal_quantile(0.99);
  const double disc = z * z - 2.0 * std::log(p99 / mean);
  return disc < 0.0 ? -1.0 : z - std::sqrt(disc);
}

void ServiceCurve::add(double at_tokens, double at_seconds) {
  if (points >= 3 || !(at_tokens > 0.0)) return;
  for (int i = 0; i < points; ++i)
    if (tokens[i] == at_tokens) return;
  int i = points++;
  for (; i > 0 && tokens[i - 1] > at_tokens; --i) {
    tokens[i] = tokens[i - 1];
    seconds[i] = seconds[i - 1];
  }
  tokens[i] = at_tokens;
  seconds[i] = at_seconds;
}

double ServiceCurve::at(double length_tokens) const {
  if (points == 0) return 0.0;
  const double through_origin = seconds[0] * length_tokens / tokens[0];
  if (points == 1) return through_origin;
  // The segment holding the length; beyond the ends, the nearest segment extended.
  int i = 0;
  while (i + 2 < points && length_tokens > tokens[i + 1])
    ++i;
  const double slope = (seconds[i + 1] - seconds[i]) / (tokens[i + 1] - tokens[i]);
  const double linear = seconds[i] + slope * (length_tokens - tokens[i]);
  // Below the first point the first segment's line keeps the fixed part a prompt pays whatever
  // its length, but never falls under the line through the origin.
  return length_tokens < tokens[0] ? std::max(linear, through_origin) : std::max(0.0, linear);
}

double ServiceCurve::length_at(double at_seconds) const {
  if (points == 0 || !(at_seconds > 0.0) || !(seconds[0] > 0.0)) return -1.0;
  if (points == 1) return at_seconds * tokens[0] / seconds[0];
  for (int i = 0; i + 1 < points; ++i)
    if (!(seconds[i + 1] > seconds[i])) return -1.0; // a flat or falling segment: no single inverse
  const auto slope = [&](int i) { return (seconds[i + 1] - seconds[i]) / (tokens[i + 1] - tokens[i]); };
  if (at_seconds <= seconds[0]) {
    // at() is the larger of the first segment's line and the origin's: its inverse the smaller.
    return std::min(at_seconds * tokens[0] / seconds[0], tokens[0] + (at_seconds - seconds[0]) / slope(0));
  }
  int i = 0;
  while (i + 2 < points && at_seconds > seconds[i + 1])
    ++i;
  return tokens[i] + (at_seconds - seconds[i]) / slope(i);
}

LengthGrid::LengthGrid(double p50_tokens, double shape) : p50(p50_tokens), sigma(shape) {
  for (int i = 0; i < k_nodes; ++i)
    tokens[static_cast<std::size_t>(i)] = p50 * std::exp(sigma * node_z(i));
}

ServiceMoments service_moments(const ServiceCurve& curve, const LengthGrid& grid) {
  const auto& pdf = node_pdf();
  double weights = 0.0, first = 0.0, second = 0.0;
  for (std::size_t i = 0; i < grid.tokens.size(); ++i) {
    const double w = pdf[i] * ((i == 0 || i + 1 == grid.tokens.size()) ? 0.5 : 1.0);
    const double s = curve.at(grid.tokens[i]);
    weights += w;
    first += w * s;
    second += w * s * s;
  }
  ServiceMoments m;
  if (weights <= 0.0) return m;
  m.mean_s = first / weights;
  const double variance = std::max(0.0, second / weights - m.mean_s * m.mean_s);
  m.cv = m.mean_s > 0.0 ? std::sqrt(variance) / m.mean_s : 0.0;
  return m;
}

PrefillWait::PrefillWait(const ServiceCurve& curve, const LengthGrid& grid, double mean_wait_s, double p_wait)
    : m_curve(&curve), m_grid(&grid), m_mean_wait_s(std::max(0.0, mean_wait_s)),
      m_p_wait(std::clamp(p_wait, 0.0, 1.0)), m_theta(m_p_wait > 0.0 ? m_mean_wait_s / m_p_wait : 0.0) {
  const auto& pdf = node_pdf();
  // Σ_{j≤i} φ_j e^((S_j − S_i)/θ): each step rescales the sum to the new node's S (S rises with i,
  // so the factor is at most 1 and nothing overflows).
  double scaled = 0.0;
  for (std::size_t i = 0; i < grid.tokens.size(); ++i) {
    m_service[i] = curve.at(grid.tokens[i]);
    if (m_theta > 0.0 && i > 0)
      scaled *= std::exp(std::min(0.0, (m_service[i - 1] - m_service[i]) / m_theta));
    scaled += pdf[i];
    m_scaled_prefix[i] = scaled;
  }
}

// The z where S(L(z)) = t, clamped to [−6, 6]: the curve inverted, else bisection.
double PrefillWait::z_at(double t) const {
  const double length = m_curve->length_at(t);
  if (length > 0.0) return std::clamp(std::log(length / m_grid->p50) / m_grid->sigma, -k_z_span, k_z_span);
  double lo = -k_z_span, hi = k_z_span;
  const auto service = [&](double z) { return m_curve->at(m_grid->p50 * std::exp(m_grid->sigma * z)); };
  if (service(lo) >= t) return lo;
  if (service(hi) <= t) return hi;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (service(mid) < t ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double PrefillWait::upper_tail(double t) const {
  const double z_star = z_at(t);
  double tail = z_star >= k_z_span ? 0.0 : normal_upper_tail(z_star);
  if (!(m_theta > 0.0) || z_star <= -k_z_span) return tail;
  // Nodes 0..k lie below z*: trapezoid over them (half weights at both ends, the first's φ is
  // negligible), then the part [z_k, z*], where the integrand rises to φ(z*) (S = t there).
  const int k =
      std::min(LengthGrid::k_nodes - 1, static_cast<int>(std::floor((z_star + k_z_span) / k_z_step)));
  const auto ki = static_cast<std::size_t>(k);
  const double decay = std::exp((m_service[ki] - t) / m_theta); // S_k ≤ t: at most 1
  const double f_k = node_pdf()[ki] * decay;
  const double inner = m_scaled_prefix[ki] * decay - 0.5 * f_k;
  const double edge = 0.5 * (z_star - node_z(k)) * (f_k + normal_pdf(z_star));
  return tail + m_p_wait * (k_z_step * std::max(0.0, inner) + edge);
}

double PrefillWait::quantile_s(double q) const {
  const double wait_q = wait_quantile_s(m_mean_wait_s, m_p_wait, q);
  const double service_q = m_curve->at(lognormal_quantile(m_grid->p50, m_grid->sigma, q));
  if (m_grid->sigma <= 0.0) return m_curve->at(m_grid->p50) + wait_q;
  if (!(m_theta > 0.0)) return service_q;
  const double target = 1.0 - q;
  double lo = std::max(service_q, wait_q);
  double hi = std::max(2.0 * lo, service_q + wait_q);
  double f_lo = upper_tail(lo) - target;
  double f_hi = upper_tail(hi) - target;
  for (int i = 0; i < 60 && f_hi > 0.0; ++i) {
    lo = hi;
    f_lo = f_hi;
    hi *= 2.0;
    f_hi = upper_tail(hi) - target;
  }
  if (f_lo <= 0.0) return lo;
  // Regula falsi with the Illinois step (the retained end's value halved): the excess falls from
  // f_lo > 0 to f_hi ≤ 0 across [lo, hi].
  int side = 0;
  for (int i = 0; i < 100 && hi - lo > 1e-6 * hi; ++i) {
    double t = hi - f_hi * (hi - lo) / (f_hi - f_lo);
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    const double f = upper_tail(t) - target;
    if (f > 0.0) {
      lo = t;
      f_lo = f;
      if (side == -1) f_hi *= 0.5;
      side = -1;
    } else {
      hi = t;
      f_hi = f;
      if (side == 1) f_lo *= 0.5;
      side = 1;
    }
  }
  return 0.5 * (lo + hi);
}

double sum_quantile_s(const ServiceCurve& curve, double p50, double sigma, double mean_wait_s, double p_wait,
                      double q) {
  const LengthGrid grid(p50, sigma);
  return PrefillWait(curve, grid, mean_wait_s, p_wait).quantile_s(q);
}

} // namespace rightsize::load
