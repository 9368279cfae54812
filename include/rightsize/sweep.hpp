#pragma once
// The pure parts of `rightsize sweep` (docs/sweep.md): value lists and ranges for one grid axis,
// the mixed-radix grid index (last axis fastest) and the Pareto front of two metrics.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

/// Most points one sweep may have (product of all axis sizes).
inline constexpr std::uint64_t k_max_sweep_points = 100'000'000;
/// Most axes (`--vary` flags) one sweep may have.
inline constexpr std::size_t k_max_sweep_axes = 16;

/// The values of one grid axis, in the order given.
struct AxisValues {
  std::vector<std::string> texts; ///< each value as written in output ("64", "fp8", "0.5")
  std::vector<double> numbers;    ///< parallel to `texts` when `numeric`
  bool numeric = false;           ///< every value is a finite number
  bool integral = false;          ///< numeric and every value is a whole number
};

/// A parsed value list, or the reason it is not one (`error` non-empty, a finished lower-case message).
struct AxisParse {
  AxisValues values;
  std::string error;
};

/// Parses VALUES of `--vary KEY=VALUES`: a list `1,8,64` / `bf16,fp8`, or a range `A..B` (step +1),
/// `A..B:+S` (arithmetic) or `A..B:xF` (geometric, F > 1). Ranges include B when a step lands on it
/// (within 1e-9 relative) and never pass it. More than `max_values` values is an error.
AxisParse parse_axis_values(std::string_view text, std::uint64_t max_values = k_max_sweep_points);

/// Product of the sizes, or 0 when it exceeds `limit` (overflow-safe).
std::uint64_t grid_points(std::span<const std::size_t> sizes, std::uint64_t limit = k_max_sweep_points);

/// A mixed-radix grid over axes of the given sizes. Point index i maps to one value per axis with
/// the last axis varying fastest (the order of a nested loop over the axes as given).
class GridShape {
public:
  GridShape() = default;
  /// `sizes` must be non-empty entries, at most k_max_sweep_axes of them.
  explicit GridShape(std::span<const std::size_t> sizes);
  /// Number of points (1 for no axes).
  [[nodiscard]] std::uint64_t size() const { return m_size; }
  [[nodiscard]] std::size_t axes() const { return m_axes; }
  /// Writes the value index of each axis for point `index` into `digits` (size >= axes()).
  void decode(std::uint64_t index, std::span<std::size_t> digits) const;

private:
  std::array<std::uint64_t, k_max_sweep_axes> m_sizes{};
  std::size_t m_axes = 0;
  std::uint64_t m_size = 1;
};

/// Whether a Pareto objective is better low (cost, latency, memory) or high (throughput).
enum class Direction : std::uint8_t { minimize, maximize };

/// One candidate for the front: two objective values and the grid index of its point.
struct ParetoPoint {
  double x = 0.0;
  double y = 0.0;
  std::uint64_t index = 0;
};

/// The points no other point dominates (at least as good on both objectives and better on one),
/// sorted by index. Points with equal objectives are all kept. Non-finite values are dropped.
std::vector<ParetoPoint> pareto_front(std::vector<ParetoPoint> points, Direction x, Direction y);

/// Keeps a running Pareto front of a stream of points in bounded memory: candidates are buffered
/// and reduced to their front whenever the buffer doubles past the last front.
class ParetoAccumulator {
public:
  ParetoAccumulator(Direction x, Direction y) : m_x(x), m_y(y) {}
  /// Offers one point (non-finite values are ignored).
  void add(const ParetoPoint& point);
  /// The front of every point offered so far, sorted by index.
  [[nodiscard]] std::vector<ParetoPoint> front() const;

private:
  Direction m_x;
  Direction m_y;
  std::vector<ParetoPoint> m_buffer;
  std::size_t m_threshold = 1 << 16;
};

} // namespace rightsize
