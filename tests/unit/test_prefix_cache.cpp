// Prefix caching and the KV offload tier (docs/methodology.md §3.9): the hits a structure gives,
// the share of the working set HBM and the tier hold, the prefill after a cached prefix, the shared
// prefix's blocks, the tier's load time and the spec's fields. Worked example: Llama-3.1-8B in
// bf16 holds 2 (K, V) × 8 KV heads × 128 × 2 B × 32 layers = 131,072 B of KV per token.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/inference.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

constexpr double k_kv_per_token = 131072.0;

InferenceEstimate at(const InferenceWorkload& w) {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  return estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
}

// 8k-token prompts of 8-turn conversations behind a 1k-token system prompt, 32 clients.
InferenceWorkload chat(std::int64_t conversations) {
  InferenceWorkload w = closed_loop(8192, 256, 32);
  w.prefix_cache.shared_prefix_tokens = 1024;
  w.prefix_cache.turns = 8;
  w.prefix_cache.conversations = conversations;
  return w;
}

} // namespace

TEST_CASE("hits from structure: P/T + (T − 1)(u + O)/2 in whole blocks", "[core][prefix_cache]") {
  // u = (2·8192 − 7·256)/9 = 1621.33 new tokens per turn; c = 1024/8 + 7·(1621.33 + 256)/2 =
  // 128 + 6570.67 = 6698.67, in whole 16-token blocks 6688 (418 blocks).
  const InferenceEstimate e = at(chat(0));
  REQUIRE(e.prefix_cache.active);
  CHECK(e.prefix_cache.requested_hit_rate * 8192.0 == Approx(6688.0));
  // No conversation waits between turns (the clients are the conversations): nothing is evicted.
  CHECK(e.prefix_cache.working_set_bytes == 0.0);
  CHECK(e.prefix_cache.cached_tokens == Approx(6688.0));
  // A measured hit rate: 0.8 × 8192 = 6553.6, in whole blocks 6544.
  InferenceWorkload w = closed_loop(8192, 256, 16);
  w.prefix_cache.hit_rate = 0.8;
  CHECK(at(w).prefix_cache.cached_tokens == Approx(6544.0));
  CHECK_FALSE(at(w).prefix_cache.working_set_known);
}

TEST_CASE("the working set of waiting conversations, and the share HBM holds", "[core][prefix_cache]") {
  // 400 conversations, 32 in flight: 368 wait, each keeping 6570.67 − 1024 = 5546.67 tokens beyond
  // the shared prefix: 368 × 5546.67 × 131,072 B = 267.54 GB per GPU.
  const InferenceEstimate e = at(chat(400));
  const auto& f = e.prefix_cache;
  CHECK(f.working_set_bytes == Approx(368.0 * (6570.0 + 2.0 / 3.0 - 1024.0) * k_kv_per_token).epsilon(1e-9));
  // Uniform reuse over an LRU cache holds F/W of it [FAGIN77]: the history part of the hit shrinks
  // by that share; the shared prefix always stays.
  const double held = f.hbm_cache_bytes / f.working_set_bytes;
  CHECK(held < 0.2);
  CHECK(f.cached_tokens == Approx(std::floor(1024.0 + (6688.0 - 1024.0) * held)).margin(1.0));
  CHECK(f.tier_needed_bytes == Approx(f.working_set_bytes - f.hbm_cache_bytes));
  // Fewer hits, more prefill: TTFT rises above the no-eviction case.
  CHECK(e.ttft_s > at(chat(0)).ttft_s);
}

TEST_CASE("an offload tier holds the rest and costs its load in TTFT", "[core][prefix_cache]") {
  InferenceWorkload w = chat(400);
  w.kv_offload.tier = OffloadTier::cpu;
  w.kv_offload.sized = true;
  const InferenceEstimate sized = at(w);
  const auto& f = sized.prefix_cache;
  CHECK(f.tier_bytes == Approx(f.tier_needed_bytes));
  CHECK(f.cached_tokens == Approx(6688.0).margin(1.0)); // everything held again
  // Host memory over PCIe Gen5 (64 GB/s per direction) at the GPU's link efficiency 0.75: 48 GB/s.
  CHECK(f.tier_gb_per_s == Approx(48.0));
  CHECK(f.tier_load_s == Approx(f.tier_tokens * k_kv_per_token / 48e9).epsilon(1e-9));
  // Sized for a 60 % hit: the tier holds the share (0.6·8192 − 1024)/(6688 − 1024) of the history's
  // working set less what HBM holds, and the hit lands on 0.6 × 8192 = 4915.2 tokens.
  w.kv_offload.target_hit_rate = 0.6;
  const InferenceEstimate target = at(w);
  CHECK(target.prefix_cache.cached_tokens == Approx(4915.0).margin(1.0));
  CHECK(target.prefix_cache.tier_bytes ==
        Approx((0.6 * 8192.0 - 1024.0) / (6688.0 - 1024.0) * f.working_set_bytes - f.hbm_cache_bytes));
  w.kv_offload.target_hit_rate = 0.0;
  // A 64 GiB tier per replica holds 68.72 GB of the 240.6 GB HBM cannot.
  w.kv_offload.sized = false;
  w.kv_offload.bytes = 64.0 * 1073741824.0;
  const InferenceEstimate given = at(w);
  CHECK(given.prefix_cache.tier_used_bytes == Approx(64.0 * 1073741824.0));
  CHECK(given.prefix_cache.cached_tokens < f.cached_tokens);
  CHECK(given.prefix_cache.cached_tokens > at(chat(400)).prefix_cache.cached_tokens);
}

TEST_CASE("a cached prefix shrinks prefill, not below the new tokens' own", "[core][prefix_cache]") {
  InferenceWorkload w = closed_loop(8192, 256, 1);
  const InferenceEstimate none = at(w);
  w.prefix_cache.hit_rate = 0.8; // 6544 cached, 1648 new
  const InferenceEstimate hit = at(w);
  const InferenceEstimate short_prompt = at(closed_loop(1648, 256, 1));
  CHECK(hit.prefill_s < none.prefill_s);
  // The 1648 new tokens attend to the 6544 cached ones too: dearer than a 1648-token prompt alone.
  CHECK(hit.prefill_s > short_prompt.prefill_s);
  // Decode reads the whole context either way; TPOT drops by the prefill it no longer interleaves.
  CHECK(hit.decode_step_s == Approx(none.decode_step_s));
  CHECK(hit.tpot_s < none.tpot_s);
}

TEST_CASE("sequences in flight share the prefix's blocks", "[core][prefix_cache]") {
  // Context 8192 + 256 = 8448 tokens; with a 4096-token shared prefix each sequence holds 4352 of
  // its own and the pool one copy of the prefix: more sequences fit.
  InferenceWorkload w = closed_loop(8192, 256, 16);
  const std::int64_t plain = at(w).max_concurrency;
  w.prefix_cache.shared_prefix_tokens = 4096;
  const InferenceEstimate shared = at(w);
  CHECK(shared.prefix_cache.shared_prefix_bytes == Approx(4096.0 * k_kv_per_token));
  const double pool = static_cast<double>(plain) * 8448.0 * k_kv_per_token; // lower bound of the pool
  CHECK(static_cast<double>(shared.max_concurrency) >=
        std::floor((pool - 4096.0 * k_kv_per_token) / (4352.0 * k_kv_per_token)));
  CHECK(shared.max_concurrency > plain);
}

TEST_CASE("workload.prefix_cache and kv_offload: one form, a tier with its cache", "[io][prefix_cache]") {
  const std::string models = std::string(RIGHTSIZE_DATA_DIR) + "/models";
  nlohmann::json doc = {{"schema_version", 1},
                        {"model", {{"preset", "llama-3.1-8b"}}},
                        {"workload",
                         {{"mode", "inference"},
                          {"input_tokens", 8192},
                          {"output_tokens", 256},
                          {"prefix_cache", {{"shared_prefix_tokens", 1024}, {"turns", 8}}},
                          {"kv_offload", {{"tier", "cpu"}, {"size_gib", "auto"}}}}}};
  const Spec s = io::parse_spec(doc, "s.json", "", models);
  CHECK(s.inference.prefix_cache.turns == 8);
  CHECK(s.inference.kv_offload.sized);
  auto refused = [&](nlohmann::json workload) {
    nlohmann::json d = doc;
    d["workload"] = std::move(workload);
    CHECK_THROWS_AS(io::parse_spec(d, "s.json", "", models), Error);
  };
  nlohmann::json w = doc["workload"];
  w["prefix_cache"] = {{"hit_rate", 0.5}, {"turns", 4}};
  refused(w); // both forms
  w["prefix_cache"] = {{"turns", 1}};
  refused(w); // nothing cached
  w["prefix_cache"] = {{"turns", 100}};
  refused(w); // a mean prompt of 8192 tokens cannot repeat 99 turns: 1 + ⌈99·(1 + 256)/2⌉ = 12,723
  w["prefix_cache"] = {{"shared_prefix_tokens", 8192}};
  refused(w); // the whole prompt
  w = doc["workload"];
  w.erase("prefix_cache");
  refused(w); // a tier without a cache
  w = doc["workload"];
  w["kv_offload"] = {{"tier", "nvme"}, {"size_gib", 512}};
  refused(w); // NVMe without its read bandwidth
  w["kv_offload"] = {{"tier", "cpu"}, {"size_gib", 512}, {"target_hit_rate", 0.6}};
  refused(w); // a target for a tier whose size is given
}
