#pragma once
// Request-length spreads and what they do to the queue (docs/methodology.md §3.1 "Request
// lengths"): a length L is lognormal through its p50 and p99; a prompt's prefill time S(L) is
// piecewise linear through its value at up to three lengths; the first-token time is S + W with W
// the queue's wait. Pure and allocation-free.
#include <array>
#include <cstdint>

namespace rightsize::load {

/// σ of the lognormal through a length's p50 and p99: ln(p99 / p50) / Φ⁻¹(0.99); 0 when p99 ≤ p50
/// or p50 ≤ 0 (a fixed length).
double lognormal_sigma(double p50, double p99);

/// Quantile q of the lognormal (p50, σ): p50 · exp(σ · Φ⁻¹(q)) (normal_quantile's table).
double lognormal_quantile(double p50, double sigma, double q);

/// Coefficient of variation (sd / mean) of a lognormal of shape σ: √(exp(σ²) − 1).
double lognormal_cv(double sigma);

/// The p50 and p99 of named distributions of mean `mean` (docs/model-spec.md "Length
/// distributions"): lognormal of shape σ (p50 = mean · exp(−σ²/2)), exponential (p50 = mean · ln 2,
/// p99 = mean · ln 100) and uniform on [min, max] (p50 = (min + max)/2, p99 = min + 0.99 · (max − min)).
struct LengthPercentiles {
  double p50 = 0.0, p99 = 0.0;
};
LengthPercentiles lognormal_percentiles(double mean, double sigma);
LengthPercentiles exponential_percentiles(double mean);
LengthPercentiles uniform_percentiles(double min, double max);

/// σ of the lognormal of mean `mean` whose p99 is `p99` (p50 not given): the smaller root of
/// σ²/2 − z·σ + ln(p99 / mean) = 0, z = Φ⁻¹(0.99); 0 when p99 ≤ mean; negative when no lognormal
/// has them (p99 / mean above exp(z²/2) ≈ 14.9).
double lognormal_sigma_from_mean_p99(double mean, double p99);

/// A prompt's prefill time against its length: piecewise linear through up to three points
/// (sorted by length), through the origin below the first, the last segment's slope beyond.
struct ServiceCurve {
  int points = 0;
  double tokens[3] = {0.0, 0.0, 0.0};
  double seconds[3] = {0.0, 0.0, 0.0};
  /// Adds a point (ignored when its length is already there); keeps the points sorted.
  void add(double at_tokens, double at_seconds);
  [[nodiscard]] double at(double length_tokens) const;
  /// The length whose prefill takes `at_seconds` (at()'s inverse); −1 when a segment does not rise.
  [[nodiscard]] double length_at(double at_seconds) const;
};

/// The lognormal (p50, σ) on the fixed grid z_i = −6 + i/4, i = 0..48: its lengths p50 · e^(σ z_i)
/// (the integrals below run over it by the trapezoid rule).
struct LengthGrid {
  static constexpr int k_nodes = 49;
  double p50 = 0.0, sigma = 0.0;
  std::array<double, k_nodes> tokens{};
  LengthGrid() = default;
  LengthGrid(double p50_tokens, double shape);
};

/// Mean and coefficient of variation of S(L) over the grid's lognormal: E[S] and
/// √(E[S²] − E[S]²) / E[S] by the trapezoid rule over z in [−6, 6], step 1/4.
struct ServiceMoments {
  double mean_s = 0.0, cv = 0.0;
};
ServiceMoments service_moments(const ServiceCurve& curve, const LengthGrid& grid);

/// T = S(L) + W for L on `grid`, W independent of it: 0 with probability 1 − p_wait, else
/// exponential of mean θ = mean_wait_s / p_wait (wait_quantile_s's tail). P(T > t) = P(S > t) +
/// p_wait · ∫_{S(L(z)) ≤ t} e^(−(t − S)/θ) φ(z) dz: the first term by inverting the curve, the
/// second by the trapezoid rule on the grid with its running sums of φ·e^(S/θ), each scaled to its
/// own node's e^(S/θ) (no overflow at any θ), so each t costs a few transcendental calls.
class PrefillWait {
public:
  PrefillWait(const ServiceCurve& curve, const LengthGrid& grid, double mean_wait_s, double p_wait);
  /// P(T > t).
  [[nodiscard]] double upper_tail(double t) const;
  /// Quantile q of T: regula falsi (Illinois) between the larger part's own quantile (a lower bound)
  /// and an upper end doubled until it holds.
  [[nodiscard]] double quantile_s(double q) const;

private:
  const ServiceCurve* m_curve;
  const LengthGrid* m_grid;
  double m_mean_wait_s, m_p_wait, m_theta;
  std::array<double, LengthGrid::k_nodes> m_service{};       ///< S at each node
  std::array<double, LengthGrid::k_nodes> m_scaled_prefix{}; ///< Σ_{j≤i} φ_j e^((S_j − S_i)/θ)
  [[nodiscard]] double z_at(double t) const;
};

/// Quantile q of S + W (PrefillWait) for a lognormal (p50, σ); σ = 0: S(p50) + the wait's quantile.
double sum_quantile_s(const ServiceCurve& curve, double p50, double sigma, double mean_wait_s, double p_wait,
                      double q);

} // namespace rightsize::load
