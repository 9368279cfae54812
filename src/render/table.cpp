#include "render/table.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace rightsize::cli {
namespace {

constexpr std::size_t k_gap = 2;        // spaces between text columns
constexpr std::size_t k_min_shrunk = 8; // narrowest a shrinkable column gets

// Display width: UTF-8 continuation bytes take no column (the catalog has "§" and "x").
std::size_t width_of(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

// Cuts to `width` display columns, ending in "..." when cut.
std::string cut(const std::string& text, std::size_t width) {
  if (width_of(text) <= width) return text;
  const std::size_t keep = width > 3 ? width - 3 : 0;
  std::string out;
  std::size_t columns = 0;
  for (char c : text) {
    const bool starts_char = (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    if (starts_char && columns == keep) break;
    out += c;
    if (starts_char) ++columns;
  }
  return out + std::string(std::min<std::size_t>(3, width), '.');
}

std::string pad(const std::string& text, std::size_t width, Align align) {
  const std::size_t fill = width > width_of(text) ? width - width_of(text) : 0;
  return align == Align::right ? std::string(fill, ' ') + text : text + std::string(fill, ' ');
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
}

} // namespace

std::string markdown_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20U || u == 0x7FU) {
      out += ' '; // a newline would end the heading; ESC has no place in a document
    } else if (std::string_view("\\`*_[]<>#|~&!").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_number(double value, int max_decimals) {
  std::string out = fmt::format("{:.{}f}", value, max_decimals);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0')
      out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out == "-0" ? "0" : out;
}

Table::Table(std::vector<Column> columns) : m_columns(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > m_columns.size()) throw std::logic_error("table row has more cells than columns");
  cells.resize(m_columns.size());
  m_rows.push_back(std::move(cells));
}

std::string Table::render_text(int max_width, bool bold_header) const {
  std::vector<std::size_t> widths(m_columns.size());
  for (std::size_t c = 0; c < m_columns.size(); ++c) {
    widths[c] = width_of(m_columns[c].header);
    for (const auto& row : m_rows)
      widths[c] = std::max(widths[c], width_of(row[c]));
  }
  const auto total = [&] {
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) +
           k_gap * (widths.empty() ? 0 : widths.size() - 1);
  };
  // Shrink the widest shrinkable column one step at a time until the table fits (or cannot shrink).
  const std::size_t limit = max_width > 0 ? static_cast<std::size_t>(max_width) : total();
  while (total() > limit) {
    std::size_t widest = m_columns.size();
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
      if (m_columns[c].shrinkable && widths[c] > k_min_shrunk &&
          (widest == m_columns.size() || widths[c] > widths[widest])) {
        widest = c;
      }
    }
    if (widest == m_columns.size()) break;
    --widths[widest];
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += std::string(k_gap, ' ');
      out += pad(cut(cells[c], widths[c]), widths[c], m_columns[c].align);
    }
    trim_right(out);
    return out + "\n";
  };
  std::vector<std::string> headers;
  std::vector<std::string> rules;
  for (std::size_t c = 0; c < m_columns.size(); ++c) {
    headers.push_back(m_columns[c].header);
    rules.emplace_back(widths[c], '-');
  }
  std::string header = line(headers);
  if (bold_header) {
    header.pop_back();
    header = std::string("\x1b[1m").append(header).append("\x1b[0m\n");
  }
  std::string out = header + line(rules);
  for (const auto& row : m_rows)
    out += line(row);
  return out;
}

std::string Table::render_markdown() const {
  std::string out = "|";
  std::string rule = "|";
  for (const auto& column : m_columns) {
    out.append(" ").append(markdown_cell(column.header)).append(" |");
    rule += column.align == Align::right ? " ---: |" : " --- |";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : m_rows) {
    out += "|";
    for (const auto& cell : row)
      out.append(" ").append(markdown_cell(cell)).append(" |");
    out += "\n";
  }
  return out;
}

std::string Table::render_csv() const {
  std::string out;
  for (std::size_t c = 0; c < m_columns.size(); ++c)
    out.append(c > 0 ? "," : "").append(csv_field(m_columns[c].header));
  out += "\n";
  for (const auto& row : m_rows) {
    for (std::size_t c = 0; c < row.size(); ++c)
      out.append(c > 0 ? "," : "").append(csv_field(row[c]));
    out += "\n";
  }
  return out;
}

std::string Table::render(TableStyle style, int max_width, bool bold_header) const {
  switch (style) {
  case TableStyle::text: return render_text(max_width, bold_header);
  case TableStyle::markdown: return render_markdown();
  case TableStyle::csv: return render_csv();
  }
  return render_text(max_width, bold_header);
}

} // namespace rightsize::cli
