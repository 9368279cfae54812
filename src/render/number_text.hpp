#pragma once
// Numbers as sweep rows print them, written at a raw pointer: the hot path of a CSV sweep writes a
// row's figure cells into room reserved once (render/sweep_rows.cpp).
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace rightsize::cli {

/// Appends `text` to a row or sentence buffer in one copy.
inline void put(fmt::memory_buffer& out, std::string_view text) {
  out.append(text.data(), text.data() + text.size());
}

/// Appends fmt "{:.Nf}" of `value` (N = `decimals`, 0 to 3): the digits straight from the scaled,
/// rounded value where no rounding tie is near, fmt's own text otherwise (the sentences of a sweep's
/// status column, render/term_words.cpp).
void put_fixed(fmt::memory_buffer& out, double value, int decimals);

/// An integer's decimal text at `at` (at most 20 characters); returns the end.
char* write_int(char* at, std::int64_t value);

/// Equal to fmt "{}" of the value rounded to 6 significant digits (shortest form, exponent below
/// 1e-4 and from 1e16) without its log10/pow, at `at` (at most 17 characters, and the 17 from `at`
/// may be written as scratch: the caller's room must hold them; nothing for a non-finite value);
/// returns the end.
char* write_number(char* at, double value);

} // namespace rightsize::cli
