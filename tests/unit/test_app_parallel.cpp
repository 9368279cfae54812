// Jobs on several threads (src/app/parallel.hpp); the disaggregated search run through them is
// tested in test_disagg.cpp.
#include <atomic>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "app/parallel.hpp"

using namespace rightsize;

TEST_CASE("parallel_for runs every job once and rethrows the first failure", "[app]") {
  for (int threads : {1, 2, 5}) {
    std::vector<std::atomic<int>> runs(37);
    app::parallel_for(runs.size(), threads, [&](std::size_t i) { ++runs[i]; });
    for (const auto& r : runs)
      CHECK(r.load() == 1);
  }
  app::parallel_for(0, 4, [](std::size_t) { FAIL("no job to run"); });
  CHECK_THROWS_AS(app::parallel_for(8, 3,
                                    [](std::size_t i) {
                                      if (i == 5) throw std::runtime_error("job 5");
                                    }),
                  std::runtime_error);
}
