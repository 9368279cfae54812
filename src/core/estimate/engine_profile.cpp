// Serving-engine profiles (methodology §3.2).
#include "rightsize/engine_profile.hpp"

namespace rightsize {

const char* to_string(EngineKind kind) {
  switch (kind) {
  case EngineKind::vllm: return "vllm";
  case EngineKind::sglang: return "sglang";
  case EngineKind::trtllm: return "trtllm";
  }
  return "vllm";
}

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  if (name == "vllm") return EngineKind::vllm;
  if (name == "sglang") return EngineKind::sglang;
  if (name == "trtllm" || name == "tensorrt-llm" || name == "trt-llm") return EngineKind::trtllm;
  return std::nullopt;
}

EngineConfig engine_profile(EngineKind kind) {
  EngineConfig e; // vLLM defaults (inference.hpp): 8,192-token budget, 1,024 sequences, u = 0.90
  switch (kind) {
  case EngineKind::vllm:
    // Fitted on the vLLM rows of tests/validation/serving (methodology §3.2). Per-layer and eager
    // prefill time: the EngineConfig defaults (piecewise CUDA graphs stop at the largest capture size)
    // [VLLM-GRAPH].
    e.wave_synchrony = 0.1;
    e.ttft_fixed_s = 0.05;
    break;
  case EngineKind::sglang:
    // server_args.py: chunked_prefill_size and cuda_graph_max_bs tiered by GPU memory and TP
    // (engine_for_gpu); mem_fraction_static 0.88 when it cannot size it from the GPU [SGL-SRC].
    e.gpu_memory_tiers = true;
    e.usable_fraction = 0.88;
    e.wave_synchrony = 0.6;
    e.ttft_fixed_s = 0.1;
    // Extend (prefill) batches run without CUDA graphs (cuda_graph_max_bs covers decode) [SGL-SRC];
    // grid-fitted on the SGLang aggregated serving rows (methodology §3, "eager prefill time"), as
    // the per-layer times (§3, "per-layer time").
    e.prefill_layer_overhead_s = 0.0;
    e.prefill_expert_overhead_s = 3.5e-6;
    e.layer_overhead_s = 20e-6;
    e.moe_layer_overhead_s = 30e-6;
    break;
  case EngineKind::trtllm:
    // trtllm-serve: max_num_tokens 8,192 [TRT-DOC]; the KV pool is a fraction of the memory free
    // after loading, which plan_deployment converts (methodology §8).
    e.max_batched_tokens = 8192;
    e.wave_synchrony = 0.1;
    e.ttft_fixed_s = 0.05;
    // Attention-DP balancing as NVIDIA's wide-EP recipes enable it (`enable_balance: true`), at
    // AttentionDpConfig's defaults: timeout_iters 50, batching_wait_iters 10 [TRT-ADP].
    e.adp_balance_timeout_steps = 50.0;
    e.adp_balance_batching_steps = 10.0;
    // The PyTorch backend's CUDA graphs cover generation-only steps; piecewise graphs for the context
    // phase are opt-in [TRT-PCG]. Grid-fitted on the TensorRT-LLM aggregated rows (methodology §3);
    // its fused MoE decode adds no per-layer time over a dense layer's.
    e.prefill_layer_overhead_s = 100e-6;
    e.prefill_expert_overhead_s = 5e-6;
    e.layer_overhead_s = 20e-6;
    e.moe_layer_overhead_s = 0.0;
    break;
  }
  return e;
}

EngineConfig engine_for_gpu(const EngineConfig& engine, const Gpu& gpu, int tp) {
  if (!engine.gpu_memory_tiers) return engine;
  EngineConfig e = engine;
  // SGLang server_args.py compares the GPU's total memory in MiB with 35·1024 and 160·1024 [SGL-SRC].
  const double gib = gpu.visible_memory() / 1073741824.0;
  e.max_batched_tokens = gib < 35.0 ? 2048 : gib < 160.0 ? 8192 : 16384;
  e.cuda_graph_max_batch = tp < 4 ? 256 : 512;
  if (gib < 35.0) e.cuda_graph_max_batch = tp < 4 ? 8 : 80;
  return e;
}

} // namespace rightsize
