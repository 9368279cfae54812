// The sweep plot: data setup and drawing (docs/sweep.md "Plot").
#include "render/sweep_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "render/render.hpp"
#include "render/svg.hpp"

namespace rightsize::cli {
namespace {

constexpr double k_width = 860;
constexpr double k_height = 540;
constexpr double k_left = 80;
constexpr double k_right = 650; // plot area right edge; the legend sits beyond it
constexpr double k_top = 50;
constexpr double k_bottom = 460; // plot area bottom edge
constexpr std::size_t k_max_legend = 12;

// Tableau 10: distinguishable and colour-blind aware.
constexpr std::array<std::string_view, 10> k_colors = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// One plot axis: data range in shown units, linear or log10, mapped to pixels.
struct Scale {
  double lo = 0.0;
  double hi = 1.0;
  bool log = false;
  double px_lo = 0.0;
  double px_hi = 1.0;
  std::vector<double> ticks;

  [[nodiscard]] double map(double v) const {
    const double t =
        log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return px_lo + t * (px_hi - px_lo);
  }
};

Scale make_scale(std::vector<double> values, double px_lo, double px_hi) {
  Scale s;
  s.px_lo = px_lo;
  s.px_hi = px_hi;
  if (values.empty()) values = {0.0, 1.0};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  double lo = *mn;
  double hi = *mx;
  s.log = lo > 0.0 && hi / lo > 100.0; // more than two decades
  if (s.log) {
    s.lo = std::pow(10.0, std::floor(std::log10(lo)));
    s.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    s.ticks = log_ticks(s.lo, s.hi);
    return s;
  }
  if (hi == lo) {
    const double pad = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  s.ticks = linear_ticks(lo, hi);
  const double step = s.ticks.size() > 1 ? s.ticks[1] - s.ticks[0] : (hi - lo);
  s.lo = std::min(lo, std::floor(lo / step) * step);
  s.hi = std::max(hi, std::ceil(hi / step) * step);
  s.ticks = linear_ticks(s.lo, s.hi);
  return s;
}

std::string axis_title(const Metric& m, bool log) {
  std::string title(m.label);
  if (!m.unit.empty()) title += fmt::format(" ({})", m.unit);
  return log ? title + ", log scale" : title;
}

void draw_axes(SvgWriter& svg, const Scale& x, const Scale& y, const PlotData& plot) {
  svg.rect({k_left, k_top}, k_right - k_left, k_bottom - k_top, "#fafafa", "#888");
  for (const double t : x.ticks) {
    const double px = x.map(t);
    svg.line({px, k_top}, {px, k_bottom}, "#e0e0e0", 1);
    svg.text({px, k_bottom + 18}, tick_label(t), {.anchor = "middle", .size = 11});
  }
  for (const double t : y.ticks) {
    const double py = y.map(t);
    svg.line({k_left, py}, {k_right, py}, "#e0e0e0", 1);
    svg.text({k_left - 6, py + 4}, tick_label(t), {.anchor = "end", .size = 11});
  }
  svg.text({(k_left + k_right) / 2, k_bottom + 42}, axis_title(plot.x, x.log),
           {.anchor = "middle", .size = 13});
  svg.text({22, (k_top + k_bottom) / 2}, axis_title(plot.y, y.log),
           {.anchor = "middle", .size = 13, .rotate = -90});
  svg.text({k_left, 28}, fmt::format("{} vs {}", plot.y.label, plot.x.label), {.size = 15, .bold = true});
}

void draw_legend(SvgWriter& svg, const PlotData& plot, bool has_front, bool has_missing) {
  double y = k_top + 10;
  const double x = k_right + 20;
  if (!plot.series_key.empty()) {
    svg.text({x, y}, plot.series_key, {.size = 12, .bold = true});
    y += 20;
    for (std::size_t i = 0; i < plot.series_names.size() && i < k_max_legend; ++i) {
      svg.circle({x + 5, y - 4}, 5, k_colors[i % k_colors.size()]);
      svg.text({x + 16, y}, plot.series_names[i], {.size = 12});
      y += 18;
    }
    if (plot.series_names.size() > k_max_legend) {
      svg.text({x, y}, fmt::format("and {} more", plot.series_names.size() - k_max_legend), {.size = 11});
      y += 18;
    }
  }
  if (has_front) {
    y += 6;
    svg.line({x, y - 4}, {x + 12, y - 4}, "#222", 2.5);
    svg.text({x + 16, y}, "Pareto front", {.size = 12});
    y += 18;
  }
  if (has_missing) {
    y += 6;
    svg.ring({x + 5, y - 4}, 3, "#555", 1.2);
    svg.text({x + 16, y}, "misses a requirement", {.size = 12});
    y += 18;
  }
  if (!plot.knees.empty()) {
    y += 6;
    svg.ring({x + 5, y - 4}, 7, "#222", 2);
    svg.text({x + 16, y}, "knee: most load per latency", {.size = 12});
  }
}

} // namespace

std::string render_plot(const PlotData& plot) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto* list : {&plot.points, &plot.front}) {
    for (const PlotPoint& p : *list) {
      xs.push_back(p.x * plot.x.scale);
      ys.push_back(p.y * plot.y.scale);
    }
  }
  const Scale sx = make_scale(xs, k_left, k_right);
  const Scale sy = make_scale(ys, k_bottom, k_top);
  auto at = [&](const PlotPoint& p) {
    return SvgPoint{sx.map(p.x * plot.x.scale), sy.map(p.y * plot.y.scale)};
  };

  SvgWriter svg(k_width, k_height, fmt::format("rightsize sweep: {} vs {}", plot.y.name, plot.x.name));
  draw_axes(svg, sx, sy, plot);
  if (plot.lines) {
    std::map<std::size_t, std::vector<const PlotPoint*>> series;
    for (const PlotPoint& p : plot.points)
      series[p.series].push_back(&p);
    for (auto& [s, points] : series) {
      std::stable_sort(points.begin(), points.end(),
                       [](const PlotPoint* a, const PlotPoint* b) { return a->x < b->x; });
      std::vector<SvgPoint> line;
      for (const PlotPoint* p : points)
        line.push_back(at(*p));
      svg.polyline(line, k_colors[s % k_colors.size()], 1.5, "series");
    }
  }
  bool has_missing = false;
  for (const PlotPoint& p : plot.points) {
    const std::string_view colour = k_colors[p.series % k_colors.size()];
    if (p.ok) {
      svg.circle(at(p), 3, colour, 0.75);
    } else {
      svg.ring(at(p), 3, colour, 1.2);
      has_missing = true;
    }
  }
  // The knee of each series of a latency–load curve (methodology §3.1 "The knee").
  for (const Knee& k : plot.knees) {
    const SvgPoint c = at({k.x, k.y, k.series, 0, true});
    svg.ring(c, 7, "#222", 2);
    svg.text({c.x + 10, c.y - 8}, fmt::format("knee {:.4g}", k.x * plot.x.scale), {.size = 11});
  }
  if (!plot.front.empty()) {
    std::vector<PlotPoint> front = plot.front;
    std::stable_sort(front.begin(), front.end(), [](const PlotPoint& a, const PlotPoint& b) {
      return a.x != b.x ? a.x < b.x : a.y < b.y;
    });
    std::vector<SvgPoint> line;
    line.reserve(front.size());
    for (const PlotPoint& p : front)
      line.push_back(at(p));
    svg.polyline(line, "#222", 2.5, "pareto");
  }
  draw_legend(svg, plot, !plot.front.empty(), has_missing);
  std::string caption = fmt::format("{} points, {} meet every requirement",
                                    format_count(static_cast<double>(plot.total_points)),
                                    format_count(static_cast<double>(plot.ok_points)));
  if (plot.stride > 1) caption += fmt::format("; every {}th point drawn", plot.stride);
  svg.text({k_left, k_height - 14}, caption, {.size = 11, .fill = "#555"});
  return svg.finish();
}

std::string render_knees(const PlotData& plot) {
  if (plot.knees.empty()) return {};
  std::string out =
      fmt::format("knee of {} against {} (the most load per unit of latency, methodology §3.1):", plot.y.name,
                  plot.x.name);
  for (std::size_t i = 0; i < plot.knees.size(); ++i) {
    const Knee& k = plot.knees[i];
    out += i == 0 ? " " : "; ";
    if (!plot.series_key.empty() && k.series < plot.series_names.size())
      out += fmt::format("{}={}: ", plot.series_key, plot.series_names[k.series]);
    out += fmt::format("{:.4g} ({} {:.3g} {})", k.x * plot.x.scale, plot.y.label, k.y * plot.y.scale,
                       plot.y.unit);
  }
  return out + "\n";
}

} // namespace rightsize::cli
