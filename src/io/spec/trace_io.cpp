// Request traces (docs/model-spec.md "workload.trace"): the Azure LLM inference trace CSV
// (TIMESTAMP,ContextTokens,GeneratedTokens; Azure/AzurePublicDataset AzureLLMInferenceDataset2023
// and 2024) and the Mooncake JSONL (one {"timestamp" (ms since the first request), "input_length",
// "output_length", "hash_ids"} per line; kvcache-ai/Mooncake FAST'25 traces), read into the arrival
// rate, the inter-arrival CV and the length percentiles.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/runs/csv_table.hpp"
#include "io/spec/length_io.hpp"
#include "rightsize/error.hpp"

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

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool number_at(std::string_view text, double& out) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && std::isfinite(out);
}

// "2023-11-16 18:15:46.6805900" (the Azure traces' TIMESTAMP) or seconds as a number.
double azure_seconds(std::string_view text, const std::string& where) {
  double seconds = 0.0;
  if (text.size() >= 19 && text[4] == '-' && text[7] == '-' && (text[10] == ' ' || text[10] == 'T')) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0;
    double s = 0.0;
    const auto part = [&](std::size_t at, std::size_t len, int& v) {
      return std::from_chars(text.data() + at, text.data() + at + len, v).ec == std::errc();
    };
    if (part(0, 4, y) && part(5, 2, mo) && part(8, 2, d) && part(11, 2, h) && part(14, 2, mi) &&
        number_at(text.substr(17), s) && mo >= 1 && mo <= 12 && d >= 1 && d <= 31) {
      return static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) *
                 86400.0 +
             h * 3600.0 + mi * 60.0 + s;
    }
  } else if (number_at(text, seconds)) {
    return seconds;
  }
  trace_fail(
      where,
      fmt::format("expected TIMESTAMP as \"YYYY-MM-DD hh:mm:ss[.fraction]\" or seconds, got \"{}\"", text));
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
          if (!number_at(cell, v))
            trace_fail(row.where,
                       fmt::format("expected {} as a whole number of tokens, got \"{}\"", column, cell));
          return v;
        };
        const double input = tokens("ContextTokens");
        add_lengths(rows, input, tokens("GeneratedTokens"), max_tokens, row.where);
      });
  return rows;
}

// The number after "key": on one JSONL line.
bool json_number(std::string_view line, std::string_view key, double& out) {
  const std::string quoted = fmt::format("\"{}\"", key);
  auto at = line.find(quoted);
  if (at == std::string_view::npos) return false;
  at = line.find_first_not_of(" \t", at + quoted.size());
  if (at == std::string_view::npos || line[at] != ':') return false;
  return number_at(line.substr(at + 1), out);
}

Rows read_mooncake(const std::string& text, const std::string& path, std::int64_t max_tokens) {
  Rows rows;
  std::size_t start = 0;
  for (std::int64_t number = 1; start < text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    double ms = 0.0, input = 0.0, output = 0.0;
    for (const auto& [key, value] : {std::pair{"timestamp", &ms}, std::pair{"input_length", &input},
                                     std::pair{"output_length", &output}})
      if (!json_number(line, key, *value))
        trace_fail(where, fmt::format("expected a Mooncake trace line with a number \"{}\"", key));
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

} // namespace

TraceSummary read_trace(const std::string& path, std::int64_t max_tokens) {
  const std::string text = read_text_file(path);
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool jsonl = first != std::string::npos && text[first] == '{';
  Rows rows = jsonl ? read_mooncake(text, path, max_tokens) : read_azure(text, path, max_tokens);
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

} // namespace rightsize::io
