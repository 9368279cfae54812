#pragma once
// A small table renderer shared by the subcommands: aligned plain text for terminals (optionally
// bold headers, truncated to the terminal width), GitHub markdown, and RFC 4180 CSV. Cells are
// finished strings: callers format numbers (fixed precision) before adding them.
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::cli {

/// Text from a file (a spec name) for a markdown line: markdown and HTML characters are
/// backslash-escaped (CommonMark), control characters become spaces.
std::string markdown_text(std::string_view text);

/// Fixed-point text with at most `max_decimals` decimals and trailing zeros dropped
/// ("4.32", "989.5", "80"); deterministic for output and goldens.
std::string format_number(double value, int max_decimals);

/// Horizontal alignment of a column in text and markdown output.
enum class Align { left, right };

/// One column: its header, alignment, and whether text output may shorten it to fit the width.
struct Column {
  std::string header;
  Align align = Align::left;
  bool shrinkable = false; ///< cut with "..." when the table is wider than the terminal
};

/// How a table is written.
enum class TableStyle { text, markdown, csv };

/// Rows of string cells under fixed columns.
class Table {
public:
  explicit Table(std::vector<Column> columns);

  /// Appends a row; missing cells are blank, extra cells are an internal error (std::logic_error).
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] bool empty() const { return m_rows.empty(); }

  /// Aligned text: a header, a dashed rule, then rows; columns two spaces apart, no trailing
  /// spaces. When wider than `max_width`, shrinkable columns are cut (never below 8 characters).
  /// `bold_header` wraps the header in ANSI bold (pass use_color()).
  [[nodiscard]] std::string render_text(int max_width, bool bold_header = false) const;
  /// GitHub-flavoured markdown, '|' in cells escaped.
  [[nodiscard]] std::string render_markdown() const;
  /// RFC 4180 CSV with a header line; fields quoted when they hold ',', '"' or a newline.
  [[nodiscard]] std::string render_csv() const;
  /// One of the above by style.
  [[nodiscard]] std::string render(TableStyle style, int max_width, bool bold_header = false) const;

private:
  std::vector<Column> m_columns;
  std::vector<std::vector<std::string>> m_rows;
};

} // namespace rightsize::cli
