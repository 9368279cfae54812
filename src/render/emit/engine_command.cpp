// Engine launch commands from a DeployPlan (docs/deploy.md "Engine flags" cites each flag).
#include "render/emit/engine_command.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "render/emit/lora_flags.hpp"
#include "render/emit/prefix_cache_flags.hpp"
#include "render/emit/speculative_flags.hpp"
#include "rightsize/engine_profile.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::cli {
namespace {

std::string fraction(double v) {
  return fmt::format("{:.2f}", v);
}

void flag(EngineCommand& c, const std::string& name, const std::string& value) {
  c.args.push_back(name);
  if (!value.empty()) c.args.push_back(value);
}

// A flag whose value expands where the command runs (the multi-node launch's addresses and ranks).
void variable_flag(EngineCommand& c, const std::string& name, const std::string& value) {
  c.args.push_back(name);
  c.variables.push_back(c.args.size());
  c.args.push_back(value);
}

// Weight formats the engines quantize to while loading a higher-precision checkpoint (vLLM
// "Quantization": online FP8, in-flight bitsandbytes; SGLang the same --quantization values). AWQ and
// GPTQ need a calibrated checkpoint, whose quantization_config the engine reads (and picks its
// Marlin kernels from), so they are never a flag; nor is any format when the checkpoint is already
// in it (DeployPlan::quantize_online).
const char* vllm_quantization(const DeployPlan& p) {
  if (!p.quantize_online) return "";
  switch (p.weights) {
  case NumberFormat::fp8: return "fp8";
  case NumberFormat::nf4: return "bitsandbytes";
  default: return "";
  }
}

void quantization_note(EngineCommand& c, NumberFormat f, const char* flag_value) {
  if (!full_precision(f) && *flag_value == '\0')
    c.notes.push_back(fmt::format("weights are {}: serve a checkpoint already quantized to it (the engine "
                                  "reads its quantization_config)",
                                  format_info(f).name));
}

} // namespace

// A word for a POSIX shell: a variable the command was built to expand (${LEADER_ADDR}:20000)
// double-quoted, which expands it and nothing else; anything else single-quoted unless it is made only
// of characters no shell treats specially (POSIX.1-2017 XCU 2.2 "Quoting").
std::string shell_word(const std::string& w, bool variable) {
  if (variable) return "\"" + w + "\"";
  bool safe = !w.empty();
  for (char ch : w) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '-' || ch == '_' || ch == '.' || ch == '/' || ch == ':' || ch == '=';
    safe = safe && ok;
  }
  if (safe) return w;
  std::string out(1, '\'');
  for (char ch : w) {
    if (ch == '\'')
      out.append("'\\''");
    else
      out.push_back(ch);
  }
  out.push_back('\'');
  return out;
}

const char* engine_id(Engine engine) {
  switch (engine) {
  case Engine::vllm: return "vllm";
  case Engine::sglang: return "sglang";
  case Engine::trtllm: return "trtllm";
  }
  return "vllm";
}

EngineMetrics engine_metrics(Engine engine) {
  switch (engine) {
  // vLLM production metrics; SGLang production metrics; trtllm-serve's /prometheus/metrics
  // (docs/deploy.md "Metrics").
  case Engine::vllm:
    return {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm_requests_in_flight"};
  case Engine::sglang:
    return {"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang_requests_in_flight"};
  case Engine::trtllm:
    return {"trtllm_num_requests_running", "trtllm_num_requests_waiting", "trtllm_requests_in_flight"};
  }
  return engine_metrics(Engine::vllm);
}

namespace {

// Engines that schedule each attention-DP rank on its own take the in-flight cap per rank.
void per_rank_note(EngineCommand& c, const char* cap_flag, const DeployPlan& p) {
  if (p.attention_dp > 1)
    c.notes.push_back(fmt::format("{} is per attention-DP rank: {} in flight over {} ranks", cap_flag,
                                  p.max_num_seqs, p.attention_dp));
}

// The serving features the estimate assumed, in the engine's flags: speculative decoding
// (speculative_flags.cpp), the prefix cache and its offload tier (prefix_cache_flags.cpp), multi-LoRA
// (lora_flags.cpp).
void add_feature_flags(EngineCommand& c, Engine engine, const DeployPlan& p) {
  for (FlagSet set :
       {speculative_flags(engine, p.speculative), prefix_cache_flags(engine, p), lora_flags(engine, p)}) {
    for (const auto& [name, value] : set.flags)
      flag(c, name, value);
    for (std::string& note : set.notes)
      c.notes.push_back(std::move(note));
  }
}

void vllm_command(EngineCommand& c, const DeployPlan& p, const std::string& model) {
  const NumberFormat w = p.weights;
  c.program = {"vllm", "serve"};
  c.args.push_back(model);
  flag(c, "--served-model-name", model);
  if (p.pooling) {
    // An encoder for embeddings: vLLM's pooling runner, converted to the embed task (vLLM "Pooling
    // Models": --runner pooling, --convert embed; 0.10 and later).
    flag(c, "--runner", "pooling");
    flag(c, "--convert", "embed");
  }
  flag(c, "--tensor-parallel-size", std::to_string(p.tensor_parallel));
  flag(c, "--pipeline-parallel-size", std::to_string(p.pipeline_parallel));
  if (p.attention_dp > 1) {
    // Attention DP: one engine per DP rank, experts over all of them (vLLM "Data Parallel
    // Deployment" and "Expert Parallel Deployment"); across nodes Ray places the ranks.
    flag(c, "--data-parallel-size", std::to_string(p.attention_dp));
    if (p.nodes_per_replica > 1) {
      flag(c, "--data-parallel-size-local", std::to_string(p.gpus_per_leader_pod / p.tensor_parallel));
      flag(c, "--data-parallel-backend", "ray");
    }
  } else if (p.nodes_per_replica > 1) {
    // Across nodes vLLM runs its workers on a Ray cluster the nodes join (vLLM "Parallelism and
    // scaling", docs/deploy.md).
    flag(c, "--distributed-executor-backend", "ray");
  }
  if (p.expert_parallel > 1) flag(c, "--enable-expert-parallel", "");
  flag(c, "--max-num-seqs", std::to_string(p.attention_dp > 1 ? p.max_num_seqs_per_rank : p.max_num_seqs));
  flag(c, "--max-num-batched-tokens", std::to_string(p.max_num_batched_tokens));
  flag(c, "--max-model-len", std::to_string(p.max_model_len_tokens));
  flag(c, "--gpu-memory-utilization", fraction(p.gpu_memory_fraction));
  if (p.kv_cache_fp8) flag(c, "--kv-cache-dtype", "fp8");
  if (*vllm_quantization(p) != '\0') flag(c, "--quantization", vllm_quantization(p));
  quantization_note(c, w, vllm_quantization(p));
  add_feature_flags(c, Engine::vllm, p);
  flag(c, "--host", "0.0.0.0");
  flag(c, "--port", "8000");
  c.port = 8000;
  per_rank_note(c, "--max-num-seqs", p);
  if (p.nodes_per_replica > 1)
    c.notes.push_back(fmt::format(
        "one replica spans {} nodes: start a Ray head on the first node (ray start --head), join the "
        "others (ray start --address=HEAD:6379), then run this on the head; --emit k8s writes it as a "
        "LeaderWorkerSet",
        p.nodes_per_replica));
}

void sglang_command(EngineCommand& c, const DeployPlan& p, const std::string& model, Target target) {
  const NumberFormat w = p.weights;
  c.program = {"python3", "-m", "sglang.launch_server"};
  flag(c, "--model-path", model);
  flag(c, "--served-model-name", model);
  // An encoder for embeddings (SGLang server arguments: --is-embedding).
  if (p.pooling) flag(c, "--is-embedding", "");
  // With DP attention SGLang's --tp-size is every GPU of the replica's stage and --dp-size the
  // attention ranks among them (SGLang server arguments, DeepSeek guide).
  flag(c, "--tp-size", std::to_string(p.tensor_parallel * p.attention_dp));
  flag(c, "--pp-size", std::to_string(p.pipeline_parallel));
  if (p.attention_dp > 1) {
    flag(c, "--dp-size", std::to_string(p.attention_dp));
    flag(c, "--enable-dp-attention", "");
  }
  if (p.expert_parallel > 1) flag(c, "--ep-size", std::to_string(p.expert_parallel));
  if (p.nodes_per_replica > 1) {
    // Every node runs the same command with its rank; rank 0 serves HTTP (SGLang multi-node
    // deployment; in a LeaderWorkerSet the leader is worker index 0).
    const bool pod = target == Target::pod;
    variable_flag(c, "--dist-init-addr", pod ? "$(LWS_LEADER_ADDRESS):20000" : "${LEADER_ADDR}:20000");
    if (pod)
      variable_flag(c, "--nnodes", "$(LWS_GROUP_SIZE)");
    else
      flag(c, "--nnodes", std::to_string(p.nodes_per_replica));
    variable_flag(c, "--node-rank", pod ? "$(LWS_WORKER_INDEX)" : "${NODE_RANK}");
    if (!pod) {
      c.preamble.push_back(": \"${LEADER_ADDR:?set LEADER_ADDR to the first node's address}\"");
      c.preamble.push_back(fmt::format(": \"${{NODE_RANK:?set NODE_RANK: 0 on the first node, {}}}\"",
                                       p.nodes_per_replica == 2
                                           ? std::string("1 on the other")
                                           : fmt::format("1 to {} on the others", p.nodes_per_replica - 1)));
      c.notes.push_back(fmt::format("one replica spans {} nodes: run this script on each of them with "
                                    "LEADER_ADDR and NODE_RANK set; the first node serves HTTP",
                                    p.nodes_per_replica));
    }
  }
  flag(c, "--max-running-requests", std::to_string(p.max_num_seqs));
  flag(c, "--chunked-prefill-size", std::to_string(p.max_num_batched_tokens));
  // The graph limit the estimate assumed (data/engines.json gpu_memory_tiers): SGLang's own default
  // is tiered by GPU memory and TP and changed between 0.5 releases (docs/deploy.md).
  flag(c, "--cuda-graph-max-bs", std::to_string(p.cuda_graph_max_batch));
  flag(c, "--context-length", std::to_string(p.max_model_len_tokens));
  flag(c, "--mem-fraction-static", fraction(p.gpu_memory_fraction));
  if (p.kv_cache_fp8) flag(c, "--kv-cache-dtype", "fp8_e4m3");
  if (*vllm_quantization(p) != '\0' && w != NumberFormat::nf4)
    flag(c, "--quantization", vllm_quantization(p));
  quantization_note(c, w, w == NumberFormat::nf4 ? "" : vllm_quantization(p));
  add_feature_flags(c, Engine::sglang, p);
  flag(c, "--enable-metrics", "");
  flag(c, "--host", "0.0.0.0");
  flag(c, "--port", "30000");
  c.port = 30000;
  c.notes.push_back("--mem-fraction-static covers weights and the KV pool only; lower it if prefill "
                    "activations run out of memory");
  if (p.attention_dp > 1 && p.nodes_per_replica > 1)
    c.notes.push_back("wide expert parallelism across nodes: SGLang documents --moe-a2a-backend deepep "
                      "(needs DeepEP in the image); the default all-reduce backend is kept");
}

void trtllm_command(EngineCommand& c, const DeployPlan& p, const std::string& model, Target target) {
  c.program = {"trtllm-serve"};
  c.args.push_back(model);
  flag(c, "--backend", "pytorch");
  // Attention DP splits the TP group's attention into data-parallel ranks (enable_attention_dp in
  // the LLM API options): --tp_size counts all of them.
  flag(c, "--tp_size", std::to_string(p.tensor_parallel * p.attention_dp));
  flag(c, "--pp_size", std::to_string(p.pipeline_parallel));
  if (p.expert_parallel > 1) flag(c, "--ep_size", std::to_string(p.expert_parallel));
  flag(c, "--max_batch_size", std::to_string(p.attention_dp > 1 ? p.max_num_seqs_per_rank : p.max_num_seqs));
  flag(c, "--max_num_tokens", std::to_string(p.max_num_batched_tokens));
  flag(c, "--max_seq_len", std::to_string(p.max_model_len_tokens));
  flag(c, "--kv_cache_free_gpu_memory_fraction", fraction(p.kv_free_memory_fraction));
  quantization_note(c, p.weights, "");
  // The options file: chunked prefill, attention DP, the fp8 KV cache and, in a pod, the iteration
  // stats the Prometheus gauges the autoscaler reads come from.
  YAML::Emitter y;
  y << YAML::BeginMap;
  // The estimate chunks prompts into --max_num_tokens steps (methodology §3.1); the LLM API ships
  // chunked prefill off and then refuses any prompt longer than max_num_tokens (TensorRT-LLM
  // llmapi/llm_args.py enable_chunked_prefill = False; llmapi/llm.py _check_arguments).
  y << YAML::Key << "enable_chunked_prefill" << YAML::Value << true;
  if (p.attention_dp > 1) y << YAML::Key << "enable_attention_dp" << YAML::Value << true;
  // The balancing the estimate assumed (TensorRT-LLM AttentionDpConfig; off unless asked for).
  if (p.adp_balance_timeout_steps > 0) {
    y << YAML::Key << "attention_dp_config" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "enable_balance" << YAML::Value << true;
    y << YAML::Key << "timeout_iters" << YAML::Value << p.adp_balance_timeout_steps;
    y << YAML::Key << "batching_wait_iters" << YAML::Value << p.adp_balance_batching_steps;
    y << YAML::EndMap;
  }
  if (p.kv_cache_fp8 || p.prefix_cache) {
    y << YAML::Key << "kv_cache_config" << YAML::Value << YAML::BeginMap;
    if (p.kv_cache_fp8) y << YAML::Key << "dtype" << YAML::Value << "fp8";
    trtllm_kv_reuse_yaml(y, p, c.notes);
    y << YAML::EndMap;
  }
  // The capacity scheduler the estimate assumed: GUARANTEED_NO_EVICT is the engine's default
  // (nothing written); MAX_UTILIZATION holds only the tokens a request has ([TRT-SCHED]).
  const CapacitySchedulerPolicy policy = capacity_policy_for(p.kv_reserved_output_share);
  const bool max_utilization = policy != CapacitySchedulerPolicy::guaranteed_no_evict;
  if (max_utilization) {
    y << YAML::Key << "scheduler_config" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "capacity_scheduler_policy" << YAML::Value << to_string(policy);
    y << YAML::EndMap;
  }
  if (target == Target::pod) y << YAML::Key << "enable_iter_perf_stats" << YAML::Value << true;
  trtllm_speculative_yaml(y, p.speculative, c.notes);
  trtllm_lora_yaml(y, p, c.notes);
  y << YAML::EndMap;
  c.extra_options_yaml = std::string(y.c_str()) + "\n";
  flag(c, "--extra_llm_api_options",
       target == Target::pod ? std::string(k_trtllm_options_dir) + "/" + k_trtllm_options_file
                             : std::string(k_trtllm_options_file));
  flag(c, "--host", "0.0.0.0");
  flag(c, "--port", "8000");
  c.port = 8000;
  c.metrics_path = "/prometheus/metrics";
  per_rank_note(c, "--max_batch_size", p);
  if (p.nodes_per_replica > 1)
    c.notes.push_back(fmt::format(
        "one replica spans {} nodes: trtllm-serve runs them as one MPI world; launch it with mpirun or "
        "srun through trtllm-llmapi-launch (TensorRT-LLM multi-node serving), one task per GPU",
        p.nodes_per_replica));
}

} // namespace

EngineCommand engine_command(Engine engine, const DeployPlan& p, const std::string& model, Target target) {
  EngineCommand c;
  switch (engine) {
  case Engine::vllm: vllm_command(c, p, model); break;
  case Engine::sglang: sglang_command(c, p, model, target); break;
  case Engine::trtllm: trtllm_command(c, p, model, target); break;
  }
  if (std::string note = in_flight_note(p); !note.empty()) c.notes.push_back(std::move(note));
  return c;
}

std::string in_flight_note(const DeployPlan& p) {
  if (!p.open_loop) return {};
  const double percent = 100.0 * p.in_flight_queue_probability;
  if (p.in_flight_cap_kv_bound)
    return fmt::format("Poisson arrivals, {:.1f} requests in flight on average: the KV cache holds {} "
                       "sequences, below the p99 of the in-flight count, so requests wait in the engine's "
                       "queue about {:.1f} % of the time",
                       p.mean_in_flight_per_replica, p.max_num_seqs, percent);
  return fmt::format(
      "Poisson arrivals, {:.1f} requests in flight on average: the in-flight cap {} is the p99 "
      "of the in-flight count (requests wait in the queue about {:.1f} % of the time); the "
      "autoscaler's target is the mean",
      p.mean_in_flight_per_replica, p.max_num_seqs, percent);
}

bool expands(const EngineCommand& c, std::size_t index) {
  return std::find(c.variables.begin(), c.variables.end(), index) != c.variables.end();
}

std::string pod_literal(const std::string& word) {
  std::string out;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '$' && i + 1 < word.size() && word[i + 1] == '(') out.push_back('$');
    out.push_back(word[i]);
  }
  return out;
}

std::string shell_line(const EngineCommand& c) {
  std::string out;
  for (const auto& w : c.program) {
    if (!out.empty()) out.push_back(' ');
    out.append(shell_word(w));
  }
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    out.push_back(' ');
    out.append(shell_word(c.args[i], expands(c, i)));
  }
  return out;
}

std::string shell_script(const EngineCommand& c, const std::string& header) {
  std::string out = "#!/bin/sh\n";
  out.append(header);
  for (const auto& n : c.notes) {
    out.append("# note: ");
    out.append(n);
    out.push_back('\n');
  }
  for (const auto& line : c.preamble)
    out.append(line + "\n");
  if (!c.extra_options_yaml.empty())
    out.append(fmt::format("cat > {} <<'EOF'\n{}EOF\n", k_trtllm_options_file, c.extra_options_yaml));
  for (std::size_t i = 0; i < c.program.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out.append(c.program[i]);
  }
  // Model (or --flag value) pairs on their own lines; a flag without a value stands alone.
  std::size_t i = 0;
  while (i < c.args.size()) {
    std::string line = shell_word(c.args[i], expands(c, i));
    if (c.args[i].rfind("--", 0) == 0 && i + 1 < c.args.size() && c.args[i + 1].rfind("--", 0) != 0) {
      line.push_back(' ');
      line.append(shell_word(c.args[i + 1], expands(c, i + 1)));
      ++i;
    }
    out.append(" \\\n  ");
    out.append(line);
    ++i;
  }
  out += "\n";
  return out;
}

} // namespace rightsize::cli
