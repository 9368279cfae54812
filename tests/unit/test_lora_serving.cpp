// Multi-LoRA serving (docs/methodology.md §3.10): an adapter's bytes and FLOPs, the engine's slots,
// the distinct adapters a batch mixes and the spec's fields. Worked example: Llama-3.1-8B, rank 16
// on every projection: 16 × (q 8192 + k, v 2 × 5120 + o 8192 + gate, up 2 × 18,432 + down 18,432)
// = 16 × 81,920 = 1,310,720 parameters per layer, × 32 layers = 41,943,040, 83,886,080 B in 16 bits.
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

constexpr double k_adapter_bytes = 83886080.0;

InferenceEstimate at(std::int64_t concurrency, std::int64_t adapters, std::int64_t max_active, int tp = 1) {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w = closed_loop(1024, 256, concurrency);
  w.lora.adapters = adapters;
  w.lora.rank = adapters > 0 ? 16 : 0;
  w.lora.max_active = max_active;
  Deployment dep;
  dep.gpus = tp;
  dep.tp = tp;
  return estimate_inference(pm, w, h100_sxm(), dep, EngineConfig{}, nullptr, 0.0);
}

} // namespace

TEST_CASE("an adapter's bytes, slots and FLOPs", "[core][lora]") {
  const InferenceEstimate plain = at(32, 0, 0);
  const InferenceEstimate lora = at(32, 100, 32);
  REQUIRE(lora.lora.active);
  CHECK(lora.lora.adapter_bytes == Approx(k_adapter_bytes));
  // 32 slots of the largest rank sit beside the weights.
  CHECK(lora.lora.slot_bytes == Approx(32.0 * k_adapter_bytes));
  CHECK(lora.memory.weights_bytes == Approx(plain.memory.weights_bytes + 32.0 * k_adapter_bytes));
  // 2 FLOPs per adapter parameter and token (x·A, then ·B).
  CHECK(lora.lora.lora_flops_per_token == Approx(2.0 * 41943040.0));
  // TP2 shards one factor of each pair: (1 + 1/2)/2 = 3/4 of the adapter per GPU.
  CHECK(at(32, 100, 32, 2).lora.adapter_bytes == Approx(0.75 * k_adapter_bytes));
}

TEST_CASE("a batch mixes N(1 − (1 − 1/N)^B) adapters, at most the slots", "[core][lora]") {
  // 100 adapters, 32 sequences: 100 × (1 − 0.99^32) = 27.50; one adapter: 1; 8 slots cap it at 8.
  CHECK(at(32, 100, 32).lora.active_in_batch == Approx(100.0 * (1.0 - std::pow(0.99, 32.0))));
  CHECK(at(32, 1, 1).lora.active_in_batch == Approx(1.0));
  CHECK(at(32, 100, 8).lora.active_in_batch == Approx(8.0));
  // The decode step reads each distinct adapter once: 27.5 × 83.9 MB more than the plain step's bytes.
  const InferenceEstimate plain = at(32, 0, 0);
  const InferenceEstimate lora = at(32, 100, 32);
  CHECK(lora.decode_step_s > plain.decode_step_s);
  CHECK(at(32, 100, 8).decode_step_s < lora.decode_step_s);
}

TEST_CASE("workload.lora: adapters and rank, max_active within them", "[io][lora]") {
  const std::string models = std::string(RIGHTSIZE_DATA_DIR) + "/models";
  nlohmann::json doc = {{"schema_version", 1},
                        {"model", {{"preset", "llama-3.1-8b"}}},
                        {"workload", {{"mode", "inference"}, {"lora", {{"adapters", 20}, {"rank", 64}}}}}};
  const Spec s = io::parse_spec(doc, "s.json", "", models);
  CHECK(s.inference.lora.max_active == 8); // SGLang's default, stated in the assumptions
  CHECK(s.inference.lora.targets == LoraTargets::all_linear);
  doc["workload"]["lora"] = {{"adapters", 4}, {"rank", 16}, {"max_active", 5}};
  CHECK_THROWS_AS(io::parse_spec(doc, "s.json", "", models), Error);
  doc["workload"]["lora"] = {{"adapters", 4}};
  CHECK_THROWS_AS(io::parse_spec(doc, "s.json", "", models), Error); // no rank
}
