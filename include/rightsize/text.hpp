#pragma once
// Small text helpers shared by every layer (the core builds its assumption strings with them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

/// An integer with thousands separators: 8030261248 -> "8,030,261,248".
std::string with_commas(std::int64_t value);

/// Byte offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, surrogates or
/// code points past U+10FFFF), or npos when `text` is valid UTF-8.
std::size_t invalid_utf8_at(std::string_view text);

/// ASCII lower-case copy, for case-insensitive names (GPU ids, formats, did-you-mean).
std::string to_lower(std::string_view text);

/// The items with `separator` between them: {"a", "b"} -> "a, b".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

} // namespace rightsize
