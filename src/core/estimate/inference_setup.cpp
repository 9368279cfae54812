// The setup of the inference estimate: everything about (model, GPU, deployment) that does not
// depend on the concurrency (methodology §2.2–2.3 weights and KV shards, §4.1 dtypes and rates,
// §5 links). Pure arithmetic on a PreparedModel: no allocation, no I/O.
#include <algorithm>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/image_attention.hpp"
#include "rightsize/training.hpp"
#include "rightsize/units.hpp"

namespace rightsize::detail {
namespace {

double hop_latency(const EngineConfig& e, LinkKind link) {
  switch (link) {
  case LinkKind::scaleup: return e.scaleup_hop_latency_s;
  case LinkKind::pcie: return e.pcie_hop_latency_s;
  case LinkKind::network: return e.network_hop_latency_s;
  }
  return e.pcie_hop_latency_s;
}

// The dtype attention's score and value products run in: 16 bits when the GEMMs are quantized
// (fp8 / int8 / fp6 / fp4), since engines' FlashAttention-2/3 and FlashInfer prefill kernels keep Q·Kᵀ and
// P·V in bf16/fp16 unless fp8 attention is asked for ([FA3] §3.3 makes fp8 an option; vLLM and
// SGLang default to 16-bit attention); the GEMM dtype otherwise (methodology §4.1).
MathDtype attention_dtype(MathDtype gemm, const Gpu& gpu) {
  if (gemm != MathDtype::fp8 && gemm != MathDtype::int8 && gemm != MathDtype::fp6 && gemm != MathDtype::fp4)
    return gemm;
  return gpu.supports(MathDtype::bf16) ? MathDtype::bf16 : MathDtype::fp16;
}

// GPUs without bf16 (T4, V100) run bf16 checkpoints in fp16, as vLLM does after a cast; GPUs
// without fp4 tensor cores run NVFP4 weights weight-only with 16-bit math (vLLM's FP4 Marlin
// kernels), so W4A4 becomes W4A16 there; MX-FP6 likewise becomes W6A16 on GPUs without an fp6
// rate (vLLM's Quark OCP-MX path dequantizes when the GPU has no MX instructions; methodology §4.1).
MathDtype gemm_dtype(const PreparedModel& pm, const Gpu& gpu) {
  MathDtype math = pm.math;
  if ((math == MathDtype::fp4 || math == MathDtype::fp6) && !gpu.supports(math)) math = MathDtype::bf16;
  if (math == MathDtype::bf16 && !gpu.supports(MathDtype::bf16) && gpu.supports(MathDtype::fp16))
    math = MathDtype::fp16;
  return math;
}

// The GEMM, attention and memory rates of one GPU at the layout family's efficiencies.
void set_rates(Setup& s, const EstimateInputs& in, MathDtype math, bool precision_supported) {
  const Gpu& gpu = in.gpu;
  const GpuEfficiency& eff = in.eff;
  const double peak_tflops = precision_supported ? gpu.tflops(math) : gpu.tflops(MathDtype::bf16);
  s.compute_flops_per_s = std::max(1e-3, peak_tflops) * k_flops_per_tflop * eff.prefill_compute;
  // A UNet's narrow convolutions and linear layers run below the large-GEMM η_f: the calibrated
  // fraction of it (methodology §3.7 "UNet rate"); 1 for every other model.
  s.unet_gemm_fraction = in.pm.unet ? std::clamp(eff.unet_gemm_fraction, 1e-3, 1.0) : 1.0;
  const MathDtype attention_math = attention_dtype(math, gpu);
  s.attention_flops_per_s = gpu.supports(attention_math) ? std::max(1e-3, gpu.tflops(attention_math)) *
                                                               k_flops_per_tflop * eff.prefill_compute
                                                         : s.compute_flops_per_s;
  // A DiT pipeline's attention is FlashAttention-2 (diffusers → torch SDPA), which tops out below the
  // GEMMs' η_f on Hopper: bidirectional attention over 4,096+ tokens is 20–30 % of an image model's
  // FLOPs (methodology §3.7).
  if (in.pm.model.kind == ModelKind::dit && gpu.supports(attention_math))
    s.attention_flops_per_s =
        std::min(s.attention_flops_per_s, gpu.tflops(attention_math) * k_flops_per_tflop *
                                              dit_attention_utilization(gpu.architecture));
  s.bandwidth_bytes_per_s = gb_per_s_to_bytes_per_s(gpu.memory_bandwidth_gb_per_s) * eff.decode_bandwidth;
  s.expert_read = std::clamp(eff.expert_read, 0.05, 1.0);
}

// The KV heads and weights one GPU holds.
void set_shards(Setup& s, const EstimateInputs& in) {
  const PreparedModel& pm = in.pm;
  const ModelSpec& m = pm.model;
  // TP shards KV heads; past n_kv they are replicated (one head per rank); MLA is replicated
  // on every rank (methodology §2.3, [LA], [VLLM-SRC]).
  if (m.attention.kind == AttentionKind::mla || m.kv_heads <= 0) {
    s.kv_fraction = 1.0;
  } else {
    s.kv_fraction = std::ceil(d(m.kv_heads) / s.t) / d(m.kv_heads);
  }
  s.full_layers = d(pm.full_attention_layers);
  s.sliding_layers = d(pm.sliding_layers);
  s.window = d(m.attention.sliding_window);
  // Resident weights on the most loaded GPU: layers split over t·p; embedding and LM head are
  // vocab-parallel over t, on the first and last stage (methodology §2.2, [LA]).
  const double head = pm.lm_head_bytes > 0.0 ? pm.lm_head_bytes : pm.embedding_bytes;
  const double edge =
      in.dep.pp == 1 ? pm.embedding_bytes + pm.lm_head_bytes : std::max(pm.embedding_bytes, head);
  s.weights_gpu_bytes =
      pm.layer_weight_bytes / (s.t * s.p) + pm.expert_weight_bytes / (s.t * in.adp * s.p) + edge / s.t;
}

// The links of the TP group, its scale-up domain, the MoE group and the pipeline (methodology §5).
// Returns whether every link the replica spans is known.
bool set_links(Setup& s, const EstimateInputs& in) {
  const Gpu& gpu = in.gpu;
  const Deployment& dep = in.dep;
  const LinkKind tp_link = link_for_group(gpu, dep.tp);
  s.tp_link_gb_per_s = link_gb_per_s(gpu, tp_link);
  s.tp_hop_s = hop_latency(in.engine, tp_link);
  // Across nodes the TP group spans domains of the scale-up domain (or node) size.
  const int domain =
      gpu.scaleup_gb_per_s > 0.0 ? std::max(gpu.scaleup_domain_gpus, 1) : std::max(1, gpu.gpus_per_node);
  s.tp_local = tp_link == LinkKind::network ? std::min(dep.tp, domain) : dep.tp;
  const LinkKind local_link = link_for_group(gpu, s.tp_local);
  s.local_link_gb_per_s = link_gb_per_s(gpu, local_link);
  s.local_hop_s = hop_latency(in.engine, local_link);
  const LinkKind ep_link = link_for_group(gpu, dep.moe_group_gpus());
  s.ep_link_gb_per_s = link_gb_per_s(gpu, ep_link);
  s.ep_hop_s = hop_latency(in.engine, ep_link);
  const LinkKind pp_link = link_for_group(gpu, dep.gpus_per_replica());
  s.pp_link_gb_per_s = link_gb_per_s(gpu, pp_link);
  s.pp_hop_s = hop_latency(in.engine, pp_link);
  s.link_efficiency = in.eff.communication;
  // A replica spanning GPUs needs a known link; without one the communication terms are left out
  // (finite numbers) and the estimate says so.
  const bool ep_unknown = dep.moe_group_gpus() > 1 && in.adp > 1.0 && s.ep_link_gb_per_s <= 0.0;
  if ((dep.tp > 1 && s.tp_link_gb_per_s <= 0.0) || (dep.pp > 1 && s.pp_link_gb_per_s <= 0.0) || ep_unknown) {
    s.tp_int = dep.tp > 1 && s.tp_link_gb_per_s <= 0.0 ? 1 : s.tp_int;
    s.pp_link_gb_per_s = s.pp_link_gb_per_s <= 0.0 ? 1e12 : s.pp_link_gb_per_s;
    s.adp = ep_unknown ? 1.0 : s.adp; // no all-to-all term without a link (the verdict says so)
    s.ep_link_gb_per_s = s.ep_link_gb_per_s <= 0.0 ? 1e12 : s.ep_link_gb_per_s;
    return false;
  }
  return true;
}

// Multi-LoRA serving (methodology §3.10): an adapter holds r·(d_in + d_out) 16-bit parameters per
// adapted matrix (lora_trainable_params, [LORA]). Under TP engines shard one factor of each pair (a
// column-parallel projection's B by its outputs, a row-parallel one's A by its inputs) and keep the
// other whole (vLLM's default, fully_sharded_loras off [VLLM-LORA]), so a GPU column holds about
// (1 + 1/t)/2 of the adapter. Each token adds 2 FLOPs per adapter parameter (x·A, then ·B).
void set_lora(Setup& s, const EstimateInputs& in) {
  s.lora = &in.w.lora;
  if (!s.decoder || !in.w.lora.enabled()) return;
  const double params = d(lora_trainable_params(in.pm.model, in.w.lora.rank, in.w.lora.targets));
  s.lora_bytes = params * 2.0 * (1.0 + 1.0 / s.t) / 2.0;
  s.lora_flops_per_token = 2.0 * params;
}

} // namespace

// Requests pick adapters evenly among N: a batch of B holds N·(1 − (1 − 1/N)^B) distinct ones on
// average (occupancy of N bins by B balls), at most the engine's max_active slots (methodology §3.10).
double lora_distinct(const Setup& s, double batch) {
  if (s.lora == nullptr || !s.lora->enabled()) return 0.0;
  const double n = d(s.lora->adapters);
  const double expected = n * (1.0 - std::pow(1.0 - 1.0 / n, std::max(1.0, batch)));
  return std::min(expected, d(std::max<std::int64_t>(1, s.lora->max_active)));
}

Setup make_setup(const EstimateInputs& in, InferenceEstimate& est, bool timing) {
  const Deployment& dep = in.dep;
  Setup s{};
  s.pm = &in.pm;
  s.m = &in.pm.model;
  s.gpu = &in.gpu;
  s.engine = &in.engine;
  s.t = d(dep.tp);
  s.p = d(dep.pp);
  s.tp_int = dep.tp;
  s.ep_int = std::max(1, dep.ep);
  s.adp = in.adp;
  s.moe_tp = std::max(1.0, s.t * in.adp / d(s.ep_int));
  s.decoder = in.pm.model.kind == ModelKind::decoder;
  s.speculative = &in.w.speculative;
  s.vision_flops_per_token =
      s.decoder && in.w.input_tokens > 0 ? in.pm.vision_flops_per_request / d(in.w.input_tokens) : 0.0;
  const MathDtype math = gemm_dtype(in.pm, in.gpu);
  est.precision_supported = in.gpu.supports(math);
  est.engine_runs = engine_runs_on(in.engine, in.gpu);
  est.gemm_math = math;
  set_shards(s, in);
  set_lora(s, in);
  s.link_efficiency = in.eff.communication;
  // The memory verdict reads shards, LoRA and the offload tier's link share, not the rates or the
  // links (a unit test holds fits_in_memory to the full estimate's verdict).
  if (timing) time_setup(in, s, est);
  return s;
}

void time_setup(const EstimateInputs& in, Setup& s, InferenceEstimate& est) {
  set_rates(s, in, est.gemm_math, est.precision_supported);
  if (!set_links(s, in)) est.link_known = false;
}

} // namespace rightsize::detail
