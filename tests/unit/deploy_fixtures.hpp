#pragma once
// Shared fixtures of the deployment tests (test_deploy.cpp, test_deploy_engines.cpp): candidates,
// capacity plans and Kubernetes inputs with hand-checkable numbers.
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "render/emit/engine_command.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "rightsize/deploy.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::test {

// A TP2 H100 candidate whose estimate met the SLA at 100 sequences per replica while its KV cache
// holds only 80 at the full context; per GPU 8 GB weights, 1 GB activations, 1 GB buffers of 80 GB
// capacity with 72 GB usable (u = 0.9).
inline Candidate tp2_candidate() {
  Candidate c;
  c.layout.tp = 2;
  c.layout.pp = 1;
  c.layout.gpus = 2;
  c.replicas = 3;
  c.estimate.concurrency = 100;
  c.estimate.max_concurrency = 80;
  c.estimate.memory.weights_bytes = 8e9;
  c.estimate.memory.activations_bytes = 1e9;
  c.estimate.memory.overhead_bytes = 1e9;
  c.estimate.memory.capacity_per_gpu_bytes = 80e9;
  c.estimate.memory.usable_per_gpu_bytes = 72e9;
  return c;
}

// A capacity plan with hand-set replicas and the in-flight cap and target plan_capacity derives
// for `c` at the default 20 % headroom.
inline CapacityPlan capacity(const Candidate& c) {
  CapacityPlan p;
  plan_in_flight(c, 0.2, p);
  p.replicas_peak = 4;
  p.replicas_average = 3;
  p.min_replicas = 3;
  p.max_replicas = 5;
  p.cold_start_s = 68.03;
  return p;
}

// The engine the fixture plans are sized with: the default profile values, reserving each request's
// maximum output in the KV cache (TensorRT-LLM's GUARANTEED_NO_EVICT), so the TensorRT-LLM writer adds
// no capacity scheduler of its own; the vLLM and SGLang writers do not read it.
inline EngineConfig fixture_engine() {
  EngineConfig engine;
  engine.kv_reserved_output_share = 1.0;
  return engine;
}

inline DeployPlan fp8_plan() {
  const PreparedModel pm = prepare_model(test::llama31_8b(), precision_from_shorthand(NumberFormat::fp8));
  PreparedModel with_kv = pm;
  with_kv.precision.kv_cache = NumberFormat::fp8;
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  const Candidate c = tp2_candidate();
  return plan_deployment(c, with_kv, test::h100_sxm(), w, fixture_engine(), capacity(c));
}

// A 16-GPU TP8 × PP2 replica: two 8-GPU H100 nodes.
inline DeployPlan multi_node_plan(int tp, int pp) {
  Candidate c = tp2_candidate();
  c.layout.tp = tp;
  c.layout.pp = pp;
  c.layout.gpus = tp * pp;
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  return plan_deployment(c, pm, test::h100_sxm(), w, fixture_engine(), capacity(c));
}

inline rightsize::cli::K8sInputs k8s_inputs(const DeployPlan& plan, rightsize::cli::Autoscaler autoscaler,
                                            rightsize::cli::Engine engine = rightsize::cli::Engine::vllm) {
  using namespace rightsize::cli;
  K8sInputs in;
  in.name = "chat-8b";
  in.gpu_id = "H100-SXM";
  in.gpu_vendor = "nvidia";
  in.image = "engine-image:1";
  in.prometheus_url = "http://prometheus:9090";
  in.model_name = "meta-llama/Llama-3.1-8B-Instruct";
  in.plan = plan;
  in.engine = engine;
  in.command = engine_command(engine, plan, in.model_name, Target::pod);
  in.autoscaler = autoscaler;
  in.weights.cache = app::ModelCache::none; // the model cache is tested on its own (test_deploy.cpp)
  in.weights.hf_token_secret = "hf-token";
  return in;
}

// A DeepSeek-style attention-DP replica: 8 attention ranks of TP1, experts over all 8 GPUs.
inline DeployPlan adp_plan() {
  Candidate c = tp2_candidate();
  c.layout.tp = 1;
  c.layout.pp = 1;
  c.layout.ep = 8;
  c.layout.attention_dp = 8;
  c.layout.gpus = 8;
  c.estimate.concurrency = 300;
  c.estimate.max_concurrency = 500;
  const PreparedModel pm = prepare_model(test::deepseek_v3(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  return plan_deployment(c, pm, test::h100_sxm(), w, fixture_engine(), capacity(c));
}

// Workload documents (the ConfigMap of TensorRT-LLM's options aside).
/// The workload and its autoscaler: the documents left without TensorRT-LLM's ConfigMap and the
/// model cache's PersistentVolumeClaim.
inline std::vector<YAML::Node> without_config_maps(const std::vector<YAML::Node>& docs) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& d : docs) {
    const std::string kind = d["kind"].as<std::string>();
    if (kind != "ConfigMap" && kind != "PersistentVolumeClaim") out.push_back(d);
  }
  return out;
}

// The comment block of an HPA manifest ("#   " lines) as YAML text.
inline std::string adapter_rule_in_comments(const std::string& manifests) {
  std::string out;
  std::size_t start = 0;
  while (start < manifests.size()) {
    const std::size_t end = manifests.find('\n', start);
    const std::string line = manifests.substr(start, end - start);
    if (line.rfind("#   ", 0) == 0) out += line.substr(4) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

inline bool has_pair(const std::vector<std::string>& args, const std::string& flag,
                     const std::string& value) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag && args[i + 1] == value) return true;
  return false;
}

} // namespace rightsize::test
