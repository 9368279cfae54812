// libFuzzer target, structure-aware: mutated specs that parse are estimated on a fixed GPU list
// (prepare_model, estimate_inference for every replica layout, recommend). Every number must be
// finite and non-negative, a fitting estimate must be within the usable memory, and every
// recommended candidate must meet the SLA and come in rank order.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fixed_gpus.hpp"
#include "fuzz_common.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "json_mutator.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/search.hpp"

namespace {

using namespace rightsize;

bool ok(double v) {
  return std::isfinite(v) && v >= 0.0;
}

void check_estimate(const InferenceEstimate& e) {
  const MemoryEstimate& m = e.memory;
  fuzz::require(ok(m.weights_bytes) && ok(m.kv_cache_bytes) && ok(m.activations_bytes) &&
                    ok(m.overhead_bytes),
                "finite non-negative memory terms");
  fuzz::require(ok(m.per_gpu_bytes) && ok(m.usable_per_gpu_bytes) && ok(m.capacity_per_gpu_bytes),
                "finite memory totals");
  fuzz::require(!m.fits || m.per_gpu_bytes <= m.usable_per_gpu_bytes, "fits implies per_gpu_bytes <= usable");
  fuzz::require(e.concurrency >= 0 && e.max_concurrency >= 0, "non-negative concurrency");
  fuzz::require(ok(e.prefill_s) && ok(e.decode_step_s) && ok(e.ttft_s) && ok(e.tpot_s) && ok(e.e2e_s),
                "finite non-negative latencies");
  fuzz::require(ok(e.output_tokens_per_s) && ok(e.requests_per_s) && ok(e.comm_s_per_token),
                "finite throughput");
  fuzz::require(ok(e.usd_per_hour) && ok(e.usd_per_million_output_tokens) && ok(e.usd_per_request),
                "finite cost");
}

SearchPolicy policy_for(const Spec& spec) {
  SearchPolicy policy;
  policy.max_gpus_per_replica = spec.constraints.max_gpus_per_replica;
  policy.max_nodes = spec.constraints.max_nodes;
  return policy;
}

void run_estimates(const Spec& spec) {
  const std::vector<Gpu> gpus = fuzz::fixed_gpus();
  const std::vector<double> prices = fuzz::fixed_prices();
  const std::vector<PreparedModel> models = {prepare_model(spec.model, spec.precision)};
  const SearchPolicy policy = policy_for(spec);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    for (const Deployment& layout : replica_layouts(spec.model, gpus[g], policy)) {
      check_estimate(estimate_inference(models[0], spec.inference, gpus[g], layout, policy.engine, &spec.sla,
                                        prices[g]));
    }
  }
  const Recommendation rec = recommend(models, spec.inference, spec.sla, gpus, prices, policy);
  for (std::size_t i = 0; i < rec.candidates.size(); ++i) {
    const Candidate& c = rec.candidates[i];
    check_estimate(c.estimate);
    fuzz::require(c.meets_sla && c.rejection.term == Term::none && c.estimate.memory.fits,
                  "recommended candidates meet the SLA and fit");
    fuzz::require(!spec.sla.ttft_ms || c.estimate.ttft_s * 1e3 <= *spec.sla.ttft_ms, "winner meets TTFT");
    fuzz::require(!spec.sla.tpot_ms || c.estimate.tpot_s * 1e3 <= *spec.sla.tpot_ms, "winner meets TPOT");
    fuzz::require(c.replicas >= 1 && c.rank == i + 1, "ranks are 1..n");
    if (i > 0)
      fuzz::require(!ranks_before(c, rec.candidates[i - 1],
                                  effective_rank_by(policy.rank_by, models[0].model.kind), gpus),
                    "candidates in rank order");
  }
  for (const Candidate& c : rec.rejected) {
    check_estimate(c.estimate);
    fuzz::require(!c.meets_sla && c.rank == 0, "rejected candidates carry no rank");
  }
}

} // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return rightsize::fuzz::mutate_json(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  rightsize::fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = rightsize::io::parse_json(text, "fuzz.json");
    const Spec spec =
        rightsize::io::parse_spec(doc, "fuzz.json", RIGHTSIZE_FUZZ_BASE_DIR, RIGHTSIZE_FUZZ_MODELS_DIR);
    if (spec.mode == WorkloadMode::inference) run_estimates(spec);
  });
  return 0;
}
