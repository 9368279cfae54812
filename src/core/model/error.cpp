#include "rightsize/error.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "rightsize/text.hpp"

namespace rightsize {
namespace {

std::string join_errors(const std::vector<Error>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += format_error(e);
  }
  return out;
}

bool is_utf8_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20U || u == 0x7FU;
}

// Bytes `c` takes in an error line: \n, \r, \t two, other control characters four (\xHH).
std::size_t escaped_size(char c) {
  if (c == '\n' || c == '\r' || c == '\t') return 2;
  return is_control(c) ? 4 : 1;
}

void append_escaped(std::string& out, std::string_view raw) {
  static constexpr char k_hex[] = "0123456789abcdef";
  for (const char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (is_control(c)) {
      out += "\\x";
      out += k_hex[u >> 4U];
      out += k_hex[u & 0xFU];
    } else {
      out += c;
    }
  }
}

} // namespace

Error::Error(ErrorKind kind, std::string source, std::string pointer, std::string message)
    : std::runtime_error(message), m_kind(kind), m_source(std::move(source)), m_pointer(std::move(pointer)),
      m_message(std::move(message)) {}

ExitCode Error::exit_code() const {
  switch (m_kind) {
  case ErrorKind::usage: return ExitCode::usage;
  case ErrorKind::input: return ExitCode::bad_input;
  case ErrorKind::internal: return ExitCode::internal;
  case ErrorKind::environment: return ExitCode::environment;
  }
  return ExitCode::internal;
}

ErrorList::ErrorList(std::vector<Error> errors)
    : std::runtime_error(join_errors(errors)), m_errors(std::move(errors)) {}

std::string format_error(const Error& error) {
  std::string raw;
  if (!error.source().empty()) raw += error.source() + ": ";
  if (!error.pointer().empty()) raw += error.pointer() + ": ";
  raw += error.message();
  // One line, and a bounded one: control characters from paths, keys or values (a newline, ESC)
  // are escaped, and a line whose escaped form passes k_max_error_line (a 63 MB unknown name, a
  // path of DEL bytes, 4 bytes each escaped) keeps its two ends, each at most k_kept_end bytes
  // once escaped (the bound holds after escaping: fuzz_cli_files found 4,000-byte lines).
  constexpr std::size_t k_max_error_line = 1000;
  constexpr std::size_t k_kept_end = 400;
  std::size_t escaped = 0;
  for (const char c : raw)
    escaped += escaped_size(c);
  std::string out;
  if (escaped <= k_max_error_line) {
    append_escaped(out, raw);
    return out;
  }
  std::size_t head = 0;
  for (std::size_t used = 0; head < raw.size() && used + escaped_size(raw[head]) <= k_kept_end; ++head)
    used += escaped_size(raw[head]);
  while (head > 0 && is_utf8_continuation(raw[head]))
    --head; // cut at a UTF-8 start
  std::size_t tail = raw.size();
  for (std::size_t used = 0; tail > head && used + escaped_size(raw[tail - 1]) <= k_kept_end; --tail)
    used += escaped_size(raw[tail - 1]);
  while (tail < raw.size() && is_utf8_continuation(raw[tail]))
    ++tail;
  append_escaped(out, std::string_view(raw).substr(0, head));
  out += "[... " + std::to_string(tail - head) + " bytes left out ...]";
  append_escaped(out, std::string_view(raw).substr(tail));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
  // transpositions ("bf61" → "bf16") cost 1 each. Three rolling rows.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  // Typos are in short names: a long word (a 63 MB "preset name") gets no suggestion, which also
  // keeps the edit distances (length x length) cheap.
  constexpr std::size_t k_max_suggested_length = 64;
  if (word.size() > k_max_suggested_length) return {};
  const std::string needle = to_lower(word);
  std::string best;
  // Ranked by (distance, raw edit distance): the raw distance breaks ties, so "L40SS" finds "L40S"
  // before "L4".
  std::pair<std::size_t, std::size_t> best_key{std::string::npos, std::string::npos};
  for (const auto& candidate : candidates) {
    if (candidate.size() > 4 * k_max_suggested_length) continue;
    const std::string hay = to_lower(candidate);
    const std::size_t raw = edit_distance(needle, hay);
    std::size_t d = raw;
    // A whole leading token counts as close ("h100" names "h100-sxm"); a longer model number does
    // not ("h20" is not "h200-nvl").
    if (!needle.empty() && hay.size() > needle.size() && hay.compare(0, needle.size(), needle) == 0 &&
        (hay[needle.size()] == '-' || hay[needle.size()] == '_' || hay[needle.size()] == '.')) {
      d = std::min<std::size_t>(d, 1);
    }
    const std::pair<std::size_t, std::size_t> key{d, raw};
    if (key < best_key) {
      best_key = key;
      best = candidate;
    }
  }
  const std::size_t limit = std::max<std::size_t>(1, needle.size() / 3); // short ids: one edit
  return best_key.first <= limit ? best : std::string();
}

} // namespace rightsize
