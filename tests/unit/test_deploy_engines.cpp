// The Kubernetes manifests and launch flags of each engine (SGLang, TensorRT-LLM next to vLLM),
// multi-node SGLang as a LeaderWorkerSet, and attention-DP / expert-parallel layouts (docs/deploy.md),
// parsed back with yaml-cpp.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "deploy_fixtures.hpp"

using namespace rightsize;
using namespace rightsize::test;

TEST_CASE("SGLang and TensorRT-LLM manifests carry their own port, probes, metrics and queries", "[deploy]") {
  using namespace rightsize::cli;
  struct Expect {
    Engine engine;
    int port;
    const char* metrics_path;
    const char* running;
    const char* waiting;
  };
  for (const Expect& e :
       {Expect{Engine::vllm, 8000, "/metrics", "vllm:num_requests_running", "vllm:num_requests_waiting"},
        Expect{Engine::sglang, 30000, "/metrics", "sglang:num_running_reqs", "sglang:num_queue_reqs"},
        Expect{Engine::trtllm, 8000, "/prometheus/metrics", "trtllm_num_requests_running",
               "trtllm_num_requests_waiting"}}) {
    INFO(engine_id(e.engine));
    for (Autoscaler a : {Autoscaler::keda, Autoscaler::hpa}) {
      const K8sInputs in = k8s_inputs(fp8_plan(), a, e.engine);
      const std::string text = k8s_manifests(in);
      const std::vector<YAML::Node> all = YAML::LoadAll(text);
      const std::vector<YAML::Node> docs = without_config_maps(all);
      REQUIRE(docs.size() == 2);
      const YAML::Node tmpl = docs[0]["spec"]["template"];
      const YAML::Node ctr = tmpl["spec"]["containers"][0];
      CHECK(ctr["image"].as<std::string>() == "engine-image:1");
      CHECK(ctr["command"].as<std::vector<std::string>>() == in.command.program);
      CHECK(ctr["args"].as<std::vector<std::string>>() == in.command.args);
      CHECK(ctr["ports"][0]["containerPort"].as<int>() == e.port);
      CHECK(ctr["readinessProbe"]["httpGet"]["path"].as<std::string>() == "/health");
      CHECK(ctr["startupProbe"]["httpGet"]["port"].as<std::string>() == "http");
      CHECK(tmpl["metadata"]["annotations"]["prometheus.io/path"].as<std::string>() == e.metrics_path);
      CHECK(tmpl["metadata"]["annotations"]["prometheus.io/port"].as<std::string>() ==
            std::to_string(e.port));
      if (a == Autoscaler::keda) {
        const std::string query = docs[1]["spec"]["triggers"][0]["metadata"]["query"].as<std::string>();
        CHECK(query == std::string("sum(") + e.running +
                           "{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}) + sum(" + e.waiting +
                           "{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"})");
      } else {
        const std::string metric = engine_metrics(e.engine).hpa_metric;
        CHECK(docs[1]["spec"]["metrics"][0]["pods"]["metric"]["name"].as<std::string>() == metric);
        const YAML::Node rule = YAML::Load(adapter_rule_in_comments(text))[0];
        CHECK(rule["name"]["as"].as<std::string>() == metric);
        CHECK(rule["metricsQuery"].as<std::string>().find(std::string(e.waiting) + "{<<.LabelMatchers>>}") !=
              std::string::npos);
      }
      if (e.engine == Engine::trtllm) {
        // The options file: a ConfigMap first, mounted where --extra_llm_api_options points.
        REQUIRE(all.size() == 3);
        CHECK(all[0]["kind"].as<std::string>() == "ConfigMap");
        CHECK(all[0]["metadata"]["name"].as<std::string>() == "chat-8b-trtllm-options");
        const YAML::Node options = YAML::Load(all[0]["data"]["extra_llm_api_options.yaml"].as<std::string>());
        CHECK(options["enable_iter_perf_stats"].as<bool>());
        CHECK(options["kv_cache_config"]["dtype"].as<std::string>() == "fp8");
        CHECK(has_pair(in.command.args, "--extra_llm_api_options",
                       "/etc/rightsize/extra_llm_api_options.yaml"));
        CHECK(ctr["volumeMounts"][1]["mountPath"].as<std::string>() == "/etc/rightsize");
        CHECK(tmpl["spec"]["volumes"][1]["configMap"]["name"].as<std::string>() == "chat-8b-trtllm-options");
      } else {
        CHECK(all.size() == 2);
      }
    }
  }
}

TEST_CASE("an SGLang replica over two nodes is a LeaderWorkerSet whose pods take their rank", "[deploy]") {
  using namespace rightsize::cli;
  const K8sInputs in = k8s_inputs(multi_node_plan(8, 2), Autoscaler::keda, Engine::sglang);
  const std::vector<YAML::Node> docs = without_config_maps(YAML::LoadAll(k8s_manifests(in)));
  REQUIRE(docs.size() == 2);
  const YAML::Node t = docs[0]["spec"]["leaderWorkerTemplate"];
  CHECK(docs[0]["kind"].as<std::string>() == "LeaderWorkerSet");
  CHECK(t["size"].as<int>() == 2);
  for (const char* role : {"leaderTemplate", "workerTemplate"}) {
    INFO(role);
    const YAML::Node ctr = t[role]["spec"]["containers"][0];
    CHECK(ctr["command"].as<std::vector<std::string>>() ==
          std::vector<std::string>{"python3", "-m", "sglang.launch_server"});
    const auto args = ctr["args"].as<std::vector<std::string>>();
    CHECK(has_pair(args, "--tp-size", "8"));
    CHECK(has_pair(args, "--pp-size", "2"));
    CHECK(has_pair(args, "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"));
    CHECK(has_pair(args, "--nnodes", "$(LWS_GROUP_SIZE)"));
    CHECK(has_pair(args, "--node-rank", "$(LWS_WORKER_INDEX)"));
    CHECK(ctr["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 8);
  }
  CHECK(t["leaderTemplate"]["spec"]["containers"][0]["ports"][0]["containerPort"].as<int>() == 30000);
  CHECK_FALSE(t["workerTemplate"]["spec"]["containers"][0]["ports"]);
  // The script says which variables each node sets, and quotes them so they expand.
  const std::string script =
      shell_script(engine_command(Engine::sglang, multi_node_plan(8, 2), "m"), "# h\n");
  CHECK(script.find("--dist-init-addr \"${LEADER_ADDR}:20000\"") != std::string::npos);
  CHECK(script.find("--nnodes 2") != std::string::npos);
  CHECK(script.find("--node-rank \"${NODE_RANK}\"") != std::string::npos);
  CHECK(script.find(": \"${NODE_RANK:?") != std::string::npos);
}

TEST_CASE("plan_deployment keeps attention DP and splits the in-flight cap per rank", "[deploy]") {
  const DeployPlan d = adp_plan();
  CHECK(d.attention_dp == 8);
  CHECK(d.tensor_parallel == 1);
  CHECK(d.expert_parallel == 8);
  CHECK(d.gpus_per_replica == 8);
  CHECK(d.max_num_seqs == 300);
  CHECK(d.max_num_seqs_per_rank == 38); // ceil(300 / 8)
  CHECK(fp8_plan().max_num_seqs_per_rank == fp8_plan().max_num_seqs);
}

TEST_CASE("attention-DP layouts get each engine's data-parallel attention and expert flags", "[deploy]") {
  using namespace rightsize::cli;
  const DeployPlan d = adp_plan();
  const EngineCommand v = engine_command(Engine::vllm, d, "deepseek-ai/DeepSeek-V3");
  CHECK(has_pair(v.args, "--tensor-parallel-size", "1"));
  CHECK(has_pair(v.args, "--data-parallel-size", "8"));
  CHECK(std::find(v.args.begin(), v.args.end(), "--enable-expert-parallel") != v.args.end());
  CHECK(has_pair(v.args, "--max-num-seqs", "38"));
  const EngineCommand s = engine_command(Engine::sglang, d, "m");
  CHECK(has_pair(s.args, "--tp-size", "8"));
  CHECK(has_pair(s.args, "--dp-size", "8"));
  CHECK(has_pair(s.args, "--ep-size", "8"));
  CHECK(std::find(s.args.begin(), s.args.end(), "--enable-dp-attention") != s.args.end());
  CHECK(has_pair(s.args, "--max-running-requests", "300"));
  const EngineCommand t = engine_command(Engine::trtllm, d, "m");
  CHECK(has_pair(t.args, "--tp_size", "8"));
  CHECK(has_pair(t.args, "--ep_size", "8"));
  CHECK(has_pair(t.args, "--max_batch_size", "38"));
  CHECK(has_pair(t.args, "--extra_llm_api_options", "extra_llm_api_options.yaml"));
  const YAML::Node options = YAML::Load(t.extra_options_yaml);
  CHECK(options["enable_attention_dp"].as<bool>());
  CHECK_FALSE(options["enable_iter_perf_stats"]); // a script needs no Prometheus gauges
  // The script writes the options file before it starts the server.
  const std::string script = shell_script(t, "# h\n");
  const std::size_t here = script.find(
      "cat > extra_llm_api_options.yaml <<'EOF'\nenable_chunked_prefill: true\nenable_attention_dp: "
      "true\nEOF\n");
  CHECK(here != std::string::npos);
  CHECK(here < script.find("trtllm-serve"));
  // Without attention DP none of these flags appear.
  const EngineCommand plain = engine_command(Engine::vllm, fp8_plan(), "m");
  CHECK(std::find(plain.args.begin(), plain.args.end(), "--data-parallel-size") == plain.args.end());
  // The options file then holds chunked prefill alone, which the estimate assumed (the LLM API ships
  // it off and refuses a prompt past --max_num_tokens).
  const YAML::Node only =
      YAML::Load(engine_command(Engine::trtllm, multi_node_plan(8, 1), "m").extra_options_yaml);
  CHECK(only.size() == 1);
  CHECK(only["enable_chunked_prefill"].as<bool>());
}

TEST_CASE("a TensorRT-LLM plan sized for MAX_UTILIZATION writes that capacity scheduler", "[deploy]") {
  using namespace rightsize::cli;
  // The engine's default, GUARANTEED_NO_EVICT, writes no scheduler_config.
  DeployPlan d = multi_node_plan(8, 1);
  CHECK_FALSE(YAML::Load(engine_command(Engine::trtllm, d, "m").extra_options_yaml)["scheduler_config"]);
  d.kv_reserved_output_share = 0.0; // --capacity-scheduler-policy max_utilization
  const EngineCommand t = engine_command(Engine::trtllm, d, "m");
  CHECK(has_pair(t.args, "--extra_llm_api_options", "extra_llm_api_options.yaml"));
  const YAML::Node options = YAML::Load(t.extra_options_yaml);
  CHECK(options["scheduler_config"]["capacity_scheduler_policy"].as<std::string>() == "MAX_UTILIZATION");
  // vLLM has no such setting: its command does not change.
  CHECK(engine_command(Engine::vllm, d, "m").args ==
        engine_command(Engine::vllm, multi_node_plan(8, 1), "m").args);
}

TEST_CASE("an attention-DP replica over two nodes places its vLLM ranks with Ray", "[deploy]") {
  using namespace rightsize::cli;
  Candidate c = tp2_candidate();
  c.layout = Deployment{16, 1, 1, 16, 16}; // 16 attention ranks of TP1 on two 8-GPU nodes
  const PreparedModel pm = prepare_model(test::deepseek_v3(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  const DeployPlan d = plan_deployment(c, pm, test::h100_sxm(), w, fixture_engine(), capacity(c));
  REQUIRE(d.nodes_per_replica == 2);
  const EngineCommand v = engine_command(Engine::vllm, d, "m");
  CHECK(has_pair(v.args, "--data-parallel-size", "16"));
  CHECK(has_pair(v.args, "--data-parallel-size-local", "8")); // the ranks on the head node
  CHECK(has_pair(v.args, "--data-parallel-backend", "ray"));
  CHECK(std::find(v.args.begin(), v.args.end(), "--distributed-executor-backend") == v.args.end());
  // SGLang: the same ranks, each node launched with its rank; the wide-EP backend is only named.
  const EngineCommand s = engine_command(Engine::sglang, d, "m");
  CHECK(has_pair(s.args, "--tp-size", "16"));
  CHECK(has_pair(s.args, "--dp-size", "16"));
  CHECK(has_pair(s.args, "--nnodes", "2"));
  CHECK(std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) {
    return n.find("--moe-a2a-backend deepep") != std::string::npos;
  }));
}
