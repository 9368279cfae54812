// data/engines.json: the serving-engine profiles as data (docs/engines.md, methodology §3.2).
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/engine_setup.hpp"
#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "io/catalog/engines_io.hpp"
#include "io/json/json_reader.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

using namespace rightsize;

namespace {

nlohmann::json shipped_document() {
  return io::read_json_file(std::string(RIGHTSIZE_DATA_DIR) + "/engines.json");
}

/// "pointer: message" of the error parsing `document` throws.
std::string parse_error(const nlohmann::json& document) {
  try {
    (void)io::parse_engines(document, "engines.json");
  } catch (const Error& e) {
    return e.pointer() + ": " + e.message();
  }
  return "no error";
}

} // namespace

TEST_CASE("the shipped vLLM profile is the reference engine of the worked examples", "[engine][io]") {
  // The unit tests' hand-computed examples run on EngineConfig's initialisers; the shipped vLLM
  // profile must be the same engine, field by field.
  const EngineConfig reference;
  const EngineConfig& vllm = test::shipped_engines().of(EngineKind::vllm);
  CHECK(vllm.usable_fraction == reference.usable_fraction);
  CHECK(vllm.block_tokens == reference.block_tokens);
  CHECK(vllm.max_batched_tokens == reference.max_batched_tokens);
  CHECK(vllm.max_num_seqs == reference.max_num_seqs);
  CHECK(vllm.runtime_reserve_bytes == reference.runtime_reserve_bytes);
  CHECK(vllm.nccl_reserve_bytes == reference.nccl_reserve_bytes);
  CHECK(vllm.cuda_graph_bytes == reference.cuda_graph_bytes);
  CHECK(vllm.step_overhead_s == reference.step_overhead_s);
  CHECK(vllm.layer_overhead_s == reference.layer_overhead_s);
  CHECK(vllm.moe_layer_overhead_s == reference.moe_layer_overhead_s);
  CHECK(vllm.prefill_layer_overhead_s == reference.prefill_layer_overhead_s);
  CHECK(vllm.prefill_expert_overhead_s == reference.prefill_expert_overhead_s);
  CHECK(vllm.indexer_layer_overhead_s == reference.indexer_layer_overhead_s);
  CHECK(vllm.collective_base_latency_s == reference.collective_base_latency_s);
  CHECK(vllm.scaleup_hop_latency_s == reference.scaleup_hop_latency_s);
  CHECK(vllm.pcie_hop_latency_s == reference.pcie_hop_latency_s);
  CHECK(vllm.network_hop_latency_s == reference.network_hop_latency_s);
  CHECK(vllm.cuda_graph_max_batch == reference.cuda_graph_max_batch);
  CHECK(vllm.eager_step_overhead_s == reference.eager_step_overhead_s);
  CHECK(vllm.gemm_half_efficiency_tokens == reference.gemm_half_efficiency_tokens);
  CHECK(vllm.gemm_half_efficiency_cols == reference.gemm_half_efficiency_cols);
  CHECK(vllm.gpu_memory_tier_count == 0);
  // What sets vLLM apart from the bare reference: its fitted wave synchrony and fixed TTFT.
  CHECK(vllm.wave_synchrony == 0.1);
  CHECK(vllm.ttft_fixed_s == 0.05);
  // KV admission (methodology §3.1 "KV in flight"): vLLM holds what a request has, SGLang reserves
  // its decayed new_token_ratio of the rest, TensorRT-LLM's GUARANTEED_NO_EVICT all of it.
  CHECK(vllm.kv_reserved_output_share == 0.0);
  CHECK(test::shipped_engines().of(EngineKind::sglang).kv_reserved_output_share == 0.098);
  CHECK(test::shipped_engines().of(EngineKind::trtllm).kv_reserved_output_share == 1.0);
  // The memory fraction: vLLM's and SGLang's of the whole GPU, TensorRT-LLM's of what is free after
  // loading (methodology §2.1).
  CHECK(vllm.usable_fraction_of_free == reference.usable_fraction_of_free);
  CHECK_FALSE(test::shipped_engines().of(EngineKind::sglang).usable_fraction_of_free);
  CHECK(test::shipped_engines().of(EngineKind::trtllm).usable_fraction_of_free);
}

TEST_CASE("SGLang's memory tiers come from the file in order of their bound", "[engine][io]") {
  const EngineConfig& sglang = test::shipped_engines().of(EngineKind::sglang);
  REQUIRE(sglang.gpu_memory_tier_count == 3);
  CHECK(sglang.gpu_memory_tiers[0].below_gib == 35.0);
  CHECK(sglang.gpu_memory_tiers[1].below_gib == 160.0);
  CHECK(sglang.gpu_memory_tiers[2].below_gib == 0.0); // the last tier has no bound
  CHECK(sglang.gpu_memory_tiers[2].max_batched_tokens == 16384);
  CHECK(sglang.gpu_memory_tiers_large_tp == 4);
  const EngineConfig& trtllm = test::shipped_engines().of(EngineKind::trtllm);
  CHECK(trtllm.gpu_memory_tier_count == 0);
  CHECK(trtllm.adp_balance_timeout_steps == 50.0);
}

TEST_CASE("an engines file names the pointer of what is wrong", "[engine][io]") {
  nlohmann::json doc = shipped_document();
  doc["engines"]["vllm"]["fields"]["usable_fraction"]["source"] = "NOWHERE";
  CHECK(parse_error(doc) == "/engines/vllm/fields/usable_fraction/source: expected a tag of /sources");

  doc = shipped_document();
  doc["engines"]["trtllm"]["fields"].erase("max_num_seqs");
  CHECK(parse_error(doc) == "/engines/trtllm/fields/max_num_seqs: missing required key");

  doc = shipped_document();
  doc["engines"]["sglang"]["fields"]["usable_fraction"]["value"] = 1.5;
  CHECK(parse_error(doc).rfind("/engines/sglang/fields/usable_fraction/value: ", 0) == 0);

  doc = shipped_document();
  doc["engines"]["sglang"]["gpu_memory_tiers"]["tiers"][1]["below_gib"] = 20; // below the first tier's 35
  CHECK(parse_error(doc).rfind("/engines/sglang/gpu_memory_tiers/tiers/1/below_gib: ", 0) == 0);

  doc = shipped_document();
  doc["engines"]["trtllm"]["fields"]["usable_fraction_of"]["value"] = "free";
  CHECK(parse_error(doc).rfind("/engines/trtllm/fields/usable_fraction_of/value: unknown value \"free\"",
                               0) == 0);

  doc = shipped_document();
  doc["engines"]["vllm"]["fields"]["layer_overhead_s"]["basis"] = "guessed";
  CHECK(parse_error(doc).rfind("/engines/vllm/fields/layer_overhead_s/basis: ", 0) == 0);

  doc = shipped_document();
  doc["engines"]["sglang"]["vendors"]["value"] = {"intel"};
  CHECK(parse_error(doc).rfind("/engines/sglang/vendors/value/0: unknown value \"intel\"", 0) == 0);
  doc["engines"]["sglang"]["vendors"]["value"] = nlohmann::json::array();
  CHECK(parse_error(doc) ==
        "/engines/sglang/vendors/value: expected at least one vendor, \"nvidia\" or \"amd\"");
}

TEST_CASE("an engine's default images are pinned releases of the vendors it runs on", "[engine][io]") {
  const EngineProfiles& shipped = test::shipped_engines();
  CHECK(shipped.of(EngineKind::vllm).image_nvidia == "vllm/vllm-openai:v0.11.2");
  CHECK(shipped.of(EngineKind::vllm).image_amd == "rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210");
  CHECK(shipped.of(EngineKind::sglang).image_amd.empty()); // --image required on AMD GPUs
  CHECK(shipped.of(EngineKind::trtllm).image_amd.empty());

  const std::string pinned = "expected an image pinned to a release, name:tag (not :latest) or "
                             "name@sha256:digest";
  for (const char* moving : {"vllm/vllm-openai:latest", "vllm/vllm-openai", "registry:5000/vllm", "x:"}) {
    nlohmann::json doc = shipped_document();
    doc["engines"]["vllm"]["images"]["value"]["nvidia"] = moving;
    CHECK(parse_error(doc) == "/engines/vllm/images/value/nvidia: " + pinned);
  }
  nlohmann::json doc = shipped_document();
  doc["engines"]["vllm"]["images"]["value"]["nvidia"] = "registry:5000/vllm/vllm-openai:v0.11.2";
  CHECK(io::parse_engines(doc, "engines.json").of(EngineKind::vllm).image_nvidia ==
        "registry:5000/vllm/vllm-openai:v0.11.2");
  doc["engines"]["vllm"]["images"]["value"]["nvidia"] = "vllm/vllm-openai@sha256:0123abcd";
  CHECK(io::parse_engines(doc, "engines.json").of(EngineKind::vllm).image_nvidia ==
        "vllm/vllm-openai@sha256:0123abcd");

  doc = shipped_document();
  doc["engines"]["trtllm"]["images"]["value"]["amd"] = "nvcr.io/nvidia/tensorrt-llm/release:1.2.0";
  CHECK(parse_error(doc) ==
        "/engines/trtllm/images/value/amd: expected an image only for a vendor listed in /vendors");
  doc = shipped_document();
  doc["engines"]["sglang"]["images"]["value"]["intel"] = "x:1";
  CHECK(parse_error(doc).rfind("/engines/sglang/images/value/intel: unknown key \"intel\"", 0) == 0);
}

TEST_CASE("engine_runs_on: TensorRT-LLM on NVIDIA only, vLLM and SGLang on both vendors", "[engine][core]") {
  Gpu amd = test::h100_sxm();
  amd.vendor = "amd";
  const Gpu nvidia = test::h100_sxm();
  const auto& trt = test::shipped_engines().of(EngineKind::trtllm);
  const auto& vllm = test::shipped_engines().of(EngineKind::vllm);
  const auto& sglang = test::shipped_engines().of(EngineKind::sglang);
  CHECK(engine_runs_on(trt, nvidia));
  CHECK_FALSE(engine_runs_on(trt, amd));
  CHECK(engine_runs_on(vllm, amd));
  CHECK(engine_runs_on(sglang, amd));
  CHECK(engine_runs_on(EngineConfig{}, amd)); // a hand-built profile runs anywhere
  // The estimate carries it to the judge.
  Deployment dep;
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  InferenceWorkload w;
  w.concurrency = 1;
  CHECK_FALSE(estimate_inference(pm, w, amd, dep, trt, nullptr, 0.0).engine_runs);
  CHECK(estimate_inference(pm, w, amd, dep, vllm, nullptr, 0.0).engine_runs);
}

TEST_CASE("the capacity scheduler policy sets what a TensorRT-LLM request reserves, and only there",
          "[engines]") {
  // The one parser: TensorRT-LLM's names in either case, nothing else; the share each reserves.
  CHECK(parse_capacity_policy("max_utilization") == CapacitySchedulerPolicy::max_utilization);
  CHECK(parse_capacity_policy("GUARANTEED_NO_EVICT") == CapacitySchedulerPolicy::guaranteed_no_evict);
  CHECK_FALSE(parse_capacity_policy("max_util"));
  CHECK_FALSE(parse_capacity_policy(""));
  CHECK(reserved_output_share(CapacitySchedulerPolicy::max_utilization) == 0.0);
  CHECK(reserved_output_share(CapacitySchedulerPolicy::guaranteed_no_evict) == 1.0);
  // The inverse, as the outputs name it: TensorRT-LLM profiles only, in TensorRT-LLM's spelling.
  const EngineProfiles& profiles = test::shipped_engines();
  CHECK(capacity_policy_for(0.0) == CapacitySchedulerPolicy::max_utilization);
  CHECK(capacity_policy_for(1.0) == CapacitySchedulerPolicy::guaranteed_no_evict);
  CHECK(capacity_policy_of(profiles.of(EngineKind::trtllm)) == CapacitySchedulerPolicy::guaranteed_no_evict);
  CHECK_FALSE(capacity_policy_of(profiles.of(EngineKind::vllm)));
  CHECK_FALSE(capacity_policy_of(profiles.of(EngineKind::sglang)));
  CHECK(std::string(to_string(CapacitySchedulerPolicy::max_utilization)) == "MAX_UTILIZATION");
  CHECK(std::string(to_string(CapacitySchedulerPolicy::guaranteed_no_evict)) == "GUARANTEED_NO_EVICT");
  app::EngineSetup setup;
  setup.engine = EngineKind::trtllm;
  // The profile's default is GUARANTEED_NO_EVICT: the maximum output reserved (r = 1).
  CHECK(app::engine_config(setup, std::nullopt, profiles).kv_reserved_output_share == 1.0);
  setup.capacity_policy = CapacitySchedulerPolicy::max_utilization;
  CHECK(app::engine_config(setup, std::nullopt, profiles).kv_reserved_output_share == 0.0);
  setup.capacity_policy = CapacitySchedulerPolicy::guaranteed_no_evict;
  CHECK(app::engine_config(setup, std::nullopt, profiles).kv_reserved_output_share == 1.0);
  // The spec's workload.engine counts as the engine too.
  setup.engine.reset();
  setup.capacity_policy = CapacitySchedulerPolicy::max_utilization;
  CHECK(app::engine_config(setup, EngineKind::trtllm, profiles).kv_reserved_output_share == 0.0);
  // vLLM and SGLang have no capacity scheduler policy: a usage error naming the flag.
  for (const EngineKind other : {EngineKind::vllm, EngineKind::sglang}) {
    try {
      (void)app::engine_config(setup, other, profiles);
      FAIL("expected a usage error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::usage);
      CHECK(e.source() == "--capacity-scheduler-policy");
    }
  }
}
