#pragma once
// Hand-built models and GPUs for unit tests (figures from methodology §0.3 and gpu-specs.md §1).
#include <cstdint>
#include <string>

#include "rightsize/calibration.hpp"
#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/model.hpp"

namespace rightsize::test {

/// Llama-3.1-8B from its config.json (methodology §0.3).
inline ModelSpec llama31_8b() {
  ModelSpec m;
  m.name = "llama-3.1-8b";
  m.layers = 32;
  m.hidden_size = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_size = 14336;
  m.vocab_size = 128256;
  return m;
}

/// Llama-3.1-70B from its config.json (methodology §0.3).
inline ModelSpec llama31_70b() {
  ModelSpec m = llama31_8b();
  m.name = "llama-3.1-70b";
  m.layers = 80;
  m.hidden_size = 8192;
  m.heads = 64;
  m.ffn_size = 28672;
  return m;
}

/// Mixtral-8x7B (methodology §1.3).
inline ModelSpec mixtral_8x7b() {
  ModelSpec m = llama31_8b();
  m.name = "mixtral-8x7b";
  m.vocab_size = 32000;
  m.moe.experts = 8;
  m.moe.experts_per_token = 2;
  m.moe.expert_ffn_size = 14336;
  return m;
}

/// DeepSeek-V3 from its config.json (methodology §1.3): MLA + 256-expert MoE, 3 dense layers.
inline ModelSpec deepseek_v3() {
  ModelSpec m;
  m.layers = 61;
  m.hidden_size = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.ffn_size = 18432;
  m.vocab_size = 129280;
  m.attention.kind = AttentionKind::mla;
  m.attention.q_lora_rank = 1536;
  m.attention.kv_lora_rank = 512;
  m.attention.qk_nope_head_dim = 128;
  m.attention.rope_head_dim = 64;
  m.attention.v_head_dim = 128;
  m.moe.experts = 256;
  m.moe.experts_per_token = 8;
  m.moe.shared_experts = 1;
  m.moe.expert_ffn_size = 2048;
  m.moe.dense_layers = 3;
  return m;
}

/// H100 SXM 80GB (gpu-specs.md §1, §3): 3,350 GB/s, 989.5 / 1,979 dense TFLOPS, NVLink 450 GB/s.
inline Gpu h100_sxm() {
  Gpu g;
  g.id = "H100-SXM";
  g.memory_bytes = 80e9;
  g.memory_type = "HBM3";
  g.memory_bandwidth_gb_per_s = 3350.0;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::bf16)] = 989.5;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp16)] = 989.5;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp8)] = 1979.0;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::int8)] = 1979.0;
  g.tdp_watts = 700.0;
  g.pcie_generation = 5;
  g.pcie_gb_per_s = 64.0;
  g.scaleup_link = "NVLink 4";
  g.scaleup_gb_per_s = 450.0;
  g.scaleup_domain_gpus = 8;
  g.gpus_per_node = 8;
  g.nic_gb_per_s = 50.0;
  return g;
}

/// L40S (gpu-specs.md §1, §3): 48 GB GDDR6, 864 GB/s, 362.05 / 733 TFLOPS, PCIe Gen4 only.
inline Gpu l40s() {
  Gpu g;
  g.id = "L40S";
  g.memory_bytes = 48e9;
  g.memory_type = "GDDR6";
  g.memory_bandwidth_gb_per_s = 864.0;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::bf16)] = 362.05;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp16)] = 362.05;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp8)] = 733.0;
  g.tdp_watts = 350.0;
  g.pcie_generation = 4;
  g.pcie_gb_per_s = 32.0;
  g.gpus_per_node = 8;
  g.nic_gb_per_s = 50.0;
  return g;
}

/// A100 80GB SXM (gpu-specs.md §1): 2,039 GB/s, 312 TFLOPS bf16, no fp8, NVLink 3 300 GB/s.
inline Gpu a100_80gb_sxm() {
  Gpu g = h100_sxm();
  g.id = "A100-80GB-SXM";
  g.memory_type = "HBM2e";
  g.memory_bandwidth_gb_per_s = 2039.0;
  g.dense_tflops = {};
  g.dense_tflops[static_cast<std::size_t>(MathDtype::bf16)] = 312.0;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp16)] = 312.0;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::int8)] = 624.0;
  g.tdp_watts = 400.0;
  g.pcie_generation = 4;
  g.pcie_gb_per_s = 32.0;
  g.scaleup_link = "NVLink 3";
  g.scaleup_gb_per_s = 300.0;
  g.nic_gb_per_s = 25.0;
  return g;
}

/// The chat workload the search tests use: 1024 input / 256 output tokens, auto concurrency.
inline InferenceWorkload chat_workload() {
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  return w;
}

/// A closed-loop workload: `input` prompt and `output` generated tokens at `clients` clients.
inline InferenceWorkload closed_loop(std::int64_t input, std::int64_t output, std::int64_t clients) {
  InferenceWorkload w;
  w.input_tokens = input;
  w.output_tokens = output;
  w.concurrency = clients;
  return w;
}

/// One item (an image) at batch 1 on one GPU, TP1, the default engine, at `usd_per_hour` per GPU.
inline InferenceEstimate estimate_one_item(const PreparedModel& pm, const Gpu& gpu, double usd_per_hour) {
  InferenceWorkload w;
  w.concurrency = 1;
  return estimate_inference(pm, w, gpu, Deployment{1, 1, 1, 1}, EngineConfig{}, nullptr, usd_per_hour);
}

/// A data/calibration.json entry whose only fitted factor is the expert-read fraction (methodology
/// §3.3 "expert reads"), as the accuracy report writes it from the MoE serving rows.
inline FittedEfficiency expert_read_fit(const std::string& gpu_id, double fraction) {
  FittedEfficiency f;
  f.gpu_id = gpu_id;
  f.efficiency.expert_read = fraction;
  f.expert_read_source = "serving";
  f.expert_read_cases = {"serving-measurements.csv: 219 MoE-model rows (6 models) on " + gpu_id};
  return f;
}

} // namespace rightsize::test
