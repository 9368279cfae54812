#pragma once
// Invariants of an accepted GPU catalog, shared by fuzz_catalog and fuzz_catalog_add: GPUs found by
// id, positive memory, finite prices, and finite estimates for a small model on every replica
// layout the search would try.
#include <cmath>

#include "fuzz_common.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/search.hpp"

namespace rightsize::fuzz {

inline ModelSpec small_model() {
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

/// Checks one GPU of an accepted catalog.
inline void check_catalog_gpu(const io::Catalog& catalog, const Gpu& gpu) {
  static const PreparedModel pm = prepare_model(small_model(), Precision{});
  SearchPolicy policy;
  policy.max_nodes = 2;
  InferenceWorkload w;
  fuzz::require(io::find_gpu(catalog, gpu.id) == &gpu, "find_gpu finds every id");
  fuzz::require(std::isfinite(gpu.visible_memory()) && gpu.visible_memory() > 0.0, "positive visible memory");
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

/// Checks every GPU of an accepted catalog.
inline void check_catalog(const io::Catalog& catalog) {
  fuzz::require(!catalog.gpus.empty(), "an accepted catalog has GPUs");
  for (const Gpu& gpu : catalog.gpus)
    check_catalog_gpu(catalog, gpu);
}

} // namespace rightsize::fuzz
