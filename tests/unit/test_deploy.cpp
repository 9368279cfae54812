// Deployment settings (core plan_deployment) and the emitted engine commands / Kubernetes YAML,
// parsed back with yaml-cpp (docs/deploy.md).
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "emit/engine_command.hpp"
#include "emit/k8s_manifest.hpp"
#include "fixtures.hpp"
#include "rightsize/deploy.hpp"
#include <yaml-cpp/yaml.h>

using namespace rightsize;

namespace {

// A TP2 H100 candidate whose estimate met the SLA at 100 sequences per replica while its KV cache
// holds only 80 at the full context; per GPU 8 GB weights, 1 GB activations, 1 GB buffers of 80 GB
// capacity with 72 GB usable (u = 0.9).
Candidate tp2_candidate() {
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

CapacityPlan capacity() {
  CapacityPlan p;
  p.replicas_peak = 4;
  p.replicas_average = 3;
  p.min_replicas = 3;
  p.max_replicas = 5;
  p.cold_start_s = 68.03;
  return p;
}

DeployPlan fp8_plan() {
  const PreparedModel pm = prepare_model(test::llama31_8b(), precision_from_shorthand(NumberFormat::fp8));
  PreparedModel with_kv = pm;
  with_kv.precision.kv_cache = NumberFormat::fp8;
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  return plan_deployment(tp2_candidate(), with_kv, test::h100_sxm(), w, EngineConfig{}, capacity(),
                         CapacityPolicy{});
}

bool has_pair(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag && args[i + 1] == value) return true;
  return false;
}

} // namespace

TEST_CASE("plan_deployment: engine limits and autoscaler numbers from the capacity model", "[deploy]") {
  const DeployPlan d = fp8_plan();
  CHECK(d.tensor_parallel == 2);
  CHECK(d.gpus_per_replica == 2);
  CHECK(d.nodes_per_replica == 1); // 2 GPUs of an 8-GPU node
  // max_num_seqs = min(SLA concurrency 100, KV capacity 80) = 80: a larger cap would preempt.
  CHECK(d.kv_capacity_seqs == 80);
  CHECK(d.max_num_seqs == 80);
  CHECK(d.max_num_batched_tokens == 8192); // vLLM default kept by EngineConfig
  CHECK(d.max_model_len_tokens == 1280);   // 1024 + 256
  CHECK(d.gpu_memory_fraction == Approx(0.90));
  // TensorRT-LLM share of free memory: (72 − 10) / (80 − 10) = 62 / 70 = 0.885714.
  CHECK(d.kv_free_memory_fraction == Approx(62.0 / 70.0));
  CHECK(d.kv_cache_fp8);
  CHECK(d.weights == NumberFormat::fp8);
  // Replicas straight from the capacity plan; initial = average = 3.
  CHECK(d.min_replicas == 3);
  CHECK(d.max_replicas == 5);
  CHECK(d.initial_replicas == 3);
  // Per-replica in-flight target: floor(80 / (1 + 0.2 headroom)) = floor(66.7) = 66.
  CHECK(d.target_inflight_per_replica == 66.0);
  // Cold start 68.03 s -> 69 s; scale-down window 69 s; idle before zero max(300, 5 × 69) = 345 s.
  CHECK(d.cold_start_s == 69);
  CHECK(d.scale_down_window_s == 69);
  CHECK(d.idle_before_zero_s == 345);
}

TEST_CASE("plan_deployment: a one-sequence replica still gets a target of one", "[deploy]") {
  Candidate c = tp2_candidate();
  c.estimate.concurrency = 1;
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  const DeployPlan d = plan_deployment(c, pm, test::h100_sxm(), InferenceWorkload{}, EngineConfig{},
                                       capacity(), CapacityPolicy{});
  CHECK(d.max_num_seqs == 1);
  CHECK(d.target_inflight_per_replica == 1.0); // floor(0.8) = 0, raised to 1
  CHECK_FALSE(d.kv_cache_fp8);
}

TEST_CASE("engine commands carry the plan's numbers under each engine's flag names", "[deploy]") {
  using namespace rightsize::cli;
  const DeployPlan d = fp8_plan();
  const EngineCommand v = engine_command(Engine::vllm, d, "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(v.program == std::vector<std::string>{"vllm", "serve"});
  CHECK(v.args.front() == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(has_pair(v.args, "--tensor-parallel-size", "2"));
  CHECK(has_pair(v.args, "--max-num-seqs", "80"));
  CHECK(has_pair(v.args, "--max-num-batched-tokens", "8192"));
  CHECK(has_pair(v.args, "--max-model-len", "1280"));
  CHECK(has_pair(v.args, "--gpu-memory-utilization", "0.90"));
  CHECK(has_pair(v.args, "--kv-cache-dtype", "fp8"));
  CHECK(has_pair(v.args, "--quantization", "fp8"));
  const EngineCommand s = engine_command(Engine::sglang, d, "m");
  CHECK(has_pair(s.args, "--tp-size", "2"));
  CHECK(has_pair(s.args, "--max-running-requests", "80"));
  CHECK(has_pair(s.args, "--chunked-prefill-size", "8192"));
  CHECK(has_pair(s.args, "--kv-cache-dtype", "fp8_e4m3"));
  const EngineCommand t = engine_command(Engine::trtllm, d, "m");
  CHECK(has_pair(t.args, "--tp_size", "2"));
  CHECK(has_pair(t.args, "--max_batch_size", "80"));
  CHECK(has_pair(t.args, "--kv_cache_free_gpu_memory_fraction", "0.89")); // 0.8857 to 2 places
  // A model path with a space is quoted for the shell.
  const std::string script = shell_script(engine_command(Engine::vllm, d, "my model"), "# h\n");
  CHECK(script.find("'my model'") != std::string::npos);
  CHECK(script.rfind("#!/bin/sh\n# h\n", 0) == 0);
}

TEST_CASE("k8s manifests parse back with yaml-cpp and carry the required fields", "[deploy]") {
  using namespace rightsize::cli;
  K8sInputs in;
  in.name = k8s_name("Chat 8B!");
  in.gpu_id = "H100-SXM";
  in.gpu_vendor = "nvidia";
  in.image = "vllm/vllm-openai:latest";
  in.prometheus_url = "http://prometheus:9090";
  in.model_name = "meta-llama/Llama-3.1-8B-Instruct";
  in.plan = fp8_plan();
  in.command = engine_command(Engine::vllm, in.plan, in.model_name);
  CHECK(in.name == "chat-8b");
  const std::vector<YAML::Node> docs = YAML::LoadAll(k8s_manifests(in));
  REQUIRE(docs.size() == 2);
  const YAML::Node& dep = docs[0];
  CHECK(dep["apiVersion"].as<std::string>() == "apps/v1");
  CHECK(dep["kind"].as<std::string>() == "Deployment");
  CHECK(dep["metadata"]["name"].as<std::string>() == "chat-8b");
  CHECK(dep["spec"]["replicas"].as<int>() == 3);
  CHECK(dep["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"].as<std::string>() == "chat-8b");
  const YAML::Node pod = dep["spec"]["template"]["spec"];
  CHECK(dep["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"].as<std::string>() ==
        "chat-8b");
  CHECK(pod["nodeSelector"]["rightsize.io/gpu"].as<std::string>() == "H100-SXM");
  const YAML::Node ctr = pod["containers"][0];
  CHECK(ctr["image"].as<std::string>() == "vllm/vllm-openai:latest");
  CHECK(ctr["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 2);
  CHECK(ctr["resources"]["requests"]["nvidia.com/gpu"].as<int>() == 2);
  CHECK(ctr["ports"][0]["containerPort"].as<int>() == 8000);
  CHECK(ctr["command"].as<std::vector<std::string>>() == in.command.program);
  CHECK(ctr["args"].as<std::vector<std::string>>() == in.command.args);
  // Startup probe: twice the 69 s cold start in 10 s periods = 14 failures.
  CHECK(ctr["startupProbe"]["failureThreshold"].as<int>() == 14);
  const YAML::Node& so = docs[1];
  CHECK(so["apiVersion"].as<std::string>() == "keda.sh/v1alpha1");
  CHECK(so["kind"].as<std::string>() == "ScaledObject");
  CHECK(so["spec"]["scaleTargetRef"]["name"].as<std::string>() == "chat-8b");
  CHECK(so["spec"]["minReplicaCount"].as<int>() == 3);
  CHECK(so["spec"]["maxReplicaCount"].as<int>() == 5);
  CHECK(so["spec"]["cooldownPeriod"].as<int>() == 345);
  CHECK(so["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]["scaleDown"]
          ["stabilizationWindowSeconds"]
              .as<int>() == 69);
  const YAML::Node trig = so["spec"]["triggers"][0];
  CHECK(trig["type"].as<std::string>() == "prometheus");
  CHECK(trig["metricType"].as<std::string>() == "AverageValue");
  CHECK(trig["metadata"]["serverAddress"].as<std::string>() == "http://prometheus:9090");
  CHECK(trig["metadata"]["threshold"].as<std::string>() == "66");
  const std::string query = trig["metadata"]["query"].as<std::string>();
  CHECK(query.find("vllm:num_requests_waiting{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}") !=
        std::string::npos);
}

TEST_CASE("k8s_name makes DNS-1123 labels", "[deploy]") {
  using rightsize::cli::k8s_name;
  CHECK(k8s_name("--A_b..c--") == "a-b-c");
  CHECK(k8s_name("") == "rightsize");
  CHECK(k8s_name(std::string(100, 'x')).size() == 63);
}

TEST_CASE("the k8s goldens on the shipped examples parse as a Deployment and a ScaledObject", "[deploy]") {
  for (const char* name : {"recommend_emit_k8s"}) {
    const std::string path = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/cli/" + name + "/stdout";
    const std::vector<YAML::Node> docs = YAML::LoadAllFromFile(path);
    REQUIRE(docs.size() == 2);
    CHECK(docs[0]["kind"].as<std::string>() == "Deployment");
    CHECK(docs[0]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
              .as<int>() >= 1);
    CHECK(docs[1]["kind"].as<std::string>() == "ScaledObject");
    const int min_replicas = docs[1]["spec"]["minReplicaCount"].as<int>();
    CHECK(docs[1]["spec"]["maxReplicaCount"].as<int>() >= min_replicas);
    CHECK(std::stod(docs[1]["spec"]["triggers"][0]["metadata"]["threshold"].as<std::string>()) >= 1.0);
  }
}
