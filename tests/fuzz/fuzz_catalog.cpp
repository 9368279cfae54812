// libFuzzer target: bytes (mostly mutated valid catalogs) as a GPU catalog -> parse_catalog (the in-memory
// twin of load_catalog). A catalog with errors must end in ErrorList; an accepted one must give positive,
// finite memory and prices, find every GPU by id, and finite estimates for a small model on every
// replica layout the search would try.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog_io.hpp"
#include "fuzz_common.hpp"
#include "json_mutator.hpp"
#include "json_reader.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/search.hpp"

namespace {

using namespace rightsize;

ModelSpec small_model() {
  ModelSpec m;
  m.layers = 16;
  m.hidden_size = 2048;
  m.heads = 16;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_size = 8192;
  m.vocab_size = 32000;
  return m;
}

void check_catalog(const io::Catalog& catalog) {
  fuzz::require(!catalog.gpus.empty(), "an accepted catalog has GPUs");
  static const PreparedModel pm = prepare_model(small_model(), Precision{});
  SearchPolicy policy;
  policy.max_nodes = 2;
  InferenceWorkload w;
  for (const Gpu& gpu : catalog.gpus) {
    fuzz::require(io::find_gpu(catalog, gpu.id) == &gpu, "find_gpu finds every id");
    fuzz::require(std::isfinite(gpu.visible_memory()) && gpu.visible_memory() > 0.0,
                  "positive visible memory");
    for (PricingModel model : {PricingModel::on_demand, PricingModel::spot, PricingModel::on_prem}) {
      const ResolvedPrice price = resolve_price(gpu, model, "", TcoParams{});
      fuzz::require(std::isfinite(price.usd_per_hour) && price.usd_per_hour >= 0.0, "finite price");
      fuzz::require(!price.known || price.usd_per_hour > 0.0, "a known price is positive");
    }
    for (const Deployment& layout : replica_layouts(pm.model, gpu, policy)) {
      const InferenceEstimate e = estimate_inference(pm, w, gpu, layout, policy.engine, nullptr, 1.0);
      fuzz::require(std::isfinite(e.tpot_s) && std::isfinite(e.ttft_s) &&
                        std::isfinite(e.memory.per_gpu_bytes) && std::isfinite(e.output_tokens_per_s) &&
                        std::isfinite(e.usd_per_million_output_tokens),
                    "finite estimates on every layout");
    }
  }
}

} // namespace

// Structure-aware: most mutations edit one field of a valid catalog (see json_mutator.hpp).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return rightsize::fuzz::mutate_json(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = io::parse_json(text, "gpus.json");
    check_catalog(io::parse_catalog(doc, "gpus.json"));
  });
  return 0;
}
