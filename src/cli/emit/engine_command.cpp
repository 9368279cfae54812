// Engine launch commands from a DeployPlan (docs/deploy.md "Engine flags" cites each flag).
#include "emit/engine_command.hpp"

#include <fmt/format.h>

namespace rightsize::cli {
namespace {

std::string fraction(double v) {
  return fmt::format("{:.2f}", v);
}

void flag(EngineCommand& c, const std::string& name, const std::string& value) {
  c.args.push_back(name);
  if (!value.empty()) c.args.push_back(value);
}

// Weight formats the engines take a --quantization value for; others come from a checkpoint
// already quantized to that format (the engines read its quantization_config).
const char* vllm_quantization(NumberFormat f) {
  switch (f) {
  case NumberFormat::fp8: return "fp8";
  case NumberFormat::int4_awq: return "awq";
  case NumberFormat::int4_gptq: return "gptq";
  case NumberFormat::nf4: return "bitsandbytes";
  default: return "";
  }
}

bool full_precision(NumberFormat f) {
  return f == NumberFormat::bf16 || f == NumberFormat::fp16 || f == NumberFormat::fp32;
}

void quantization_note(EngineCommand& c, NumberFormat f, const char* flag_value) {
  if (!full_precision(f) && *flag_value == '\0')
    c.notes.push_back(fmt::format("weights are {}: serve a checkpoint already quantized to it (the engine "
                                  "reads its quantization_config)",
                                  format_info(f).name));
}

// Single-quotes a shell word unless it is made only of safe characters.
std::string shell_word(const std::string& w) {
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

} // namespace

EngineCommand engine_command(Engine engine, const DeployPlan& p, const std::string& model) {
  EngineCommand c;
  const NumberFormat w = p.weights;
  switch (engine) {
  case Engine::vllm: {
    c.program = {"vllm", "serve"};
    c.args.push_back(model);
    flag(c, "--served-model-name", model);
    flag(c, "--tensor-parallel-size", std::to_string(p.tensor_parallel));
    flag(c, "--pipeline-parallel-size", std::to_string(p.pipeline_parallel));
    // Across nodes vLLM runs its workers on a Ray cluster the nodes join (vLLM "Parallelism and
    // scaling", docs/deploy.md).
    if (p.nodes_per_replica > 1) flag(c, "--distributed-executor-backend", "ray");
    if (p.expert_parallel > 1) flag(c, "--enable-expert-parallel", "");
    flag(c, "--max-num-seqs", std::to_string(p.max_num_seqs));
    flag(c, "--max-num-batched-tokens", std::to_string(p.max_num_batched_tokens));
    flag(c, "--max-model-len", std::to_string(p.max_model_len_tokens));
    flag(c, "--gpu-memory-utilization", fraction(p.gpu_memory_fraction));
    if (p.kv_cache_fp8) flag(c, "--kv-cache-dtype", "fp8");
    if (*vllm_quantization(w) != '\0') flag(c, "--quantization", vllm_quantization(w));
    quantization_note(c, w, vllm_quantization(w));
    flag(c, "--host", "0.0.0.0");
    flag(c, "--port", "8000");
    c.port = 8000;
    break;
  }
  case Engine::sglang: {
    c.program = {"python3", "-m", "sglang.launch_server"};
    flag(c, "--model-path", model);
    flag(c, "--served-model-name", model);
    flag(c, "--tp-size", std::to_string(p.tensor_parallel));
    flag(c, "--pp-size", std::to_string(p.pipeline_parallel));
    if (p.expert_parallel > 1) flag(c, "--ep-size", std::to_string(p.expert_parallel));
    flag(c, "--max-running-requests", std::to_string(p.max_num_seqs));
    flag(c, "--chunked-prefill-size", std::to_string(p.max_num_batched_tokens));
    flag(c, "--context-length", std::to_string(p.max_model_len_tokens));
    flag(c, "--mem-fraction-static", fraction(p.gpu_memory_fraction));
    if (p.kv_cache_fp8) flag(c, "--kv-cache-dtype", "fp8_e4m3");
    if (*vllm_quantization(w) != '\0' && w != NumberFormat::nf4)
      flag(c, "--quantization", vllm_quantization(w));
    quantization_note(c, w, w == NumberFormat::nf4 ? "" : vllm_quantization(w));
    flag(c, "--enable-metrics", "");
    flag(c, "--host", "0.0.0.0");
    flag(c, "--port", "30000");
    c.port = 30000;
    c.notes.push_back("--mem-fraction-static covers weights and the KV pool only; lower it if prefill "
                      "activations run out of memory");
    break;
  }
  case Engine::trtllm: {
    c.program = {"trtllm-serve"};
    c.args.push_back(model);
    flag(c, "--backend", "pytorch");
    flag(c, "--tp_size", std::to_string(p.tensor_parallel));
    flag(c, "--pp_size", std::to_string(p.pipeline_parallel));
    if (p.expert_parallel > 1) flag(c, "--ep_size", std::to_string(p.expert_parallel));
    flag(c, "--max_batch_size", std::to_string(p.max_num_seqs));
    flag(c, "--max_num_tokens", std::to_string(p.max_num_batched_tokens));
    flag(c, "--max_seq_len", std::to_string(p.max_model_len_tokens));
    flag(c, "--kv_cache_free_gpu_memory_fraction", fraction(p.kv_free_memory_fraction));
    quantization_note(c, w, "");
    if (p.kv_cache_fp8)
      c.notes.push_back("fp8 KV cache: set kv_cache_config.dtype: fp8 in the --extra_llm_api_options YAML");
    flag(c, "--host", "0.0.0.0");
    flag(c, "--port", "8000");
    c.port = 8000;
    break;
  }
  }
  if (p.nodes_per_replica > 1)
    c.notes.push_back(fmt::format(
        "one replica spans {} nodes: {}", p.nodes_per_replica,
        engine == Engine::vllm
            ? "start a Ray head on the first node (ray start --head), join the others (ray start "
              "--address=HEAD:6379), then run this on the head; --emit k8s writes it as a LeaderWorkerSet"
            : "launch it on each node with the engine's multi-node options (--nnodes/--node-rank for "
              "SGLang)"));
  return c;
}

std::string shell_line(const EngineCommand& c) {
  std::string out;
  for (const auto& w : c.program) {
    if (!out.empty()) out.push_back(' ');
    out.append(shell_word(w));
  }
  for (const auto& a : c.args) {
    out.push_back(' ');
    out.append(shell_word(a));
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
  for (std::size_t i = 0; i < c.program.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out.append(c.program[i]);
  }
  // Model (or --flag value) pairs on their own lines; a flag without a value stands alone.
  std::size_t i = 0;
  while (i < c.args.size()) {
    std::string line = shell_word(c.args[i]);
    if (c.args[i].rfind("--", 0) == 0 && i + 1 < c.args.size() && c.args[i + 1].rfind("--", 0) != 0) {
      line.push_back(' ');
      line.append(shell_word(c.args[i + 1]));
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
