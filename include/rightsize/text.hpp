#pragma once
// Small text helpers shared by every layer (the core builds its assumption strings with them).
#include <cstdint>
#include <string>

namespace rightsize {

/// An integer with thousands separators: 8030261248 -> "8,030,261,248".
std::string with_commas(std::int64_t value);

} // namespace rightsize
