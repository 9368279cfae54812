#pragma once
// A small SVG writer (no libraries): shapes and escaped text with fixed two-decimal coordinates,
// so the same drawing gives the same bytes. Used by `sweep --plot` (docs/sweep.md "Plot").
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::cli {

/// A point in SVG user units (pixels, y down).
struct SvgPoint {
  double x = 0.0;
  double y = 0.0;
};

/// Text placement.
struct SvgTextStyle {
  std::string_view anchor = "start"; ///< start, middle, end
  double size = 12.0;                ///< font size, px
  bool bold = false;
  double rotate = 0.0; ///< degrees about the anchor point
  std::string_view fill = "#222";
};

/// Builds one standalone SVG document.
class SvgWriter {
public:
  /// Starts a document of `width` × `height` px with a white background and `title` (<title>).
  SvgWriter(double width, double height, std::string_view title);
  void line(SvgPoint from, SvgPoint to, std::string_view stroke, double width, bool dashed = false);
  void rect(SvgPoint corner, double width, double height, std::string_view fill, std::string_view stroke);
  void circle(SvgPoint center, double radius, std::string_view fill, double opacity = 1.0);
  /// A circle's outline only (a hollow marker, or a ring around a point).
  void ring(SvgPoint center, double radius, std::string_view stroke, double width);
  /// An open polyline; `css_class` names it (e.g. "pareto", "series").
  void polyline(std::span<const SvgPoint> points, std::string_view stroke, double width,
                std::string_view css_class);
  void text(SvgPoint at, std::string_view text, const SvgTextStyle& style = {});
  /// Closes the document and returns it.
  [[nodiscard]] std::string finish();

private:
  std::string m_out;
};

/// Escapes text for XML character data and attribute values (& < > " ').
std::string xml_escape(std::string_view text);

/// About `target` evenly spaced "nice" tick values (1, 2 or 5 × 10^k steps) covering [lo, hi].
std::vector<double> linear_ticks(double lo, double hi, int target = 6);
/// Powers of ten covering [lo, hi] (lo > 0), at most ~8 (every 2nd or 3rd decade on wide ranges).
std::vector<double> log_ticks(double lo, double hi);
/// A short tick label: "0.5", "20", "1.5k", "2M", "1e-05".
std::string tick_label(double value);

} // namespace rightsize::cli
