// Request traces (docs/model-spec.md "workload.trace"): the Azure LLM inference trace CSV
// (TIMESTAMP,ContextTokens,GeneratedTokens; Azure/AzurePublicDataset AzureLLMInferenceDataset2023
// and 2024) and the Mooncake JSONL (one {"timestamp" (ms since the first request), "input_length",
// "output_length", "hash_ids"} per line; kvcache-ai/Mooncake FAST'25 traces), read into the arrival
// rate, the inter-arrival CV and the length percentiles.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/runs/csv_table.hpp"
#include "io/spec/length_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::io {
namespace {

constexpr std::int64_t k_max_trace_requests = 2'000'000;

struct Rows {
  std::vector<double> arrival_s, input, output;
  std::int64_t zero_outputs = 0;
};

[[noreturn]] void trace_fail(const std::string& where, const std::string& message) {
  throw Error(ErrorKind::input, where, "", message);
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// A cell that is one decimal number and nothing else (spaces around it aside): "200abc" and "0x10"
// are not numbers, where from_chars alone reads 200 and 0.
bool whole_number(std::string_view text, double& out) {
  text = trimmed(text);
  if (text.empty()) return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(out);
}

// The offset after the seconds of an ISO 8601 time: none (taken as UTC, as the Azure traces are),
// "Z", or ±hh:mm / ±hhmm; nullopt for anything else.
std::optional<double> utc_offset_s(std::string_view zone) {
  if (zone.empty() || zone == "Z") return 0.0;
  if (zone.front() != '+' && zone.front() != '-') return std::nullopt;
  const double sign = zone.front() == '-' ? -1.0 : 1.0;
  zone.remove_prefix(1);
  int h = 0, m = 0;
  const auto two = [](std::string_view t, int& v) {
    return t.size() == 2 && std::from_chars(t.data(), t.data() + 2, v).ec == std::errc() && t[0] != '-';
  };
  const bool ok = zone.size() == 5 && zone[2] == ':' ? two(zone.substr(0, 2), h) && two(zone.substr(3), m)
                  : zone.size() == 4                 ? two(zone.substr(0, 2), h) && two(zone.substr(2), m)
                                                     : false;
  if (!ok || h > 23 || m > 59) return std::nullopt;
  return sign * (h * 3600.0 + m * 60.0);
}

// "2023-11-16 18:15:46.6805900" (the Azure traces' TIMESTAMP; an ISO 8601 'T', 'Z' or offset too)
// or seconds as a number. A date that does not exist (February 30, 18:00:99) is refused, not
// rolled over.
std::optional<double> calendar_seconds(std::string_view text) {
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') ||
      text[13] != ':' || text[16] != ':')
    return std::nullopt;
  // The date as the catalog's dates are read (core parse_iso_date: the day must exist).
  const std::optional<std::int64_t> day = parse_iso_date(text.substr(0, 10));
  int h = 0, mi = 0;
  const auto part = [&](std::size_t at, std::size_t len, int& v) {
    const char* b = text.data() + at;
    const auto r = std::from_chars(b, b + len, v);
    return r.ec == std::errc() && r.ptr == b + len && *b != '-';
  };
  std::size_t end = 17;
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.'))
    ++end;
  double s = 0.0;
  const std::optional<double> offset = utc_offset_s(text.substr(end));
  if (!day || !part(11, 2, h) || !part(14, 2, mi) || !whole_number(text.substr(17, end - 17), s) || !offset)
    return std::nullopt;
  if (h > 23 || mi > 59 || s >= 60.0) return std::nullopt;
  return static_cast<double>(*day) * 86400.0 + h * 3600.0 + mi * 60.0 + s - *offset;
}

double azure_seconds(std::string_view text, const std::string& where) {
  text = trimmed(text);
  double seconds = 0.0;
  if (const std::optional<double> at = calendar_seconds(text)) return *at;
  if (whole_number(text, seconds)) return seconds;
  trace_fail(where, fmt::format("expected TIMESTAMP as a date \"YYYY-MM-DD hh:mm:ss[.fraction][Z|±hh:mm]\" "
                                "that exists, or seconds, got \"{}\"",
                                text));
}

void add_lengths(Rows& rows, double input, double output, std::int64_t max_tokens, const std::string& where) {
  if (!(input >= 1.0) || input > static_cast<double>(max_tokens) || input != std::floor(input))
    trace_fail(where, fmt::format("expected a prompt of 1 to {} tokens, got {:g}", max_tokens, input));
  if (!(output >= 0.0) || output > static_cast<double>(max_tokens) || output != std::floor(output))
    trace_fail(where, fmt::format("expected an output of 0 to {} tokens, got {:g}", max_tokens, output));
  if (output < 1.0) ++rows.zero_outputs;
  rows.input.push_back(input);
  rows.output.push_back(std::max(1.0, output));
  if (rows.input.size() > static_cast<std::size_t>(k_max_trace_requests))
    trace_fail(where, fmt::format("expected at most {} requests in a trace", k_max_trace_requests));
}

Rows read_azure(const std::string& text, const std::string& path, std::int64_t max_tokens) {
  Rows rows;
  parse_csv(
      text, path,
      [&](const std::vector<std::string_view>& header) {
        for (const char* column : {"TIMESTAMP", "ContextTokens", "GeneratedTokens"})
          if (std::find(header.begin(), header.end(), column) == header.end())
            trace_fail(path + ":1",
                       fmt::format("expected the Azure LLM inference trace header "
                                   "TIMESTAMP,ContextTokens,GeneratedTokens (or Mooncake JSONL), "
                                   "missing column {}",
                                   column));
      },
      [&](const CsvRow& row) {
        rows.arrival_s.push_back(azure_seconds(row.cells[row.index("TIMESTAMP")], row.where));
        const auto tokens = [&](const char* column) {
          double v = 0.0;
          const std::string_view cell = row.cells[row.index(column)];
          if (!whole_number(cell, v))
            trace_fail(row.where,
                       fmt::format("expected {} as a whole number of tokens, got \"{}\"", column, cell));
          return v;
        };
        const double input = tokens("ContextTokens");
        add_lengths(rows, input, tokens("GeneratedTokens"), max_tokens, row.where);
      });
  return rows;
}

// One Mooncake line, read strictly: a JSON object (its values numbers, strings, true, false, null,
// arrays and objects) and nothing after it. The three figures must be numbers, each given once.
class MooncakeLine {
public:
  MooncakeLine(std::string_view line, const std::string& where) : s_(line), where_(where) {}

  // timestamp (ms), input_length, output_length.
  std::array<double, 3> read() {
    value(0, true);
    space();
    if (i_ < s_.size())
      fail(fmt::format("expected one JSON object on the line, got more at column {}", i_ + 1));
    for (std::size_t k = 0; k < k_keys.size(); ++k)
      if (!seen_[k]) fail(fmt::format("expected a Mooncake trace line with a number \"{}\"", k_keys[k]));
    return figures_;
  }

private:
  static constexpr std::array<std::string_view, 3> k_keys = {"timestamp", "input_length", "output_length"};
  static constexpr int k_max_depth = 16;

  [[noreturn]] void fail(const std::string& message) const { trace_fail(where_, message); }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool next_is(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!next_is(c)) fail(fmt::format("expected '{}' at column {} of the JSON object", c, i_ + 1));
  }
  // A string's raw text (escapes kept as written: the keys read here have none).
  std::string_view string() {
    expect('"');
    const std::size_t from = i_;
    while (i_ < s_.size() && s_[i_] != '"')
      i_ += s_[i_] == '\\' ? 2U : 1U;
    if (i_ >= s_.size()) fail("expected a closing '\"' in the JSON object");
    return s_.substr(from, i_++ - from);
  }
  // A value; returns the number when it is one (NaN otherwise).
  double value(int depth, bool object_only = false) {
    if (depth > k_max_depth) fail("expected a JSON object nested at most 16 deep");
    space();
    const char c = i_ < s_.size() ? s_[i_] : '\0';
    if (c == '{') return object(depth), NAN;
    if (object_only) fail("expected a JSON object ({...}) on the line");
    if (c == '[') {
      ++i_;
      if (!next_is(']')) {
        do {
          value(depth + 1);
        } while (next_is(','));
        expect(']');
      }
      return NAN;
    }
    if (c == '"') return string(), NAN;
    for (const std::string_view word : {"true", "false", "null"})
      if (s_.substr(i_, word.size()) == word) return i_ += word.size(), NAN;
    const std::size_t from = i_;
    while (i_ < s_.size() && std::string_view("+-.0123456789eE").find(s_[i_]) != std::string_view::npos)
      ++i_;
    double v = 0.0;
    if (!whole_number(s_.substr(from, i_ - from), v))
      fail(fmt::format("expected a JSON value at column {}", from + 1));
    return v;
  }
  void object(int depth) {
    expect('{');
    if (next_is('}')) return;
    do {
      const std::string_view key = string();
      expect(':');
      const double v = value(depth + 1);
      const auto k = std::find(k_keys.begin(), k_keys.end(), key);
      if (depth > 0 || k == k_keys.end()) continue;
      const auto at = static_cast<std::size_t>(k - k_keys.begin());
      if (seen_[at]) fail(fmt::format("expected \"{}\" once in the object, got it twice", key));
      if (std::isnan(v)) fail(fmt::format("expected \"{}\" as a number", key));
      seen_[at] = true;
      figures_[at] = v;
    } while (next_is(','));
    expect('}');
  }

  std::string_view s_;
  const std::string& where_;
  std::size_t i_ = 0;
  std::array<bool, 3> seen_{};
  std::array<double, 3> figures_{};
};

Rows read_mooncake(std::string_view text, const std::string& path, std::int64_t max_tokens) {
  Rows rows;
  std::size_t start = 0;
  for (std::int64_t number = 1; start < text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    const auto [ms, input, output] = MooncakeLine(line, where).read();
    if (ms < 0.0) trace_fail(where, fmt::format("expected a timestamp of 0 ms or more, got {:g}", ms));
    rows.arrival_s.push_back(ms / 1000.0);
    add_lengths(rows, input, output, max_tokens, where);
  }
  return rows;
}

// Nearest-rank percentile of sorted values.
double nearest_rank(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

LengthSpread spread_of(std::vector<double> values, std::int64_t& mean) {
  double sum = 0.0;
  for (double v : values)
    sum += v;
  mean = std::max<std::int64_t>(1, std::llround(sum / static_cast<double>(values.size())));
  std::sort(values.begin(), values.end());
  LengthSpread s;
  s.shape = LengthShape::trace;
  s.p50_tokens = nearest_rank(values, 0.5);
  s.p99_tokens = nearest_rank(values, 0.99);
  return s;
}

TraceSummary summarize_trace(const std::string& path, std::int64_t max_tokens) {
  const std::string text = read_text_file(path);
  // A UTF-8 byte order mark before either format is no part of it (the CSV reader skips its own).
  std::string_view body = text;
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  const auto first = body.find_first_not_of(" \t\r\n");
  const bool jsonl = first != std::string::npos && body[first] == '{';
  Rows rows = jsonl ? read_mooncake(body, path, max_tokens) : read_azure(text, path, max_tokens);
  if (rows.arrival_s.size() < 2)
    trace_fail(path, fmt::format("expected at least 2 requests in the trace, got {}", rows.arrival_s.size()));
  TraceSummary t;
  t.format = jsonl ? "Mooncake JSONL" : "Azure LLM inference CSV";
  t.requests = static_cast<std::int64_t>(rows.arrival_s.size());
  std::sort(rows.arrival_s.begin(), rows.arrival_s.end());
  t.span_s = rows.arrival_s.back() - rows.arrival_s.front();
  if (!(t.span_s > 0.0))
    trace_fail(path, "expected arrivals spread over time: every request has the same timestamp, so the trace "
                     "gives no rate");
  const double gaps = static_cast<double>(t.requests - 1);
  t.rate_per_s = gaps / t.span_s;
  const double mean_gap = t.span_s / gaps;
  double squares = 0.0;
  for (std::size_t i = 1; i < rows.arrival_s.size(); ++i) {
    const double g = rows.arrival_s[i] - rows.arrival_s[i - 1] - mean_gap;
    squares += g * g;
  }
  t.arrival_cv = std::sqrt(squares / gaps) / mean_gap;
  t.input = spread_of(std::move(rows.input), t.input_mean);
  t.output = spread_of(std::move(rows.output), t.output_mean);
  t.zero_outputs = rows.zero_outputs;
  return t;
}

} // namespace

// The last trace summarized, kept by path, size and modification time: a sweep parses its spec once
// more per model combination, and a 64 MiB trace takes about 0.8 s to read where its summary is a
// few numbers. A file that changed, or cannot be stat'ed, is read again.
TraceSummary read_trace(const std::string& path, std::int64_t max_tokens) {
  struct Kept {
    std::string path;
    std::uintmax_t bytes = 0;
    std::filesystem::file_time_type written;
    std::int64_t max_tokens = 0;
    TraceSummary summary;
  };
  static std::mutex guard;
  static std::optional<Kept> kept;
  std::error_code size_error, time_error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, size_error);
  const std::filesystem::file_time_type written = std::filesystem::last_write_time(path, time_error);
  const bool known = !size_error && !time_error;
  if (known) {
    const std::scoped_lock lock(guard);
    if (kept && kept->path == path && kept->bytes == bytes && kept->written == written &&
        kept->max_tokens == max_tokens)
      return kept->summary;
  }
  TraceSummary t = summarize_trace(path, max_tokens);
  if (known) {
    const std::scoped_lock lock(guard);
    kept = Kept{path, bytes, written, max_tokens, t};
  }
  return t;
}

} // namespace rightsize::io
