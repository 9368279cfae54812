// Numbers as sweep rows print them, written through a raw pointer (docs/sweep.md "Columns").
#include "render/number_text.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rightsize::cli {
namespace {

// 10^k: exact from a table for |k| <= 22, std::pow beyond (rare: values outside 1e-17..1e27).
double pow10(int k) {
  static constexpr double table[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  static constexpr double inverse[] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                       1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                       1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
  if (k >= 0 && k <= 22) return table[k];
  if (k < 0 && k >= -22) return inverse[-k];
  return std::pow(10.0, k);
}

} // namespace

char* write_int(char* at, std::int64_t value) {
  char text[24];
  char* end = text + sizeof text;
  char* p = end;
  const bool negative = value < 0;
  auto v = negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) *--p = '-';
  return std::copy(p, end, at);
}

char* write_number(char* at, double value) {
  if (!std::isfinite(value)) return at;
  if (value == 0.0) {
    *at++ = '0';
    return at;
  }
  char* p = at;
  if (value < 0.0) *p++ = '-';
  const double a = std::fabs(value);
  // Decimal exponent: from the binary one (floor(e2 · log10 2) as (e2 · 78913) >> 18), then fixed up.
  const int e2 = static_cast<int>((std::bit_cast<std::uint64_t>(a) >> 52) & 0x7ff) - 1023;
  int e10 = (e2 * 78913) >> 18;
  if (a >= pow10(e10 + 1)) ++e10;
  if (a < pow10(e10)) --e10;
  std::int64_t m = std::llround(e10 <= 5 ? a * pow10(5 - e10) : a / pow10(e10 - 5));
  if (m >= 1'000'000) { // rounded up to the next decade
    m /= 10;
    ++e10;
  }
  char digits[6];
  for (int i = 5; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + m % 10);
    m /= 10;
  }
  int n = 6;
  while (n > 1 && digits[n - 1] == '0')
    --n;
  if (e10 < -4 || e10 >= 16) {
    *p++ = digits[0];
    if (n > 1) *p++ = '.';
    for (int i = 1; i < n; ++i)
      *p++ = digits[i];
    *p++ = 'e';
    *p++ = e10 < 0 ? '-' : '+';
    const int e = e10 < 0 ? -e10 : e10;
    if (e >= 100) *p++ = static_cast<char>('0' + e / 100);
    *p++ = static_cast<char>('0' + e / 10 % 10);
    *p++ = static_cast<char>('0' + e % 10);
  } else if (e10 >= 0) {
    for (int i = 0; i <= e10; ++i)
      *p++ = i < n ? digits[i] : '0';
    if (n > e10 + 1) *p++ = '.';
    for (int i = e10 + 1; i < n; ++i)
      *p++ = digits[i];
  } else {
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -e10 - 1; ++i)
      *p++ = '0';
    for (int i = 0; i < n; ++i)
      *p++ = digits[i];
  }
  return p;
}

} // namespace rightsize::cli
