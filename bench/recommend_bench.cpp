// Benchmark: a full-catalog `recommend` (every shipped GPU, every replica layout, auto concurrency,
// replica sizing, ranking) on each shipped inference example. Prints wall time per call for the
// core search alone and for load + search (what one CLI run does, minus process start).
//   recommend_bench [ITERATIONS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/catalog/catalog_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const std::string root = RIGHTSIZE_SOURCE_DIR;
  const std::vector<std::string> examples = {"chat-8b", "chat-70b-fp8", "mixtral-moe", "deepseek-v3",
                                             "impossible-sla"};
  std::printf("%-16s %10s %12s %14s\n", "example", "candidates", "search ms", "load+search ms");
  for (const auto& name : examples) {
    std::string spec_path = root;
    spec_path.append("/data/examples/").append(name).append(".json");
    std::size_t candidates = 0;
    double search_s = 0.0;
    const double t0 = now_s();
    for (int i = 0; i < iterations; ++i) {
      const Spec spec = io::load_spec(spec_path, root + "/data/models");
      const io::Catalog catalog = io::load_catalog(root + "/data/gpus.json");
      std::vector<double> prices;
      for (const auto& gpu : catalog.gpus) {
        prices.push_back(resolve_price(gpu, PricingModel::on_demand, "", TcoParams{}).usd_per_hour);
      }
      const std::vector<PreparedModel> models = {prepare_model(spec.model, spec.precision)};
      const double s0 = now_s();
      const Recommendation r =
          recommend(models, spec.inference, spec.sla, catalog.gpus, prices, SearchPolicy{});
      search_s += now_s() - s0;
      candidates = r.candidates.size() + r.rejected.size();
    }
    const double total_s = now_s() - t0;
    std::printf("%-16s %10zu %12.3f %14.3f\n", name.c_str(), candidates, search_s / iterations * 1e3,
                total_s / iterations * 1e3);
  }
  return 0;
}
