// SVG writer and axis ticks for `sweep --plot`.
#include "render/svg.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace rightsize::cli {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

SvgWriter::SvgWriter(double width, double height, std::string_view title) {
  m_out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                      "viewBox=\"0 0 {0:.0f} {1:.0f}\" "
                      "font-family=\"Helvetica, Arial, sans-serif\">\n"
                      "<title>{2}</title>\n"
                      "<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n",
                      width, height, xml_escape(title));
}

void SvgWriter::line(SvgPoint from, SvgPoint to, std::string_view stroke, double width, bool dashed) {
  m_out += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" "
                       "stroke-width=\"{:g}\"{}/>\n",
                       from.x, from.y, to.x, to.y, stroke, width, dashed ? " stroke-dasharray=\"3,3\"" : "");
}

void SvgWriter::rect(SvgPoint corner, double width, double height, std::string_view fill,
                     std::string_view stroke) {
  m_out += fmt::format(
      "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" stroke=\"{}\"/>\n",
      corner.x, corner.y, width, height, fill, stroke);
}

void SvgWriter::circle(SvgPoint c, double radius, std::string_view fill, double opacity) {
  m_out += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:g}\" fill=\"{}\" fill-opacity=\"{:g}\"/>\n",
                       c.x, c.y, radius, fill, opacity);
}

void SvgWriter::ring(SvgPoint c, double radius, std::string_view stroke, double width) {
  m_out += fmt::format(
      "<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:g}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:g}\"/>\n",
      c.x, c.y, radius, stroke, width);
}

void SvgWriter::polyline(std::span<const SvgPoint> points, std::string_view stroke, double width,
                         std::string_view css_class) {
  m_out += fmt::format("<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:g}\" points=\"",
                       css_class, stroke, width);
  for (std::size_t i = 0; i < points.size(); ++i) {
    m_out += fmt::format("{}{:.2f},{:.2f}", i == 0 ? "" : " ", points[i].x, points[i].y);
  }
  m_out += "\"/>\n";
}

void SvgWriter::text(SvgPoint at, std::string_view text, const SvgTextStyle& s) {
  std::string transform;
  if (s.rotate != 0.0)
    transform = fmt::format(" transform=\"rotate({:g} {:.2f} {:.2f})\"", s.rotate, at.x, at.y);
  m_out += fmt::format(
      "<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{:g}\" text-anchor=\"{}\" fill=\"{}\"{}{}>{}</text>\n",
      at.x, at.y, s.size, s.anchor, s.fill, s.bold ? " font-weight=\"bold\"" : "", transform,
      xml_escape(text));
}

std::string SvgWriter::finish() {
  m_out += "</svg>\n";
  return std::move(m_out);
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw * (1.0 - 1e-9)) break;
  }
  std::vector<double> ticks;
  for (double k = std::floor(lo / step); k * step <= hi + step * 1e-9; k += 1.0) {
    const double v = std::stod(fmt::format("{:.12g}", k * step)); // 0.6, not 0.6000000000000001
    if (v >= lo - step * 1e-9) ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  const int every = std::max(1, (last - first) / 7 + 1);
  std::vector<double> ticks;
  for (int e = first; e <= last; e += every)
    ticks.push_back(std::pow(10.0, e));
  return ticks;
}

std::string tick_label(double v) {
  const double a = std::fabs(v);
  if (a == 0.0) return "0";
  if (a >= 1e9 && a < 1e12) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6 && a < 1e9) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4 && a < 1e6) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

} // namespace rightsize::cli
