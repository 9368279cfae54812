#pragma once
// A small table renderer for text (aligned, fitted to the terminal width), markdown and CSV.
#include <string>
#include <vector>

namespace rightsize::cli {

enum class Align { left, right };

/// Rows of already-formatted cells under named columns.
class Table {
 public:
  /// Adds a column; `droppable` columns are left out first when the text table is too wide.
  void add_column(std::string header, Align align = Align::left, bool droppable = false);
  /// Adds a row; missing cells are empty, extra cells are ignored.
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] bool empty() const { return m_rows.empty(); }

  /// Aligned text, columns two spaces apart, fitted to `width` by dropping droppable columns from
  /// the right and then truncating the last column with "…".
  [[nodiscard]] std::string render_text(int width) const;
  /// GitHub-flavoured markdown table (pipes in cells escaped).
  [[nodiscard]] std::string render_markdown() const;
  /// RFC 4180 CSV with a header row.
  [[nodiscard]] std::string render_csv() const;

 private:
  struct Column {
    std::string header;
    Align align;
    bool droppable;
  };
  std::vector<Column> m_columns;
  std::vector<std::vector<std::string>> m_rows;
};

/// Display width of UTF-8 text (counts code points; our output has no wide characters).
std::size_t display_width(const std::string& text);
/// Quotes a CSV field when it needs it (RFC 4180).
std::string csv_field(const std::string& text);

}  // namespace rightsize::cli
