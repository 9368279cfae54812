#include "io/runs/csv_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::io {
namespace {

constexpr std::string_view k_utf8_bom = "\xEF\xBB\xBF";

std::vector<std::string_view> split_line(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

} // namespace

std::size_t CsvRow::index(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  throw Error(ErrorKind::input, where, "", fmt::format("missing column \"{}\"", name));
}

bool CsvRow::has(std::string_view name) const {
  return std::find(header.begin(), header.end(), name) != header.end();
}

std::string CsvRow::text(std::string_view name) const {
  return std::string(cells[index(name)]);
}

std::int64_t CsvRow::integer(std::string_view name, std::int64_t fallback, std::int64_t lo,
                             std::int64_t hi) const {
  const std::string_view v = cells[index(name)];
  if (v.empty()) return fallback;
  std::int64_t out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) {
    throw Error(ErrorKind::input, where, "",
                fmt::format("column \"{}\": expected an integer {} to {}, got \"{}\"", name, lo, hi, v));
  }
  return out;
}

double CsvRow::positive(std::string_view name) const {
  const std::string_view v = cells[index(name)];
  double out = 0.0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || !(out > 0.0) || !std::isfinite(out)) {
    throw Error(ErrorKind::input, where, "",
                fmt::format("column \"{}\": expected a positive number, got \"{}\"", name, v));
  }
  return out;
}

double CsvRow::positive(std::string_view name, double max, std::string_view noun) const {
  const double out = positive(name);
  if (out > max) {
    throw Error(ErrorKind::input, where, "",
                fmt::format("column \"{}\": expected a positive number at most {:g} (more {} is not a "
                            "real run), got \"{}\"",
                            name, max, noun, cells[index(name)]));
  }
  return out;
}

void parse_csv(const std::string& text, const std::string& source,
               const std::function<void(const std::vector<std::string_view>& header)>& on_header,
               const std::function<void(const CsvRow& row)>& on_row) {
  std::vector<std::string_view> header;
  std::size_t start = 0;
  int line_no = 0;
  std::string_view all(text);
  if (all.substr(0, 3) == k_utf8_bom) all.remove_prefix(3); // spreadsheets save one; not part of "id"
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string_view> cells = split_line(line);
    if (header.empty()) {
      header = cells;
      on_header(header);
      continue;
    }
    const std::string where = fmt::format("{}:{}", source, line_no);
    if (cells.size() != header.size()) {
      throw Error(ErrorKind::input, where, "",
                  fmt::format("expected {} comma-separated cells, got {}", header.size(), cells.size()));
    }
    on_row(CsvRow{cells, header, where});
  }
  if (header.empty())
    throw Error(ErrorKind::input, source, "", "expected a CSV header line, got an empty file");
}

} // namespace rightsize::io
