#pragma once
// Comma-separated tables for the run readers (serving CSV, training CSV): one header line, then
// rows of the same width; messages name "file:line" and the column.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::io {

/// One data row with checked access by column name; `where` is "file:line".
struct CsvRow {
  const std::vector<std::string_view>& cells;
  const std::vector<std::string_view>& header;
  const std::string& where;

  /// Index of a column; throws Error (input) "missing column" when the header lacks it.
  [[nodiscard]] std::size_t index(std::string_view name) const;
  [[nodiscard]] bool has(std::string_view name) const;
  [[nodiscard]] std::string text(std::string_view name) const;
  /// Integer column in [lo, hi]; empty = `fallback`.
  [[nodiscard]] std::int64_t integer(std::string_view name, std::int64_t fallback, std::int64_t lo,
                                     std::int64_t hi) const;
  /// A positive finite number.
  [[nodiscard]] double positive(std::string_view name) const;
  /// A positive finite number at most `max` (a plausibility bound; `noun` names what more would be).
  [[nodiscard]] double positive(std::string_view name, double max, std::string_view noun) const;
};

/// Splits `text` into lines (CRLF allowed, blank lines skipped): the first is the header, given
/// to `on_header` once; each further line must have the header's width and goes to `on_row`.
/// An empty file throws Error (input) naming `source`.
void parse_csv(const std::string& text, const std::string& source,
               const std::function<void(const std::vector<std::string_view>& header)>& on_header,
               const std::function<void(const CsvRow& row)>& on_row);

} // namespace rightsize::io
