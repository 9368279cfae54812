// Grid axes, grid indexing and the Pareto front for `rightsize sweep` (docs/sweep.md).
#include "rightsize/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace rightsize {
namespace {

constexpr double k_relative_slack = 1e-9; // a range end reached within rounding counts as reached

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  double value = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool is_whole(double v) {
  return std::fabs(v) < 9e15 && v == std::floor(v);
}

std::string number_text(double v) {
  char buf[64];
  const auto r = is_whole(v) ? std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v))
                             : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// floor(q), except that q within rounding of the next integer counts as reaching it.
double floor_with_slack(double q) {
  const double n = std::round(q);
  return std::fabs(q - n) <= k_relative_slack * std::max(1.0, std::fabs(q)) ? n : std::floor(q);
}

double round_12_digits(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 12);
  double out = v;
  std::from_chars(buf, r.ptr, out);
  return out;
}

std::string quoted(std::string_view s) {
  std::string out(1, '"'); // built by appending: GCC 12 warns falsely (-Wrestrict) on "\"" + string
  out.append(s);
  out.push_back('"');
  return out;
}

void add_number(AxisValues& out, double v) {
  out.numbers.push_back(v);
  out.texts.push_back(number_text(v));
}

void finish_numeric(AxisValues& out) {
  out.numeric = true;
  out.integral = std::all_of(out.numbers.begin(), out.numbers.end(), is_whole);
}

// `A..B[:+S|:xF]`.
AxisParse parse_range(std::string_view text, std::size_t dots, std::uint64_t max_values) {
  AxisParse r;
  const std::string_view from_text = text.substr(0, dots);
  std::string_view rest = text.substr(dots + 2);
  std::string_view step_text = "+1";
  if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    step_text = trim(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
  }
  const auto from = parse_number(from_text);
  const auto to = parse_number(rest);
  if (!from || !to) {
    r.error = "expected a range of numbers such as 1..256:x2 or 1024..32768:+1024, got " + quoted(text);
    return r;
  }
  if (*from > *to) {
    r.error = "expected a range start at most its end, got " + quoted(text);
    return r;
  }
  const char kind = step_text.empty() ? '\0' : step_text.front();
  const auto step = step_text.size() > 1 ? parse_number(step_text.substr(1)) : std::nullopt;
  if ((kind != '+' && kind != 'x' && kind != '*') || !step) {
    r.error = "expected a range step \"+S\" (arithmetic) or \"xF\" (geometric), got " + quoted(step_text);
    return r;
  }
  double count = 0.0;
  if (kind == '+') {
    if (*step <= 0.0) {
      r.error = "expected a positive arithmetic step, got " + quoted(step_text);
      return r;
    }
    count = floor_with_slack((*to - *from) / *step) + 1.0;
  } else {
    if (*step <= 1.0 || *from <= 0.0) {
      r.error = "expected a geometric range with a start above 0 and a factor above 1, got " + quoted(text);
      return r;
    }
    count = floor_with_slack(std::log(*to / *from) / std::log(*step)) + 1.0;
  }
  if (count > static_cast<double>(max_values)) {
    r.error = "range " + quoted(text) + " has " + number_text(count) + " values, more than the limit of " +
              number_text(static_cast<double>(max_values));
    return r;
  }
  const auto n = static_cast<std::size_t>(count);
  r.values.numbers.reserve(n);
  r.values.texts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double di = static_cast<double>(i);
    double v = kind == '+' ? *from + di * *step : *from * std::pow(*step, di);
    // Integer ranges stay exact; others drop float noise (0.1 + 2 × 0.1 is 0.3, not 0.30000000000000004).
    v = is_whole(*from) && is_whole(*step) ? std::round(v) : round_12_digits(v);
    add_number(r.values, v);
  }
  finish_numeric(r.values);
  return r;
}

} // namespace

AxisParse parse_axis_values(std::string_view text, std::uint64_t max_values) {
  text = trim(text);
  if (text.empty()) return {{}, "expected at least one value, got none"};
  if (const auto dots = text.find(".."); dots != std::string_view::npos)
    return parse_range(text, dots, max_values);
  AxisParse r;
  std::vector<std::string_view> items;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    items.push_back(trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (items.size() > max_values) {
    r.error = "list has " + std::to_string(items.size()) + " values, more than the limit";
    return r;
  }
  bool numeric = true;
  for (const auto item : items) {
    if (item.empty()) {
      r.error = "expected a comma-separated list without empty values, got " + quoted(text);
      return r;
    }
    numeric = numeric && parse_number(item).has_value();
  }
  for (const auto item : items) {
    if (numeric) {
      add_number(r.values, *parse_number(item));
    } else {
      r.values.texts.emplace_back(item);
    }
  }
  if (numeric) finish_numeric(r.values);
  return r;
}

std::uint64_t grid_points(std::span<const std::size_t> sizes, std::uint64_t limit) {
  std::uint64_t total = 1;
  for (const std::size_t s : sizes) {
    if (s == 0) return 0;
    if (total > limit / s) return 0;
    total *= s;
  }
  return total;
}

GridShape::GridShape(std::span<const std::size_t> sizes) : m_axes(std::min(sizes.size(), k_max_sweep_axes)) {
  for (std::size_t i = 0; i < m_axes; ++i) {
    m_sizes[i] = std::max<std::uint64_t>(1, sizes[i]);
    m_size *= m_sizes[i];
  }
}

void GridShape::decode(std::uint64_t index, std::span<std::size_t> digits) const {
  for (std::size_t i = m_axes; i-- > 0;) {
    digits[i] = static_cast<std::size_t>(index % m_sizes[i]);
    index /= m_sizes[i];
  }
}

std::vector<ParetoPoint> pareto_front(std::vector<ParetoPoint> points, Direction x, Direction y) {
  // Minimize both by negating maximized objectives, sort by (x, y), sweep keeping the best y seen
  // at strictly smaller x: a point survives when its y is the minimum of its x group and below it.
  const double sx = x == Direction::minimize ? 1.0 : -1.0;
  const double sy = y == Direction::minimize ? 1.0 : -1.0;
  std::erase_if(points, [](const ParetoPoint& p) { return !std::isfinite(p.x) || !std::isfinite(p.y); });
  std::sort(points.begin(), points.end(), [&](const ParetoPoint& a, const ParetoPoint& b) {
    if (sx * a.x != sx * b.x) return sx * a.x < sx * b.x;
    if (sy * a.y != sy * b.y) return sy * a.y < sy * b.y;
    return a.index < b.index;
  });
  std::vector<ParetoPoint> front;
  double best_y = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < points.size();) {
    const double gx = sx * points[i].x;
    const double gy = sy * points[i].y; // the group's lowest y: sorted first
    std::size_t j = i;
    for (; j < points.size() && sx * points[j].x == gx; ++j) {
      if (sy * points[j].y == gy && gy < best_y) front.push_back(points[j]);
    }
    best_y = std::min(best_y, gy);
    i = j;
  }
  std::sort(front.begin(), front.end(),
            [](const ParetoPoint& a, const ParetoPoint& b) { return a.index < b.index; });
  return front;
}

void ParetoAccumulator::add(const ParetoPoint& point) {
  if (!std::isfinite(point.x) || !std::isfinite(point.y)) return;
  m_buffer.push_back(point);
  if (m_buffer.size() >= m_threshold) {
    // front(A ∪ B) = front(front(A) ∪ B): reducing early loses nothing.
    m_buffer = pareto_front(std::move(m_buffer), m_x, m_y);
    m_threshold = std::max<std::size_t>(m_threshold, 2 * m_buffer.size());
  }
}

std::vector<ParetoPoint> ParetoAccumulator::front() const {
  return pareto_front(m_buffer, m_x, m_y);
}

} // namespace rightsize
