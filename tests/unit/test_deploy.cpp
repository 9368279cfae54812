// Deployment settings (core plan_deployment) and the emitted engine commands / Kubernetes YAML,
// parsed back with yaml-cpp (docs/deploy.md).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "deploy_fixtures.hpp"
#include "engine_fixtures.hpp"
#include <yaml-cpp/yaml.h>

using namespace rightsize;
using namespace rightsize::test;

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

TEST_CASE("plan_deployment: a profile whose u is of free memory emits u itself", "[deploy]") {
  // TensorRT-LLM's profile states u as free_gpu_memory_fraction (methodology §2.1): the flag is u.
  Candidate c = tp2_candidate();
  c.estimate.memory.usable_fraction = 0.85;
  c.estimate.memory.usable_fraction_of_free = true;
  const PreparedModel pm = prepare_model(test::llama31_8b(), precision_from_shorthand(NumberFormat::fp8));
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  const DeployPlan d = plan_deployment(c, pm, test::h100_sxm(), w, EngineConfig{}, capacity(c));
  CHECK(d.kv_free_memory_fraction == 0.85);
}

TEST_CASE("plan_deployment: a one-sequence replica still gets a target of one", "[deploy]") {
  Candidate c = tp2_candidate();
  c.estimate.concurrency = 1;
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  const DeployPlan d =
      plan_deployment(c, pm, test::h100_sxm(), InferenceWorkload{}, EngineConfig{}, capacity(c));
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
  in.image = "vllm/vllm-openai:v0.11.2";
  in.prometheus_url = "http://prometheus:9090";
  in.model_name = "meta-llama/Llama-3.1-8B-Instruct";
  in.plan = fp8_plan();
  in.cpu_cores_per_gpu = 1.25;     // 2 GPUs: 2.5 cores = "2500m"
  in.memory_bytes_per_gpu = 6.5e9; // 2 GPUs: 13 GB = "13G"
  in.command = engine_command(Engine::vllm, in.plan, in.model_name);
  CHECK(in.name == "chat-8b");
  in.weights.checkpoint_bytes = 16.06e9;
  in.weights.cache_gib = 17; // ceil(16.06e9 × 1.1 / 2^30) = ceil(16.45)
  in.weights.hf_token_secret = "hf-token";
  const std::vector<YAML::Node> all = YAML::LoadAll(k8s_manifests(in));
  // The model cache's claim comes first: ReadWriteMany, sized from the checkpoint.
  REQUIRE(all.size() == 3);
  CHECK(all[0]["kind"].as<std::string>() == "PersistentVolumeClaim");
  CHECK(all[0]["metadata"]["name"].as<std::string>() == "chat-8b-model-cache");
  CHECK(all[0]["spec"]["accessModes"][0].as<std::string>() == "ReadWriteMany");
  CHECK(all[0]["spec"]["resources"]["requests"]["storage"].as<std::string>() == "17Gi");
  const YAML::Node init = all[1]["spec"]["template"]["spec"]["initContainers"][0];
  CHECK(init["name"].as<std::string>() == "fetch-weights");
  CHECK(init["args"][0].as<std::string>() == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(init["env"][1]["valueFrom"]["secretKeyRef"]["name"].as<std::string>() == "hf-token");
  CHECK(all[1]["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
            .as<std::string>() == "chat-8b-model-cache");
  const std::vector<YAML::Node> docs = without_config_maps(all);
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
  CHECK(ctr["image"].as<std::string>() == "vllm/vllm-openai:v0.11.2");
  CHECK(ctr["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 2);
  CHECK(ctr["resources"]["requests"]["nvidia.com/gpu"].as<int>() == 2);
  // Host CPU and memory: requested per GPU, never limited (Burstable, not BestEffort).
  CHECK(ctr["resources"]["requests"]["cpu"].as<std::string>() == "2500m");
  CHECK(ctr["resources"]["requests"]["memory"].as<std::string>() == "13G");
  CHECK(!ctr["resources"]["limits"]["cpu"]);
  CHECK(!ctr["resources"]["limits"]["memory"]);
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
  CHECK_FALSE(all[0]["metadata"]["namespace"]);

  // A namespace: every object names it and the query counts only its pods.
  in.namespace_name = "inference-prod";
  const std::vector<YAML::Node> scoped = YAML::LoadAll(k8s_manifests(in));
  REQUIRE(scoped.size() == 3);
  for (const YAML::Node& object : scoped)
    CHECK(object["metadata"]["namespace"].as<std::string>() == "inference-prod");
  CHECK(scoped[2]["spec"]["triggers"][0]["metadata"]["query"].as<std::string>() ==
        "sum(vllm:num_requests_running{model_name=\"meta-llama/Llama-3.1-8B-Instruct\",namespace=\"inference-"
        "prod\"}) + sum(vllm:num_requests_waiting{model_name=\"meta-llama/Llama-3.1-8B-Instruct\",namespace="
        "\"inference-prod\"})");
}

TEST_CASE("k8s_name makes DNS-1123 labels", "[deploy]") {
  using rightsize::cli::k8s_name;
  CHECK(k8s_name("--A_b..c--") == "a-b-c");
  CHECK(k8s_name("") == "rightsize");
  CHECK(k8s_name(std::string(100, 'x')).size() == 63);
}

TEST_CASE("the k8s goldens on the shipped examples parse as a workload and its autoscaler", "[deploy]") {
  struct Golden {
    const char* name;
    const char* workload;
    const char* autoscaler;
  };
  for (const Golden& g : {Golden{"recommend_emit_k8s", "Deployment", "ScaledObject"},
                          Golden{"recommend_emit_k8s_hpa", "Deployment", "HorizontalPodAutoscaler"},
                          Golden{"check_emit_k8s", "Deployment", "ScaledObject"},
                          Golden{"recommend_emit_lws", "LeaderWorkerSet", "ScaledObject"},
                          Golden{"check_emit_lws", "LeaderWorkerSet", "ScaledObject"},
                          Golden{"check_emit_lws_hpa", "LeaderWorkerSet", "HorizontalPodAutoscaler"},
                          Golden{"recommend_emit_k8s_sglang", "Deployment", "ScaledObject"},
                          Golden{"recommend_emit_k8s_trtllm", "Deployment", "ScaledObject"},
                          Golden{"check_emit_lws_sglang", "LeaderWorkerSet", "ScaledObject"},
                          Golden{"check_emit_adp_k8s", "Deployment", "ScaledObject"}}) {
    INFO(g.name);
    const std::string path = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/cli/" + g.name + "/stdout";
    const std::vector<YAML::Node> docs = without_config_maps(YAML::LoadAllFromFile(path));
    REQUIRE(docs.size() == 2);
    const YAML::Node& w = docs[0];
    const YAML::Node& a = docs[1];
    CHECK(w["kind"].as<std::string>() == g.workload);
    const bool lws = std::string(g.workload) == "LeaderWorkerSet";
    const YAML::Node pod =
        lws ? w["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"] : w["spec"]["template"]["spec"];
    CHECK(pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].as<int>() >= 1);
    CHECK_FALSE(pod["nodeSelector"]["rightsize.io/gpu"].as<std::string>().empty());
    if (lws) {
      CHECK(w["spec"]["leaderWorkerTemplate"]["size"].as<int>() >= 2);
      CHECK(w["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]
             ["limits"]["nvidia.com/gpu"]
                 .as<int>() >= 1);
    }
    CHECK(a["kind"].as<std::string>() == g.autoscaler);
    CHECK(a["spec"]["scaleTargetRef"]["name"].as<std::string>() == w["metadata"]["name"].as<std::string>());
    if (std::string(g.autoscaler) == "ScaledObject") {
      const int min_replicas = a["spec"]["minReplicaCount"].as<int>();
      CHECK(a["spec"]["maxReplicaCount"].as<int>() >= min_replicas);
      CHECK(std::stod(a["spec"]["triggers"][0]["metadata"]["threshold"].as<std::string>()) >= 1.0);
    } else {
      CHECK(a["spec"]["scaleTargetRef"]["kind"].as<std::string>() == g.workload);
      CHECK(a["spec"]["maxReplicas"].as<int>() >= a["spec"]["minReplicas"].as<int>());
      CHECK(a["spec"]["minReplicas"].as<int>() >= 1);
      CHECK(std::stod(a["spec"]["metrics"][0]["pods"]["target"]["averageValue"].as<std::string>()) >= 1.0);
    }
    if (lws) {
      CHECK(a["spec"]["scaleTargetRef"]["apiVersion"].as<std::string>() == "leaderworkerset.x-k8s.io/v1");
      CHECK(a["spec"]["scaleTargetRef"]["kind"].as<std::string>() == "LeaderWorkerSet");
    }
  }
}

TEST_CASE("plan_deployment: a replica over two nodes is a leader and a worker pod", "[deploy]") {
  const DeployPlan d = multi_node_plan(8, 2); // 16 GPUs on 8-GPU nodes
  CHECK(d.gpus_per_replica == 16);
  CHECK(d.nodes_per_replica == 2);
  CHECK(d.gpus_per_worker_pod == 8);
  CHECK(d.gpus_per_leader_pod == 8);
  const DeployPlan u = multi_node_plan(4, 3); // 12 GPUs: a full worker node, 4 on the leader's
  CHECK(u.nodes_per_replica == 2);
  CHECK(u.gpus_per_worker_pod == 8);
  CHECK(u.gpus_per_leader_pod == 4);
  const DeployPlan one = fp8_plan(); // 2 GPUs: one pod with both
  CHECK(one.nodes_per_replica == 1);
  CHECK(one.gpus_per_leader_pod == 2);
}

// SGLang's shipped tiers (data/engines.json, 0.5.1-era server_args.py): an 80 GB H100 (74.5 GiB) is in
// the 35–160 GiB tier, CUDA graphs to 256 sequences below TP 4 and to 512 from TP 4. The plan carries
// the estimate's limit and the SGLang command passes it as --cuda-graph-max-bs.
TEST_CASE("the SGLang command passes the CUDA-graph limit the estimate assumed", "[deploy]") {
  using namespace rightsize::cli;
  const EngineConfig sglang = test::shipped_engine(EngineKind::sglang);
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  Candidate c = tp2_candidate();
  const DeployPlan tp2 = plan_deployment(c, pm, test::h100_sxm(), w, sglang, capacity(c));
  CHECK(tp2.cuda_graph_max_batch == 256);
  CHECK(has_pair(engine_command(Engine::sglang, tp2, "m").args, "--cuda-graph-max-bs", "256"));
  c.layout.tp = 4;
  c.layout.gpus = 4;
  const DeployPlan tp4 = plan_deployment(c, pm, test::h100_sxm(), w, sglang, capacity(c));
  CHECK(tp4.cuda_graph_max_batch == 512);
  CHECK(has_pair(engine_command(Engine::sglang, tp4, "m").args, "--cuda-graph-max-bs", "512"));
  // vLLM sizes its graphs from --max-num-seqs itself: no graph flag.
  const EngineCommand v = engine_command(Engine::vllm, tp4, "m");
  CHECK(std::find(v.args.begin(), v.args.end(), "--cuda-graph-max-bs") == v.args.end());
}

TEST_CASE("plan_candidate_deployment: the capacity plan under the search's headroom", "[deploy]") {
  // One replica sized on 10 req/s; the SLA's 25 req/s peak and 12 req/s average.
  Candidate c = tp2_candidate();
  c.replicas = 4;
  c.sizing_requests_per_s_per_replica = 10.0;
  Sla sla;
  sla.requests_per_s = 25.0;
  sla.average_requests_per_s = 12.0;
  SearchPolicy policy;
  policy.throughput_headroom = 0.5;
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  const DeployPlan d =
      plan_candidate_deployment(c, pm, test::h100_sxm(), w, sla, policy, PricingModel::on_demand);
  // Average replicas ceil(12 × 1.5 / 10) = 2; peak = the candidate's 4.
  CHECK(d.initial_replicas == 2);
  CHECK(d.min_replicas == 2);
  CHECK(d.max_replicas == 4);
  // Threshold floor(80 / 1.5) = 53: the search's headroom, not the default 20 %.
  CHECK(d.target_inflight_per_replica == 53.0);
}

TEST_CASE("an HPA manifest parses back with the capacity plan's numbers and its adapter rule", "[deploy]") {
  using namespace rightsize::cli;
  const std::string text = k8s_manifests(k8s_inputs(fp8_plan(), Autoscaler::hpa));
  const std::vector<YAML::Node> docs = without_config_maps(YAML::LoadAll(text));
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["kind"].as<std::string>() == "Deployment");
  const YAML::Node& hpa = docs[1];
  CHECK(hpa["apiVersion"].as<std::string>() == "autoscaling/v2");
  CHECK(hpa["kind"].as<std::string>() == "HorizontalPodAutoscaler");
  CHECK(hpa["spec"]["scaleTargetRef"]["apiVersion"].as<std::string>() == "apps/v1");
  CHECK(hpa["spec"]["scaleTargetRef"]["kind"].as<std::string>() == "Deployment");
  CHECK(hpa["spec"]["scaleTargetRef"]["name"].as<std::string>() == "chat-8b");
  CHECK(hpa["spec"]["minReplicas"].as<int>() == 3);
  CHECK(hpa["spec"]["maxReplicas"].as<int>() == 5);
  CHECK(hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"].as<int>() == 69);
  const YAML::Node m = hpa["spec"]["metrics"][0];
  CHECK(m["type"].as<std::string>() == "Pods");
  CHECK(m["pods"]["metric"]["name"].as<std::string>() ==
        std::string(engine_metrics(Engine::vllm).hpa_metric));
  CHECK(m["pods"]["target"]["type"].as<std::string>() == "AverageValue");
  CHECK(m["pods"]["target"]["averageValue"].as<std::string>() == "66");
  // The adapter rule rides along as comments and is itself valid YAML serving that metric.
  const std::string rule_text = adapter_rule_in_comments(text);
  REQUIRE_FALSE(rule_text.empty());
  const YAML::Node rule = YAML::Load(rule_text)[0];
  CHECK(rule["name"]["as"].as<std::string>() == std::string(engine_metrics(Engine::vllm).hpa_metric));
  CHECK(rule["resources"]["overrides"]["pod"]["resource"].as<std::string>() == "pod");
  CHECK(rule["seriesQuery"].as<std::string>().find("vllm:num_requests_running") != std::string::npos);
  const std::string query = rule["metricsQuery"].as<std::string>();
  CHECK(query.find("vllm:num_requests_waiting{<<.LabelMatchers>>}") != std::string::npos);
  CHECK(query.find("<<.GroupBy>>") != std::string::npos);
  CHECK(rule_text == prometheus_adapter_rule(Engine::vllm) + "\n");
}

TEST_CASE("the autoscalers keep one replica when the plan scales to zero", "[deploy]") {
  using namespace rightsize::cli;
  DeployPlan p = fp8_plan();
  p.min_replicas = 0;
  p.scale_to_zero = true;
  const std::vector<YAML::Node> docs =
      without_config_maps(YAML::LoadAll(k8s_manifests(k8s_inputs(p, Autoscaler::hpa))));
  REQUIRE(docs.size() == 2);
  CHECK(docs[1]["spec"]["minReplicas"].as<int>() == 1);
  // KEDA too: its trigger reads the engine pods' own gauges, which no pod exports at zero replicas,
  // so nothing would scale the workload back up (docs/deploy.md).
  const std::vector<YAML::Node> keda =
      without_config_maps(YAML::LoadAll(k8s_manifests(k8s_inputs(p, Autoscaler::keda))));
  CHECK(keda[1]["spec"]["minReplicaCount"].as<int>() == 1);
  CHECK(keda[1]["spec"]["maxReplicaCount"].as<int>() == p.max_replicas);
}

TEST_CASE("a multi-node replica is a LeaderWorkerSet the autoscalers target", "[deploy]") {
  using namespace rightsize::cli;
  const DeployPlan p = multi_node_plan(8, 2);
  for (Autoscaler a : {Autoscaler::keda, Autoscaler::hpa}) {
    const std::vector<YAML::Node> docs = without_config_maps(YAML::LoadAll(k8s_manifests(k8s_inputs(p, a))));
    REQUIRE(docs.size() == 2);
    const YAML::Node& lws = docs[0];
    CHECK(lws["apiVersion"].as<std::string>() == "leaderworkerset.x-k8s.io/v1");
    CHECK(lws["kind"].as<std::string>() == "LeaderWorkerSet");
    CHECK(lws["metadata"]["name"].as<std::string>() == "chat-8b");
    CHECK(lws["spec"]["replicas"].as<int>() == 3);
    const YAML::Node t = lws["spec"]["leaderWorkerTemplate"];
    CHECK(t["size"].as<int>() == 2);
    CHECK(t["restartPolicy"].as<std::string>() == "RecreateGroupOnPodRestart");
    const YAML::Node leader = t["leaderTemplate"]["spec"];
    const YAML::Node worker = t["workerTemplate"]["spec"];
    CHECK(t["leaderTemplate"]["metadata"]["labels"]["role"].as<std::string>() == "leader");
    CHECK(leader["nodeSelector"]["rightsize.io/gpu"].as<std::string>() == "H100-SXM");
    CHECK(worker["nodeSelector"]["rightsize.io/gpu"].as<std::string>() == "H100-SXM");
    CHECK(leader["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 8);
    CHECK(worker["containers"][0]["resources"]["requests"]["nvidia.com/gpu"].as<int>() == 8);
    CHECK(leader["containers"][0]["ports"][0]["containerPort"].as<int>() == 8000);
    CHECK_FALSE(worker["containers"][0]["ports"]);
    CHECK(leader["containers"][0]["command"].as<std::vector<std::string>>() ==
          std::vector<std::string>{"sh", "-c"});
    const std::string lead = leader["containers"][0]["args"][0].as<std::string>();
    CHECK(lead.find("multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE) && exec vllm serve") !=
          std::string::npos);
    CHECK(
        lead.find("--tensor-parallel-size 8 --pipeline-parallel-size 2 --distributed-executor-backend ray") !=
        std::string::npos);
    const std::string work = worker["containers"][0]["args"][0].as<std::string>();
    CHECK(work.find("multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)") != std::string::npos);
    const YAML::Node ref = docs[1]["spec"]["scaleTargetRef"];
    CHECK(ref["apiVersion"].as<std::string>() == "leaderworkerset.x-k8s.io/v1");
    CHECK(ref["kind"].as<std::string>() == "LeaderWorkerSet");
    CHECK(ref["name"].as<std::string>() == "chat-8b");
  }
}

TEST_CASE("check --emit and recommend --emit write the same manifests for the same deployment", "[deploy]") {
  // chat-8b on 3 × H100-SXM is recommend's H100-SXM winner (1 GPU × 3 replicas); checking that
  // deployment must give the same engine settings and autoscaler, only the header line differs.
  const auto body = [](const char* name) {
    std::ifstream f(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/cli/" + name + "/stdout");
    std::string first;
    std::getline(f, first);
    CHECK(first.rfind("# rightsize: chat-8b on 1 × H100-SXM (TP1 PP1), ", 0) == 0);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  const std::string recommended = body("recommend_emit_k8s");
  REQUIRE_FALSE(recommended.empty());
  CHECK(recommended == body("check_emit_k8s"));
}

TEST_CASE("plan_in_flight: Poisson arrivals cap at the p99 in flight and target its mean", "[deploy]") {
  Candidate c = tp2_candidate(); // KV cache holds 80 sequences
  c.estimate.open_loop = true;
  c.estimate.in_flight = 33.0; // mean in flight per replica at the planned peak
  c.estimate.concurrency = 33;
  CapacityPlan plan;
  plan_in_flight(c, 0.2, plan);
  // p99 of Poisson(33) = 47 (test_load_model.cpp); the target is the mean, ⌈33⌉ = 33, not
  // 33 / 1.2 = 27 (which would scale out below the planned peak).
  CHECK(plan.in_flight_cap_per_replica == 47);
  CHECK(plan.in_flight_target_per_replica == 33.0);
  CHECK_FALSE(plan.in_flight_cap_kv_bound);
  CHECK(plan.in_flight_queue_probability == Approx(0.0083341).epsilon(1e-4));
  CHECK(in_flight_p99_fits(c.estimate, 1));
  // The deployment takes the plan's cap and target; the engine note says how often requests wait.
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  const DeployPlan d =
      plan_deployment(c, pm, test::h100_sxm(), InferenceWorkload{}, EngineConfig{}, capacity(c));
  CHECK(d.max_num_seqs == 47);
  CHECK(d.target_inflight_per_replica == 33.0);
  const auto v = rightsize::cli::engine_command(rightsize::cli::Engine::vllm, d, "m");
  REQUIRE_FALSE(v.notes.empty());
  CHECK(v.notes.back().find("the in-flight cap 47 is the p99") != std::string::npos);
  CHECK(v.notes.back().find("0.8 % of the time") != std::string::npos);

  // A KV cache of 40 sequences holds less than the p99: the cap is the cache, and the count
  // exceeds 40 with probability 1 − P(N ≤ 40) = 0.0988 under Poisson(33).
  c.estimate.max_concurrency = 40;
  plan_in_flight(c, 0.2, plan);
  CHECK(plan.in_flight_cap_per_replica == 40);
  CHECK(plan.in_flight_cap_kv_bound);
  CHECK(plan.in_flight_queue_probability == Approx(0.0988).epsilon(0.01));
  CHECK_FALSE(in_flight_p99_fits(c.estimate, 1));

  // Eight attention-DP ranks of 33/8 = 4.125 each: per rank p99 of Poisson(4.125) = 9, so 72.
  c.layout.attention_dp = 8;
  c.estimate.max_concurrency = 500;
  plan_in_flight(c, 0.2, plan);
  CHECK(plan.in_flight_cap_per_replica == 72);
}
