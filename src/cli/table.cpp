#include "table.hpp"

#include <algorithm>

namespace rightsize::cli {

std::size_t display_width(const std::string& text) {
  std::size_t n = 0;
  for (char ch : text) {
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;  // count UTF-8 lead bytes only
  }
  return n;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void Table::add_column(std::string header, Align align, bool droppable) {
  m_columns.push_back({std::move(header), align, droppable});
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(m_columns.size());
  m_rows.push_back(std::move(cells));
}

std::string Table::render_text(int width) const {
  std::vector<std::size_t> widths(m_columns.size());
  for (std::size_t c = 0; c < m_columns.size(); ++c) {
    widths[c] = display_width(m_columns[c].header);
    for (const auto& row : m_rows) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::vector<bool> shown(m_columns.size(), true);
  auto total = [&] {
    std::size_t t = 0;
    bool first = true;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (!shown[c]) continue;
      t += widths[c] + (first ? 0 : 2);
      first = false;
    }
    return t;
  };
  const auto limit = static_cast<std::size_t>(std::max(20, width));
  for (std::size_t c = m_columns.size(); c-- > 0 && total() > limit;) {
    if (m_columns[c].droppable) shown[c] = false;
  }
  std::size_t last = 0;
  for (std::size_t c = 0; c < shown.size(); ++c) {
    if (shown[c]) last = c;
  }
  if (total() > limit) {
    const std::size_t excess = total() - limit;
    widths[last] = widths[last] > excess + 1 ? widths[last] - excess : 1;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    bool first = true;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (!shown[c]) continue;
      if (!first) out += "  ";
      first = false;
      std::string cell = cells[c];
      if (display_width(cell) > widths[c]) {
        // Truncate to the column (ASCII-safe: our cells are ASCII apart from a few symbols).
        std::string cut;
        std::size_t w = 0;
        for (std::size_t i = 0; i < cell.size() && w + 1 < widths[c]; ++i) {
          cut += cell[i];
          if ((static_cast<unsigned char>(cell[i]) & 0xC0) != 0x80) ++w;
        }
        cut.append("…");
        cell = cut;
      }
      const std::size_t pad = widths[c] - std::min(widths[c], display_width(cell));
      const bool last_col = c == last;
      if (m_columns[c].align == Align::right) {
        out.append(pad, ' ');
        out.append(cell);
      } else {
        out.append(cell);
        if (!last_col) out.append(pad, ' ');
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out.push_back('\n');
    return out;
  };
  std::vector<std::string> header;
  for (const auto& col : m_columns) header.push_back(col.header);
  std::string out = line(header);
  for (const auto& row : m_rows) out += line(row);
  return out;
}

std::string Table::render_markdown() const {
  std::string out;
  auto add_cell = [&out](const std::string& text) {
    out.push_back(' ');
    for (char c : text) {
      if (c == '|') out.push_back('\\');
      out.push_back(c);
    }
    out.append(" |");
  };
  out.push_back('|');
  for (const auto& col : m_columns) add_cell(col.header);
  out.append("\n|");
  for (const auto& col : m_columns) out.append(col.align == Align::right ? "---:|" : "---|");
  out.push_back('\n');
  for (const auto& row : m_rows) {
    out.push_back('|');
    for (const auto& cell : row) add_cell(cell);
    out.push_back('\n');
  }
  return out;
}

std::string Table::render_csv() const {
  std::string out;
  auto add_line = [&out](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out.push_back(',');
      out.append(csv_field(cells[c]));
    }
    out.push_back('\n');
  };
  std::vector<std::string> header;
  for (const auto& col : m_columns) header.push_back(col.header);
  add_line(header);
  for (const auto& row : m_rows) add_line(row);
  return out;
}

}  // namespace rightsize::cli
