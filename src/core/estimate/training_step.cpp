// One optimizer step of one training layout: compute, exposed TP/EP/CP/PP/DP communication, pipeline
// bubble, optimizer update and offload (methodology §4.2, §5.1–5.5), then throughput, MFU/HFU,
// time to train and cost (§4.2, §6.2). Allocation-free: the layout search calls it thousands of times.
#include <algorithm>
#include <cmath>

#include "core/estimate/training_detail.hpp"
#include "core/numeric.hpp"
#include "rightsize/units.hpp"

namespace rightsize::detail {
namespace {

using core::d;

// Members of a group of `group` ranks spread evenly over `span` consecutive ranks that share one node
// of `gpus_per_node` consecutive ranks: one every span/group ranks, at least 1, at most the group.
double ring_members_per_node(const Gpu& gpu, int group, int span) {
  const double stride = static_cast<double>(std::max(1, span)) / std::max(1, group);
  const double per_node = std::floor(std::max(1, gpu.gpus_per_node) / stride);
  return std::clamp(per_node, 1.0, static_cast<double>(std::max(1, group)));
}

double collective_hop_latency(const TrainingConfig& c, LinkKind link) {
  switch (link) {
  case LinkKind::scaleup: return c.scaleup_hop_latency_s;
  case LinkKind::pcie: return c.pcie_hop_latency_s;
  case LinkKind::network: return c.network_hop_latency_s;
  }
  return c.pcie_hop_latency_s;
}

// One collective among `group` GPUs whose ring spans `span` consecutive ranks. Megatron orders ranks
// tp-cp-ep-dp-pp, so a group's span decides NVLink vs PCIe vs NIC. α–β model of methodology §5.1.
// A ring collective across nodes (all-reduce, all-gather, reduce-scatter) runs one NCCL channel per
// NIC: the k group members that share a node each carry 1/k of the data over their own NIC and pass
// it on inside the node, so the bus bandwidth is k × the per-GPU NIC bandwidth, at most the node's
// scale-up link (docs/training.md §2, [NCCL] bus bandwidth; derived). An all-to-all (`ring` false)
// sends each GPU's own off-node data through its own NIC: k = 1.
double collective(const TrainingContext& ctx, double bytes, int group, int span, bool all_reduce,
                  bool ring = true) {
  if (group <= 1 || bytes <= 0.0) return 0.0;
  const LinkKind link = link_for_group(*ctx.gpu, span);
  double bw = link_gb_per_s(*ctx.gpu, link);
  if (bw <= 0.0) return 0.0; // unknown link: left out, flagged by link_known
  if (link == LinkKind::network && ring)
    bw = std::min(bw * ring_members_per_node(*ctx.gpu, group, span),
                  link_gb_per_s(*ctx.gpu, LinkKind::scaleup));
  return collective_time_s(bytes, group, bw, ctx.gpu->efficiency.communication,
                           collective_hop_latency(*ctx.config, link), ctx.config->collective_base_latency_s,
                           all_reduce);
}

// Point-to-point send of `bytes` over the link a group spanning `span` ranks uses (methodology §5.1).
double p2p(const TrainingContext& ctx, double bytes, int span) {
  const LinkKind link = link_for_group(*ctx.gpu, span);
  if (link_gb_per_s(*ctx.gpu, link) <= 0.0) return 0.0; // unknown link: left out, flagged by link_known
  return ctx.config->collective_base_latency_s + collective_hop_latency(*ctx.config, link) +
         bytes / (gb_per_s_to_bytes_per_s(link_gb_per_s(*ctx.gpu, link)) * ctx.gpu->efficiency.communication);
}

// Memory-bound element-wise work per token of a micro-batch on one GPU (docs/training.md §2, derived):
// norms, activation functions, residual adds, RoPE and the loss run at HBM speed, not at the GEMM
// rate. Their traffic is taken as `passes` HBM passes over the bytes backward needs: the layer
// activations of Korthikanti's count [KOR22] (TP-sharded as stored, §1) and the loss's logits
// (16-bit + FP32, ÷t vocab-parallel, the last stage's share spread over the p stages like the FLOPs).
// Passes: written forward, read backward, gradient written = 3; +1 when recompute re-runs the
// element-wise forward (full, per-op). This is what does not speed up with FP8 GEMMs and what weighs
// more on GPUs with more FLOPs per byte (H100 295 FLOP/B vs A100 153) and on narrow layers (bytes ∝ h,
// GEMM FLOPs ∝ h²).
double elementwise_s_per_token(const TrainingContext& ctx, const TrainingLayout& l, double layers_on_gpu) {
  const PreparedModel& pm = *ctx.pm;
  const bool seq_par = l.sequence_parallel && l.tp > 1;
  // Element-wise math stays 16-bit under FP8 GEMMs (norms, SwiGLU and the residual stream run in BF16
  // [TE-FP8]): narrower stored activations are read and written at 2 B.
  const double width16 = pm.activation_bytes < 2.0 ? 2.0 / pm.activation_bytes : 1.0;
  const double layer_bytes = layers_on_gpu * activation_bytes_per_token_layer(pm, l.tp, seq_par) * width16;
  const double logit_bytes = d(pm.model.vocab_size) * loss_bytes_per_logit(ctx.workload->framework) /
                             (static_cast<double>(l.tp) * static_cast<double>(l.pp));
  const bool refwd = l.recompute == Recompute::full || l.recompute == Recompute::per_op;
  const double passes = ctx.config->elementwise_passes + (refwd ? 1.0 : 0.0);
  // Materialized attention scores (pre-FlashAttention kernels, [KOR22] 5·a·s bytes) take the same
  // passes, +1 when selective or full recompute re-runs the attention core.
  const bool score_refwd = l.recompute == Recompute::full || l.recompute == Recompute::selective;
  const double scores = layers_on_gpu * materialized_scores_bytes_per_token_layer(ctx, l.tp) *
                        (ctx.config->elementwise_passes + (score_refwd ? 1.0 : 0.0));
  return (passes * (layer_bytes + logit_bytes) + scores) / ctx.hbm_bytes_per_s;
}

// Work and exposed communication of one micro-batch on one pipeline stage.
struct MicroBatch {
  double compute_s = 0.0;     // GEMM + attention FLOPs and the element-wise passes
  double elementwise_s = 0.0; // part of compute_s: memory-bound element-wise work
  double comm_s = 0.0;        // TP + EP + CP + PP p2p (exposed)
  double tp_s = 0.0, ep_s = 0.0, cp_s = 0.0, pp_s = 0.0;
};

MicroBatch micro_batch_time(const TrainingContext& ctx, const TrainingLayout& l) {
  const PreparedModel& pm = *ctx.pm;
  MicroBatch mb;
  const double t = l.tp, p = l.pp, cp = l.cp;
  const double tokens = d(l.micro_batch) * ctx.seq; // one DP rank's micro-batch
  // The t·p·cp GPUs of a model replica share its FLOPs; stages are taken as balanced.
  mb.compute_s = ctx.compute_s_per_token[static_cast<std::size_t>(l.recompute)] * tokens / (t * p * cp);

  const double ls = layers_per_stage(ctx, l.pp, l.vp);
  const bool seq_par = l.sequence_parallel && l.tp > 1;
  mb.elementwise_s = elementwise_s_per_token(ctx, l, ls) * tokens / cp;
  mb.compute_s += mb.elementwise_s;
  const double act_msg = tokens / cp * ctx.hidden * pm.activation_bytes; // b·s·h·b_a
  // Megatron TP: 2 all-reduces forward + 2 backward per layer (RS + AG pairs of the same volume with
  // SP), and full recompute repeats the forward's 2 [NAR21][KOR22], methodology §5.2.
  const double per_layer = l.recompute == Recompute::full ? 6.0 : 4.0;
  // TE userbuffer overlap (Megatron --tp-comm-overlap) hides a share of them behind the GEMMs.
  const double tp_s = ls * per_layer * collective(ctx, act_msg, l.tp, l.tp, true) * (1.0 - ctx.tp_overlap);
  // EP: dispatch + combine all-to-all per MoE layer, forward and backward (§5.5 [LA]); each token
  // goes to k experts; with SP a TP rank dispatches its 1/t of the tokens.
  double ep_s = 0.0;
  if (l.ep > 1 && ctx.moe_layers > 0.0) {
    const double msg = act_msg * ctx.experts_per_token / (seq_par ? t : 1.0);
    ep_s = ctx.moe_layers * (ls / ctx.layers) * per_layer *
           collective(ctx, msg, l.ep, l.tp * l.cp * l.ep, false, false);
  }
  // CP ring attention [RING][MEG-CP]: each rank passes its K and V shard cp − 1 times forward and
  // K, V, dK, dV backward (3·(cp − 1) sends per layer, derived). Megatron-Core overlaps each step's
  // send with the attention of the chunk it holds, so only what exceeds the attention core's forward
  // + backward (3× its forward FLOPs) on this rank stays exposed.
  double cp_s = 0.0;
  if (l.cp > 1) {
    const double kv_msg = 2.0 * tokens / cp * ctx.kv_width * pm.activation_bytes / t;
    const double ring_s = ls * 3.0 * (cp - 1.0) * p2p(ctx, kv_msg, l.tp * l.cp);
    const double attention_s =
        3.0 * ctx.attention_fwd_per_token * (ls / ctx.layers) * tokens / (t * cp) / ctx.attention_flops_per_s;
    cp_s = std::max(0.0, ring_s - attention_s);
  }
  // PP: one activation forward and one gradient backward per stage boundary and micro-batch (§5.3);
  // with SP each TP rank sends its 1/t scatter. Stages are the outermost rank dimension.
  // Interleaving sends v times as often: each of a rank's v chunks has its own boundary [NAR21 §2.2].
  double pp_s = 0.0;
  if (l.pp > 1) pp_s = 2.0 * l.vp * p2p(ctx, act_msg / (seq_par ? t : 1.0), l.gpus());
  mb.tp_s = tp_s;
  mb.ep_s = ep_s;
  mb.cp_s = cp_s;
  mb.pp_s = pp_s;
  mb.comm_s = tp_s + ep_s + cp_s + pp_s;
  return mb;
}

// DP / ZeRO gradient synchronisation of the stage with the most trainable parameters (§5.4):
// all-reduce, or reduce-scatter + all-gather of the same volume (ZeRO-1/2). ZeRO-3 reduce-scatters the
// gradients and all-gathers the weights for every micro-batch (3Ψ per step at m = 1 [ZERO]).
double dp_exposed_s(const TrainingContext& ctx, const TrainingLayout& l, const StageParams& sp,
                    const TrainingFlops& fl, const MicroBatch& mb, double m) {
  const int n_d = l.dp * l.cp;
  const int n_e = std::max(1, n_d / l.ep);
  const int span = l.tp * l.cp * l.dp;
  const StateBytesPerParam& b = ctx.state;
  const bool z3 = l.zero_stage >= 3;
  const double sync_s = collective(ctx, b.gradients * sp.dense, n_d, span, !z3) +
                        collective(ctx, b.gradients * sp.expert, n_e, span, !z3);
  const double f = std::clamp(ctx.config->dp_overlap_fraction, 0.0, 1.0);
  if (!z3) {
    // Only the last micro-batch's backward can hide the reduction (earlier ones accumulate locally).
    const double backward_share =
        fl.hardware_per_token > 0.0 ? 1.0 - fl.forward_per_token / fl.hardware_per_token : 0.0;
    return sync_s - std::min(f * sync_s, mb.compute_s * std::max(0.0, backward_share));
  }
  // FSDP re-gathers each layer's weights for forward and backward (and the recompute forward) of every
  // micro-batch, prefetched under that micro-batch's compute (§5.4 [LA]); the last micro-batch also
  // hides the gradient reduce-scatter under the same compute.
  const double passes = l.recompute == Recompute::full ? 3.0 : 2.0;
  const double gather =
      passes * (collective(ctx, sp.frozen_dense_bytes + b.weights * sp.dense, n_d, span, false) +
                collective(ctx, sp.frozen_expert_bytes + b.weights * sp.expert, n_e, span, false));
  const double last_mb = gather + sync_s;
  return (m - 1.0) * (gather - std::min(f * gather, mb.compute_s)) +
         (last_mb - std::min(f * last_mb, mb.compute_s));
}

// Optimizer update on the GPU's shard: HBM-bound, reads weights, grads and states and writes weights
// and states, 2·(w + K) + g bytes per parameter (derived). Offloaded: PCIe 2Ψ down + 2Ψ up and a host
// update (§3.5, [ZERO]).
void update_time(const TrainingContext& ctx, const TrainingLayout& l, const StageParams& sp,
                 TrainingEstimate& est) {
  const double n_d = l.dp * l.cp;
  const double n_e = std::max(1.0, n_d / l.ep);
  const StateBytesPerParam& b = ctx.state;
  const double shard = l.zero_stage >= 1 ? sp.dense / n_d + sp.expert / n_e : sp.dense + sp.expert;
  if (l.cpu_offload) {
    const double pcie =
        gb_per_s_to_bytes_per_s(link_gb_per_s(*ctx.gpu, LinkKind::pcie)) * ctx.gpu->efficiency.communication;
    est.offload_s = shard * (b.gradients + b.weights) / std::max(1.0, pcie) +
                    shard / std::max(1.0, ctx.config->cpu_optimizer_params_per_s);
  } else {
    est.optimizer_step_s = shard * (2.0 * (b.weights + b.optimizer) + b.gradients) / ctx.hbm_bytes_per_s;
  }
}

// Throughput, utilisation (MFU counts model FLOPs, HFU adds recompute, §4.2), time and cost (§6.2:
// the job pays for every GPU of the instances it rents, docs/methodology.md "Whole instances": one
// replica of all its GPUs whose TP groups stay inside an instance; cost = time × billed GPUs × price),
// and the bound.
void finish(const TrainingContext& ctx, const TrainingFlops& fl, const GpuPrice& price, int tp,
            const InstanceBill* bill, TrainingEstimate& est) {
  const TrainingConfig& cfg = *ctx.config;
  const double gpus = est.gpus;
  est.tokens_per_s = est.tokens_per_step / est.step_time_s;
  est.tokens_per_s_per_gpu = est.tokens_per_s / gpus;
  est.model_tflops_per_gpu = fl.model_per_token * est.tokens_per_s_per_gpu / k_flops_per_tflop;
  est.mfu = fl.model_per_token * est.tokens_per_s_per_gpu / ctx.peak_flops_per_s;
  est.hfu = fl.hardware_per_token * est.tokens_per_s_per_gpu / ctx.peak_flops_per_s;
  est.time_to_train_s =
      ctx.workload->tokens > 0.0 ? ctx.workload->tokens / est.tokens_per_s : est.step_time_s;
  est.gpu_hours = est.time_to_train_s * gpus / k_seconds_per_hour;
  est.gpu_hours_planning = est.gpu_hours * cfg.planning_overhead_factor;
  est.time_to_train_planning_s = est.time_to_train_s * cfg.planning_overhead_factor;
  est.bill = bill != nullptr ? *bill : bill_instances(1, est.gpus, price, tp);
  est.usd_per_hour = est.bill.usd_per_hour;
  const double hours = est.time_to_train_s / k_seconds_per_hour;
  est.usd_total_ideal = hours * est.usd_per_hour;
  est.usd_total = est.usd_total_ideal * cfg.planning_overhead_factor;
  const double comm = est.comm_exposed_s + est.bubble_s;
  const double update = est.optimizer_step_s + est.offload_s;
  if (!est.memory.fits) {
    est.bound = Bound::capacity;
  } else if (update > est.compute_s && update > comm) {
    est.bound = Bound::memory_bandwidth;
  } else {
    est.bound = comm > est.compute_s ? Bound::interconnect : Bound::compute;
  }
}

} // namespace

TrainingEstimate evaluate_training(const TrainingContext& ctx, const TrainingLayout& l, const GpuPrice& price,
                                   const StageSplit& stages, const InstanceBill* bill,
                                   const MemoryEstimate* memory) {
  TrainingEstimate est;
  est.layout = l;
  est.gpus = l.gpus();
  const int per_node = std::max(1, ctx.gpu->gpus_per_node);
  est.nodes = (est.gpus + per_node - 1) / per_node;
  est.trainable_params = ctx.trainable_params;
  est.precision_supported = ctx.precision_supported;
  // Groups of 2, of a node and of the whole job cover every link kind a layout can use.
  const int node_span = std::min(est.gpus, per_node);
  for (int span : {2, node_span, est.gpus}) {
    if (est.gpus > 1 && span > 1 && link_gb_per_s(*ctx.gpu, link_for_group(*ctx.gpu, span)) <= 0.0)
      est.link_known = false;
  }
  // Gradient accumulation rounds up so that a step covers at least the global batch.
  const std::int64_t per_pass = static_cast<std::int64_t>(l.dp) * l.micro_batch;
  const std::int64_t gb = std::max<std::int64_t>(1, ctx.workload->global_batch);
  est.micro_batches = (gb + per_pass - 1) / per_pass;
  est.global_batch_effective = est.micro_batches * per_pass;
  est.tokens_per_step = d(est.global_batch_effective) * ctx.seq;
  est.memory = memory != nullptr ? *memory : training_memory(ctx, l, est.micro_batches, stages);
  // Allocated vs reserved vs device (docs/training.md §1): per_gpu = itemized·(1 + f) + reserve.
  const TrainingConfig& cfg = *ctx.config;
  est.memory_allocated_bytes =
      (est.memory.per_gpu_bytes - cfg.runtime_reserve_bytes) / (1.0 + cfg.fragmentation_fraction);
  est.memory_reserved_bytes = est.memory_allocated_bytes * (1.0 + cfg.fragmentation_fraction);
  est.memory_low_bytes = est.memory_allocated_bytes * (1.0 + cfg.fragmentation_low_fraction) +
                         std::min(cfg.runtime_reserve_low_bytes, cfg.runtime_reserve_bytes);
  est.memory_high_bytes =
      est.memory_allocated_bytes * (1.0 + cfg.fragmentation_high_fraction) + cfg.runtime_reserve_bytes;

  const TrainingFlops& fl = ctx.flops[static_cast<std::size_t>(l.recompute)];
  const MicroBatch mb = micro_batch_time(ctx, l);
  const double m = d(est.micro_batches);
  est.compute_s = m * mb.compute_s;
  est.elementwise_s = m * mb.elementwise_s;
  // 1F1B: the step lasts (m + p − 1) micro-batch slots, p − 1 of them idle (§5.3 [NAR21]);
  // interleaved 1F1B with v chunks per rank idles (p − 1)/v slots [NAR21 §2.2].
  est.bubble_s = (l.pp - 1.0) / l.vp * (mb.compute_s + mb.comm_s);
  const StageParams& first = stages.first;
  const StageParams& last = stages.last;
  const StageParams& sp = (last.dense + last.expert > first.dense + first.expert) ? last : first;
  est.tp_comm_exposed_s = m * mb.tp_s;
  est.ep_comm_exposed_s = m * mb.ep_s;
  est.cp_comm_exposed_s = m * mb.cp_s;
  est.pp_comm_exposed_s = m * mb.pp_s;
  est.dp_comm_exposed_s = dp_exposed_s(ctx, l, sp, fl, mb, m);
  est.tp_overlap_fraction = l.tp > 1 ? ctx.tp_overlap : 0.0;
  est.comm_exposed_s = m * mb.comm_s + est.dp_comm_exposed_s;
  update_time(ctx, l, sp, est);
  est.step_time_s = est.compute_s + est.comm_exposed_s + est.bubble_s + est.optimizer_step_s + est.offload_s;
  est.bubble_fraction = est.step_time_s > 0.0 ? est.bubble_s / est.step_time_s : 0.0;
  finish(ctx, fl, price, l.tp, bill, est);
  return est;
}

} // namespace rightsize::detail
