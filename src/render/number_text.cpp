// Numbers as sweep rows print them, written through a raw pointer (docs/sweep.md "Columns").
#include "render/number_text.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

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

void put_fixed(fmt::memory_buffer& out, double value, int decimals) {
  // The fast path rounds value·10^N as computed: its error (a few ulp, below 1e-4 under 1e12) decides
  // the digit only within that distance of a tie, and there fmt's exact rounding of the binary value
  // is kept (fmt rounds exact ties to even; 0.25 → "0.2").
  const double scaled = std::fabs(value) * pow10(decimals);
  const double whole = std::floor(scaled);
  if (decimals < 0 || decimals > 3 || !(scaled < 1e12) || std::fabs(scaled - whole - 0.5) < 1e-3) {
    fmt::format_to(fmt::appender(out), "{:.{}f}", value, std::max(0, decimals));
    return;
  }
  auto units = static_cast<std::int64_t>(scaled - whole > 0.5 ? whole + 1.0 : whole);
  char text[32];
  char* p = text + sizeof text;
  for (int i = 0; i < decimals; ++i) {
    *--p = static_cast<char>('0' + units % 10);
    units /= 10;
  }
  if (decimals > 0) *--p = '.';
  do {
    *--p = static_cast<char>('0' + units % 10);
    units /= 10;
  } while (units != 0);
  if (std::signbit(value)) *--p = '-';
  out.append(p, text + sizeof text);
}

namespace {

// "00" .. "99": two digits per step (a division by 100 instead of two by 10).
constexpr char k_digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Decimal digits of v (1 for 0): from the bit length (bits · log10 2, as · 1233 >> 12), one
// comparison to fix it up.
int digit_count(std::uint64_t v) {
  static constexpr std::uint64_t k_powers[] = {1ULL,
                                               10ULL,
                                               100ULL,
                                               1000ULL,
                                               10000ULL,
                                               100000ULL,
                                               1000000ULL,
                                               10000000ULL,
                                               100000000ULL,
                                               1000000000ULL,
                                               10000000000ULL,
                                               100000000000ULL,
                                               1000000000000ULL,
                                               10000000000000ULL,
                                               100000000000000ULL,
                                               1000000000000000ULL,
                                               10000000000000000ULL,
                                               100000000000000000ULL,
                                               1000000000000000000ULL,
                                               10000000000000000000ULL};
  const auto bits = static_cast<int>(std::bit_width(v | 1U));
  const int guess = (bits * 1233) >> 12; // floor(log10(2^bits)), at most one short
  return guess + ((v | 1U) >= k_powers[static_cast<std::size_t>(guess)] ? 1 : 0); // 0: one digit
}

// Writes v's `n` digits ending at `end` (n = digit_count(v), or more for leading zeros), in 32-bit
// arithmetic (a division by 100 is a shorter multiply there).
void write_digits32(char* end, std::uint32_t v, int n) {
  while (n >= 2) {
    const auto pair = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    *--end = k_digit_pairs[pair + 1];
    *--end = k_digit_pairs[pair];
    n -= 2;
  }
  if (n == 1) *--end = static_cast<char>('0' + v % 10);
}

// The same for 64 bits: eight low digits at a time until the rest fits 32 bits (byte counts of
// 10+ digits).
void write_digits(char* end, std::uint64_t v, int n) {
  while (v > 0xffffffffU) {
    write_digits32(end, static_cast<std::uint32_t>(v % 100000000U), 8);
    v /= 100000000U;
    end -= 8;
    n -= 8;
  }
  write_digits32(end, static_cast<std::uint32_t>(v), n);
}

} // namespace

char* write_int(char* at, std::int64_t value) {
  const bool negative = value < 0;
  const auto v = negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  if (negative) *at++ = '-';
  const int n = digit_count(v);
  write_digits(at + n, v, n);
  return at + n;
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
  // A subnormal's exponent field is 0: its decimal exponent from log10 (values below 2.2e-308).
  int e10 = e2 > -1023 ? (e2 * 78913) >> 18 : static_cast<int>(std::floor(std::log10(a)));
  if (a >= pow10(e10 + 1)) ++e10;
  if (a < pow10(e10)) --e10;
  // The value scaled to six digits before the point; below 1e-300, 10^(5 - e10) overflows, so the
  // scaling takes two steps.
  const double scaled = e10 < -300 ? a * 1e300 * pow10(5 - e10 - 300)
                        : e10 <= 5 ? a * pow10(5 - e10)
                                   : a / pow10(e10 - 5);
  // Rounded half away from zero: the scaled value lies in [1e5, 1e6] (below 2^22 even off by one
  // decade), where adding 0.5 is exact, so truncating the sum is llround.
  std::int64_t m = 0;
  if (scaled < 4e6) {
    // NOLINTNEXTLINE(bugprone-incorrect-roundings): exact below 2^22 (see above), and no libm call
    m = static_cast<std::int64_t>(scaled + 0.5);
  } else {
    m = std::llround(scaled);
  }
  if (m >= 1'000'000) { // rounded up to the next decade
    m /= 10;
    ++e10;
  }
  // The six digits (m < 10^6: three pairs), then the fixed-size copies below write whole
  // blocks and the pointer advances by what counts; the scratch stays within the 17 characters.
  char digits[16] = {};
  const auto m6 = static_cast<std::size_t>(m);
  const std::size_t hi = std::min<std::size_t>(m6 / 10000, 99); // 99: memory-safe if ever off
  const std::size_t lo = m6 % 10000;
  std::memcpy(digits, k_digit_pairs + 2 * hi, 2);
  std::memcpy(digits + 2, k_digit_pairs + 2 * (lo / 100), 2);
  std::memcpy(digits + 4, k_digit_pairs + 2 * (lo % 100), 2);
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
  } else if (e10 >= 6) { // an integer: six digits, then zeros to e10 + 1 places
    std::memcpy(p, digits, 6);
    std::memset(p + 6, '0', 10);
    p += e10 + 1;
  } else if (e10 >= 0) { // e10 + 1 integer digits, then the rest after a point
    const auto whole = static_cast<std::size_t>(e10) + 1;
    std::memcpy(p, digits, 6);
    if (n > e10 + 1) {
      p[whole] = '.';
      std::memcpy(p + whole + 1, digits + whole, 6);
      p += n + 1;
    } else {
      p += whole;
    }
  } else { // 0.000ddd: -e10 - 1 zeros after the point
    const auto zeros = static_cast<std::size_t>(-e10 - 1);
    static constexpr char k_lead[5] = {'0', '.', '0', '0', '0'}; // no terminator: a prefix
    std::memcpy(p, k_lead, sizeof k_lead);
    std::memcpy(p + 2 + zeros, digits, 8);
    p += 2 + zeros + static_cast<std::size_t>(n);
  }
  return p;
}

} // namespace rightsize::cli
