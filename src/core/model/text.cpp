#include "rightsize/text.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace rightsize {

std::string with_commas(std::int64_t value) {
  // The magnitude as unsigned: -value overflows for the most negative int64.
  const std::uint64_t magnitude =
      value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  const std::string digits = std::to_string(magnitude);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::size_t invalid_utf8_at(std::string_view text) {
  // RFC 3629 section 4 (UTF8-octets): the second byte's range depends on the first.
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (b < 0x80) {
      ++i;
      continue;
    }
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      if (b == 0xE0) low = 0xA0;  // no overlong forms
      if (b == 0xED) high = 0x9F; // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      if (b == 0xF0) low = 0x90;  // no overlong forms
      if (b == 0xF4) high = 0x8F; // nothing past U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

namespace {

// The code point of the valid UTF-8 sequence at `i` and its length in bytes (RFC 3629 section 3).
std::pair<std::uint32_t, std::size_t> code_point_at(std::string_view text, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2;
  std::uint32_t cp = b0 & (length == 2 ? 0x1FU : length == 3 ? 0x0FU : 0x07U);
  for (std::size_t k = 1; k < length; ++k)
    cp = (cp << 6U) | (static_cast<unsigned char>(text[i + k]) & 0x3FU);
  return {cp, length};
}

// Upper-case hexadecimal, at least `width` digits.
std::string hex_digits(std::uint32_t value, std::size_t width) {
  std::string out;
  while (value > 0 || out.size() < width) {
    out.insert(out.begin(), "0123456789ABCDEF"[value & 0xFU]);
    value >>= 4U;
  }
  return out;
}

bool unsafe_code_point(std::uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

} // namespace

std::size_t unsafe_text_at(std::string_view text) {
  const std::size_t not_utf8 = invalid_utf8_at(text);
  const std::string_view valid = text.substr(0, not_utf8);
  for (std::size_t i = 0; i < valid.size();) {
    const auto [cp, length] = code_point_at(valid, i);
    if (unsafe_code_point(cp)) return i;
    i += length;
  }
  return not_utf8;
}

std::string describe_unsafe_text(std::string_view text, std::size_t at) {
  if (at >= text.size()) return "nothing unsafe";
  if (invalid_utf8_at(text) == at) {
    return "byte 0x" + hex_digits(static_cast<unsigned char>(text[at]), 2) + " at offset " +
           std::to_string(at) + " (not UTF-8)";
  }
  const std::uint32_t cp = code_point_at(text, at).first;
  return "U+" + hex_digits(cp, 4) +
         (cp == 0x2028 || cp == 0x2029 ? " (a line separator)" : " (a control character)") + " at offset " +
         std::to_string(at);
}

std::string safe_text(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t bad = unsafe_text_at(text.substr(i));
    if (bad == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, bad));
    out.push_back('?');
    i += bad;
    // Skip the whole unsafe character (one byte when it is not UTF-8).
    i += invalid_utf8_at(text.substr(i)) == 0 ? 1 : code_point_at(text, i).second;
  }
  return out;
}

bool pinned_image_reference(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return true;
  const std::size_t slash = image.rfind('/');
  const std::size_t colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) return false;
  const std::string_view tag = image.substr(colon + 1);
  return !tag.empty() && tag != "latest";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

} // namespace rightsize
