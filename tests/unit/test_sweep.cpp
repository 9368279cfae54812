// Sweep core: value lists and ranges, grid indexing, Pareto front (docs/sweep.md).
#include <random>

#include <catch2/catch.hpp>

#include "rightsize/sweep.hpp"

using namespace rightsize;

namespace {

std::vector<std::string> texts(std::string_view text) {
  const AxisParse p = parse_axis_values(text);
  INFO(p.error);
  REQUIRE(p.error.empty());
  return p.values.texts;
}

std::string error_of_sweep(std::string_view text, std::uint64_t max_values = k_max_sweep_points) {
  return parse_axis_values(text, max_values).error;
}

using V = std::vector<std::string>;

} // namespace

TEST_CASE("value lists keep their order and detect numbers", "[core][sweep]") {
  CHECK(texts("1,8,64") == V{"1", "8", "64"});
  CHECK(texts(" bf16 , fp8 ") == V{"bf16", "fp8"});
  CHECK(texts("0.5,2") == V{"0.5", "2"});
  CHECK(texts("1e3") == V{"1000"});
  CHECK(texts("1,auto") == V{"1", "auto"});
  const AxisParse p = parse_axis_values("1,8,64");
  CHECK(p.values.numeric);
  CHECK(p.values.integral);
  CHECK(p.values.numbers == std::vector<double>{1, 8, 64});
  CHECK_FALSE(parse_axis_values("0.5,2").values.integral);
  CHECK_FALSE(parse_axis_values("1,auto").values.numeric);
}

TEST_CASE("ranges expand arithmetically and geometrically, inclusive of a reached end", "[core][sweep]") {
  CHECK(texts("1..256:x2") == V{"1", "2", "4", "8", "16", "32", "64", "128", "256"});
  CHECK(texts("1..100:x10") == V{"1", "10", "100"});
  CHECK(texts("1..200:x10") == V{"1", "10", "100"});
  CHECK(texts("1024..4096:+1024") == V{"1024", "2048", "3072", "4096"});
  CHECK(texts("1..5") == V{"1", "2", "3", "4", "5"});
  CHECK(texts("0.1..0.5:+0.1") == V{"0.1", "0.2", "0.3", "0.4", "0.5"});
  CHECK(texts("7..7") == V{"7"});
  CHECK(texts("1..10:*3") == V{"1", "3", "9"});
  CHECK(parse_axis_values("1024..32768:+1024").values.texts.size() == 32);
}

TEST_CASE("bad value lists and ranges say what was expected", "[core][sweep]") {
  CHECK(error_of_sweep("") == "expected at least one value, got none");
  CHECK(error_of_sweep("1,,2") == "expected a comma-separated list without empty values, got \"1,,2\"");
  CHECK(error_of_sweep("256..1") == "expected a range start at most its end, got \"256..1\"");
  CHECK(error_of_sweep("a..b") ==
        "expected a range of numbers such as 1..256:x2 or 1024..32768:+1024, got \"a..b\"");
  CHECK(error_of_sweep("1..8:2") ==
        "expected a range step \"+S\" (arithmetic) or \"xF\" (geometric), got \"2\"");
  CHECK(error_of_sweep("1..8:+0") == "expected a positive arithmetic step, got \"+0\"");
  CHECK(error_of_sweep("0..8:x2") ==
        "expected a geometric range with a start above 0 and a factor above 1, got \"0..8:x2\"");
  CHECK(error_of_sweep("1..8:x1") ==
        "expected a geometric range with a start above 0 and a factor above 1, got \"1..8:x1\"");
  CHECK(error_of_sweep("1..1e12") ==
        "range \"1..1e12\" has 1000000000000 values, more than the limit of 100000000");
  CHECK(error_of_sweep("1..100", 10) == "range \"1..100\" has 100 values, more than the limit of 10");
}

TEST_CASE("grid indices decode with the last axis fastest", "[core][sweep]") {
  const std::vector<std::size_t> sizes = {2, 3, 4};
  const GridShape grid(sizes);
  CHECK(grid.size() == 24);
  std::array<std::size_t, 3> d{};
  grid.decode(0, d);
  CHECK(d == std::array<std::size_t, 3>{0, 0, 0});
  grid.decode(1, d);
  CHECK(d == std::array<std::size_t, 3>{0, 0, 1});
  grid.decode(4, d);
  CHECK(d == std::array<std::size_t, 3>{0, 1, 0});
  grid.decode(23, d);
  CHECK(d == std::array<std::size_t, 3>{1, 2, 3});
  CHECK(GridShape{}.size() == 1);
}

TEST_CASE("grid size is bounded without overflow", "[core][sweep]") {
  const std::vector<std::size_t> ok = {1000, 1000, 100};
  const std::vector<std::size_t> big = {100000, 100000, 100000, 100000};
  CHECK(grid_points(ok) == 100'000'000);
  CHECK(grid_points(big) == 0);
  CHECK(grid_points(std::vector<std::size_t>{1000, 1000, 101}) == 0);
}

TEST_CASE("Pareto front of a hand-made example", "[core][sweep]") {
  // (cost, tpot), both minimized. By hand: A(1,9) B(2,5) C(2,6)x D(3,5)x E(4,2) F(5,2)x G(4,2) H(6,1)
  // C is dominated by B (same x, higher y); D by B (higher x, same y); F by E; E and G tie: both kept.
  const std::vector<ParetoPoint> points = {{1, 9, 0}, {2, 5, 1}, {2, 6, 2}, {3, 5, 3},
                                           {4, 2, 4}, {5, 2, 5}, {4, 2, 6}, {6, 1, 7}};
  std::vector<std::uint64_t> kept;
  for (const auto& p : pareto_front(points, Direction::minimize, Direction::minimize))
    kept.push_back(p.index);
  CHECK(kept == std::vector<std::uint64_t>{0, 1, 4, 6, 7});

  // Throughput (y) maximized against cost minimized: high y is good.
  const std::vector<ParetoPoint> tput = {{1, 100, 0}, {2, 300, 1}, {3, 200, 2}, {1, 50, 3}, {4, 300, 4}};
  kept.clear();
  for (const auto& p : pareto_front(tput, Direction::minimize, Direction::maximize))
    kept.push_back(p.index);
  CHECK(kept == std::vector<std::uint64_t>{0, 1});
}

TEST_CASE("non-finite points never reach the front", "[core][sweep]") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<ParetoPoint> points = {{inf, 0, 0}, {1, std::nan(""), 1}, {3, 3, 2}};
  const auto front = pareto_front(points, Direction::minimize, Direction::minimize);
  REQUIRE(front.size() == 1);
  CHECK(front[0].index == 2);
}

TEST_CASE("the running front equals the front of all points", "[core][sweep][property]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> coord(0, 2000); // integers: many ties
  std::vector<ParetoPoint> all;
  ParetoAccumulator acc(Direction::minimize, Direction::maximize);
  for (std::uint64_t i = 0; i < 300000; ++i) {
    const ParetoPoint p{static_cast<double>(coord(rng)), static_cast<double>(coord(rng)), i};
    all.push_back(p);
    acc.add(p);
  }
  const auto expected = pareto_front(all, Direction::minimize, Direction::maximize);
  const auto got = acc.front();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK(got[i].index == expected[i].index);
}
