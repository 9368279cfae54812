// Request lengths and burstiness (docs/model-spec.md "Length distributions", methodology §3.1
// "Request lengths").
#include "io/spec/length_io.hpp"

#include <cmath>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "rightsize/length_spread.hpp"

namespace rightsize::io {
namespace {

std::int64_t rounded_mean(const JsonReader& at, double mean, std::int64_t max_tokens) {
  const auto tokens = static_cast<std::int64_t>(std::llround(mean));
  if (tokens < 1 || tokens > max_tokens)
    at.fail(fmt::format("expected a mean of 1 to {} tokens, got {:g}", max_tokens, mean));
  return tokens;
}

// {"mean", "p50", "p99"}: the lognormal through p50 and p99; with one of them, the lognormal of
// that mean through it.
std::int64_t read_percentiles(const JsonReader& v, LengthSpread& spread, std::int64_t max_tokens) {
  v.expect_keys({"mean", "p50", "p99"});
  const double mean = v.at("mean").as_positive(static_cast<double>(max_tokens));
  const auto p50 = v.find("p50");
  const auto p99 = v.find("p99");
  if (!p50 && !p99) v.fail("expected p50, p99 or both beside the mean (or a \"distribution\")");
  const double limit = static_cast<double>(max_tokens);
  spread.shape = LengthShape::percentiles;
  if (p50 && p99) {
    spread.p50_tokens = p50->as_positive(limit);
    spread.p99_tokens = p99->as_positive(limit);
    if (spread.p99_tokens < spread.p50_tokens)
      p99->fail(
          fmt::format("expected p99 at least p50 ({:g}), got {:g}", spread.p50_tokens, spread.p99_tokens));
  } else if (p50) {
    // Lognormal of this mean and median: σ = √(2 ln(mean / p50)).
    spread.p50_tokens = p50->as_positive(limit);
    if (spread.p50_tokens > mean)
      p50->fail(
          fmt::format("expected p50 at most the mean ({:g}) without a p99 (a lognormal's median is below "
                      "its mean), got {:g}",
                      mean, spread.p50_tokens));
    const double sigma = std::sqrt(2.0 * std::log(mean / spread.p50_tokens));
    spread.p99_tokens = load::lognormal_quantile(spread.p50_tokens, sigma, 0.99);
  } else {
    spread.p99_tokens = p99->as_positive(limit);
    const double sigma = load::lognormal_sigma_from_mean_p99(mean, spread.p99_tokens);
    if (sigma < 0.0)
      p99->fail(
          fmt::format("expected p99 at most 14.9 × the mean without a p50 (no lognormal has a p99 further "
                      "out), got {:g}",
                      spread.p99_tokens));
    spread.p50_tokens = sigma > 0.0 ? mean * std::exp(-0.5 * sigma * sigma) : mean;
    if (sigma <= 0.0) spread.p99_tokens = mean;
  }
  if (spread.p99_tokens < mean)
    v.at("mean").fail(
        fmt::format("expected a mean at most the p99 ({:g}), got {:g}", spread.p99_tokens, mean));
  if (spread.p99_tokens > limit)
    v.fail(fmt::format("expected a p99 of at most {} tokens, got {:g}", max_tokens, spread.p99_tokens));
  return rounded_mean(v.at("mean"), mean, max_tokens);
}

std::int64_t read_named(const JsonReader& v, LengthSpread& spread, std::int64_t max_tokens) {
  const std::string name = v.at("distribution").as_choice({"lognormal", "exponential", "uniform"});
  const double limit = static_cast<double>(max_tokens);
  double mean = 0.0;
  load::LengthPercentiles p;
  if (name == "lognormal") {
    v.expect_keys({"distribution", "mean", "sigma"});
    mean = v.at("mean").as_positive(limit);
    p = load::lognormal_percentiles(mean, v.at("sigma").as_number(0.0, 3.0));
    spread.shape = LengthShape::lognormal;
  } else if (name == "exponential") {
    v.expect_keys({"distribution", "mean"});
    mean = v.at("mean").as_positive(limit);
    p = load::exponential_percentiles(mean);
    spread.shape = LengthShape::exponential;
  } else {
    v.expect_keys({"distribution", "min", "max"});
    const double lo = v.at("min").as_positive(limit);
    const double hi = v.at("max").as_positive(limit);
    if (hi < lo) v.at("max").fail(fmt::format("expected max at least min ({:g}), got {:g}", lo, hi));
    mean = 0.5 * (lo + hi);
    p = load::uniform_percentiles(lo, hi);
    spread.shape = LengthShape::uniform;
  }
  if (p.p99 > limit)
    v.fail(fmt::format("expected a p99 of at most {} tokens, got {:.0f} from this distribution", max_tokens,
                       p.p99));
  spread.p50_tokens = p.p50;
  spread.p99_tokens = p.p99;
  return rounded_mean(v, mean, max_tokens);
}

} // namespace

std::int64_t read_length(const JsonReader& value, LengthSpread& spread, std::int64_t max_tokens) {
  spread = LengthSpread{};
  if (!value.is_object()) return positive_count(value, max_tokens, "tokens");
  return value.find("distribution") ? read_named(value, spread, max_tokens)
                                    : read_percentiles(value, spread, max_tokens);
}

double read_burstiness(const JsonReader& value) {
  // Gamma inter-arrival times of shape k have CV 1/√k (vLLM bench serve --burstiness).
  const double shape = value.as_number(0.01, 100.0);
  if (!(shape > 0.0))
    value.fail("expected a gamma shape above 0 (1 = Poisson), got " + fmt::format("{:g}", shape));
  return 1.0 / std::sqrt(shape);
}

} // namespace rightsize::io
