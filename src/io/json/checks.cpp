#include "io/json/checks.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rightsize::io {
namespace {

std::string max_text(double max) {
  if (max >= 1e6 && max == std::floor(max) && max < 9e15) {
    return with_commas(static_cast<std::int64_t>(max));
  }
  return fmt::format("{:g}", max);
}

[[noreturn]] void too_large(const JsonReader& value, const std::string& expectation, double max,
                            std::string_view noun) {
  value.fail(fmt::format("expected {} at most {} (more {} is absurd), got {}", expectation, max_text(max),
                         noun, describe_value(value.value())));
}

} // namespace

std::int64_t positive_count(const JsonReader& value, std::int64_t max, std::string_view noun) {
  const auto& v = value.value();
  const bool integral =
      v.is_number() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>();
  if (!integral || v.get<double>() < 1.0) {
    value.fail("expected a positive integer, got " + describe_value(v));
  }
  if (v.get<double>() > static_cast<double>(max))
    too_large(value, "a positive integer", static_cast<double>(max), noun);
  return static_cast<std::int64_t>(v.get<double>());
}

std::int64_t non_negative_count(const JsonReader& value, std::int64_t max, std::string_view noun) {
  const auto& v = value.value();
  const bool integral =
      v.is_number() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>();
  if (!integral || v.get<double>() < 0.0) {
    value.fail("expected a non-negative integer, got " + describe_value(v));
  }
  if (v.get<double>() > static_cast<double>(max)) {
    too_large(value, "a non-negative integer", static_cast<double>(max), noun);
  }
  return static_cast<std::int64_t>(v.get<double>());
}

double positive_amount(const JsonReader& value, double max, std::string_view noun) {
  const auto& v = value.value();
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0) {
    value.fail("expected a positive number, got " + describe_value(v));
  }
  if (v.get<double>() > max) too_large(value, "a positive number", max, noun);
  return v.get<double>();
}

double rate_in(const JsonReader& value, const RateRange& range) {
  const double v = positive_amount(value, range.max, range.noun);
  if (v < range.min) {
    value.fail(fmt::format("expected at least {:g} {} (a lower rate makes every cost per request absurd; "
                           "accepted: {:g} to {}), got {}",
                           range.min, range.noun, range.min, max_text(range.max),
                           describe_value(value.value())));
  }
  return v;
}

double amount_in(const JsonReader& value, double min, double max) {
  const auto& v = value.value();
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < min || v.get<double>() > max) {
    value.fail(fmt::format("expected a number from {:g} to {:g}, got {}", min, max, describe_value(v)));
  }
  return v.get<double>();
}

} // namespace rightsize::io
