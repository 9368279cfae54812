#pragma once
// Range checks for spec values. Each failure is one input Error at the value's JSON pointer that
// states the expectation and quotes the value, e.g. "expected a positive integer at most 1,000
// (more layers is absurd), got 5000".
#include <cstdint>
#include <string>
#include <string_view>

#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/text.hpp"

namespace rightsize::io {

/// An integer in [1, max]; `noun` names the quantity in the "absurd" message ("layers").
std::int64_t positive_count(const JsonReader& value, std::int64_t max, std::string_view noun);
/// An integer in [0, max].
std::int64_t non_negative_count(const JsonReader& value, std::int64_t max, std::string_view noun);
/// A finite number > 0 and <= max.
double positive_amount(const JsonReader& value, double max, std::string_view noun);
/// A rate in [range.min, range.max] (a rate that divides a cost, RateRange); below the minimum the
/// message states the accepted range.
double rate_in(const JsonReader& value, const RateRange& range);
/// A finite number in [min, max].
double amount_in(const JsonReader& value, double min, double max);
/// 1234567 -> "1,234,567".

} // namespace rightsize::io
