#pragma once
// Small numeric helpers shared by the core's translation units (one definition, not one per file).
#include <cstdint>

namespace rightsize::core {

/// A count (every count in a spec is an int64) as the double the formulas use.
constexpr double d(std::int64_t v) {
  return static_cast<double>(v);
}

} // namespace rightsize::core
