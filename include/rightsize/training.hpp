#pragma once
// Training and fine-tuning estimator (methodology §3 memory, §4.1–4.2 FLOPs and time, §5 interconnect,
// §6.2 cost). Pure and deterministic: arithmetic on a PreparedModel, no I/O, no allocation per layout.
#include <cstdint>
#include <optional>

#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

/// How one training job is split over GPUs. EP is carved out of DP (Megatron-core: ep divides dp),
/// so it does not multiply the GPU count.
struct TrainingLayout {
  int tp = 1;                   ///< tensor-parallel degree t
  int pp = 1;                   ///< pipeline stages p (1F1B schedule)
  int dp = 1;                   ///< data-parallel replicas d
  int ep = 1;                   ///< expert-parallel degree e (MoE only; divides dp)
  int cp = 1;                   ///< context-parallel degree (splits each sequence)
  int vp = 1;                   ///< virtual pipeline stages (interleaved 1F1B model chunks per rank)
  int zero_stage = 0;           ///< ZeRO / FSDP stage 0..3 over the dp·cp ranks
  std::int64_t micro_batch = 1; ///< sequences per micro-batch per DP rank
  Recompute recompute = Recompute::selective;
  bool sequence_parallel = true; ///< Megatron sequence parallelism (only matters when tp > 1)
  bool cpu_offload = false;      ///< optimizer states + fp32 master in host RAM (ZeRO-Offload)
  /// GPUs the layout occupies.
  [[nodiscard]] int gpus() const { return tp * pp * dp * cp; }
};

/// Training-run assumptions. Every default carries its provenance (docs/training.md); all overridable.
struct TrainingConfig {
  /// Fraction of Gpu::visible_memory() the job may plan for; the rest absorbs transients not itemized
  /// (optimizer-step temporaries, allocator spikes). Derived guidance, methodology §3.3.
  double usable_fraction = 0.95;
  /// Share of the DP gradient reduction (and ZeRO-3 parameter gathers) hidden under backward compute;
  /// Megatron/DDP bucket overlap. llm-analysis assumes 1.0 [LA]; 0.8 leaves the last buckets exposed.
  double dp_overlap_fraction = 0.8;
  /// Share of TP collectives hidden under GEMMs when the workload sets neither tp_comm_overlap nor a
  /// framework with a default. Megatron's default does not overlap them (0).
  double tp_overlap_fraction = 0.0;
  /// TP overlap of Transformer Engine userbuffers (Megatron `--tp-comm-overlap`, NeMo performance
  /// recipes): the share of the TP all-gathers / reduce-scatters hidden under the GEMMs they feed.
  /// Assumption 0.8 (docs/training.md §4): the first chunk of each pipelined GEMM cannot be hidden.
  double tp_overlap_enabled_fraction = 0.8;
  /// Allocator slack on everything but the runtime reserve: methodology §3.3 budgets 5–10 %.
  double fragmentation_fraction = 0.08;
  /// CUDA context, NCCL communicators of the TP/DP/PP groups, gradient buckets (methodology §2.6, §3.3).
  double runtime_reserve_bytes = 2.0 * 1073741824.0;
  /// Two-sided memory band (assumption, docs/training.md §1): the caching allocator's reserve over
  /// what is allocated spans 2–15 % (`max_memory_reserved` / `max_memory_allocated`), and the CUDA
  /// context + NCCL part of the runtime reserve is at least 0.75 GiB.
  double fragmentation_low_fraction = 0.02;
  double fragmentation_high_fraction = 0.15;
  double runtime_reserve_low_bytes = 0.75 * 1073741824.0;
  /// Memory-bound element-wise work of training (norms, activation functions, residual adds, RoPE,
  /// the loss): HBM passes over the activations backward needs, per micro-batch. Derived
  /// (docs/training.md §2): each such byte is written once forward, read once backward and its
  /// gradient written once = 3; recompute that re-runs the element-wise forward (full, per-op) adds 1.
  double elementwise_passes = 3.0;
  /// Planning GPU-hours = ideal × this (restarts, evaluation, stragglers): methodology §4.2 suggests 1.2–1.5.
  double planning_overhead_factor = 1.3;
  /// > 0 replaces gpu.efficiency.training_mfu as the kernel-level GEMM efficiency (calibration hook).
  double gemm_efficiency_override = 0.0;
  /// Megatron keeps FP32 main gradients (18 B/param instead of 16, methodology §3.1 [MEG-DOC]).
  bool fp32_gradients = false;
  /// Host CPU Adam throughput per GPU's shard when the optimizer is offloaded, params/s (assumption).
  double cpu_optimizer_params_per_s = 1.0e9;
  double collective_base_latency_s = 5e-6; ///< fixed start-up of one collective (GenZ [GENZ])
  double scaleup_hop_latency_s = 0.8e-6;   ///< per ring step on NVLink / Infinity Fabric
  double pcie_hop_latency_s = 4e-6;        ///< per ring step over PCIe
  double network_hop_latency_s = 6e-6;     ///< per ring step across nodes
};

/// Everything estimated for one layout. Times are per optimizer step unless named otherwise.
struct TrainingEstimate {
  MemoryEstimate memory; ///< per GPU, the most loaded pipeline stage
  /// What frameworks report for the same stage: allocated tensors (`torch.cuda.max_memory_allocated`),
  /// the caching allocator's reserve over them (`max_memory_reserved`), and the device total
  /// (reserved + CUDA context + NCCL buffers = memory.per_gpu_bytes) with its two-sided band.
  double memory_allocated_bytes = 0.0;
  double memory_reserved_bytes = 0.0;
  double memory_low_bytes = 0.0;
  double memory_high_bytes = 0.0;
  TrainingLayout layout;
  int gpus = 0;
  int nodes = 0;                           ///< ceil(gpus / gpu.gpus_per_node)
  std::int64_t micro_batches = 0;          ///< m: micro-batches per step per DP rank (rounded up)
  std::int64_t global_batch_effective = 0; ///< m·micro_batch·dp sequences actually run per step
  double tokens_per_step = 0.0;
  double step_time_s = 0.0;
  double compute_s = 0.0;           ///< m micro-batches of GEMM + attention work, recompute included
  double elementwise_s = 0.0;       ///< part of compute_s: memory-bound element-wise passes (HBM)
  double comm_exposed_s = 0.0;      ///< TP + EP + CP + PP p2p + DP/ZeRO not hidden under compute
  double tp_comm_exposed_s = 0.0;   ///< part of comm_exposed_s: tensor-parallel collectives
  double cp_comm_exposed_s = 0.0;   ///< part of comm_exposed_s: ring-attention K/V exchange
  double ep_comm_exposed_s = 0.0;   ///< part of comm_exposed_s: expert all-to-all
  double pp_comm_exposed_s = 0.0;   ///< part of comm_exposed_s: pipeline point-to-point sends
  double dp_comm_exposed_s = 0.0;   ///< part of comm_exposed_s: gradient reduction / ZeRO gathers
  double tp_overlap_fraction = 0.0; ///< share of TP communication hidden under GEMMs (as used)
  double bubble_s = 0.0;            ///< pipeline fill and drain: (p − 1)/v micro-batch times
  double bubble_fraction = 0.0;     ///< bubble_s / step_time_s
  double offload_s = 0.0;           ///< PCIe traffic and CPU optimizer for an offloaded optimizer
  double optimizer_step_s = 0.0;    ///< on-GPU optimizer update (HBM-bound)
  double tokens_per_s = 0.0;
  double tokens_per_s_per_gpu = 0.0;
  double model_tflops_per_gpu = 0.0; ///< model FLOPs (no recompute) per second per GPU, TFLOP/s
  double mfu = 0.0;                  ///< model FLOPs / (step · gpus · dense peak of the math dtype)
  double hfu = 0.0;                  ///< as mfu, counting recompute
  double time_to_train_s = 0.0;      ///< workload.tokens at tokens_per_s (one step when tokens == 0)
  /// time_to_train × planning_overhead_factor: the wall-clock time the run is planned for (restarts,
  /// evaluation, stragglers take time as well as GPU-hours), what a deadline is judged on.
  double time_to_train_planning_s = 0.0;
  double gpu_hours = 0.0;          ///< ideal: time_to_train × gpus
  double gpu_hours_planning = 0.0; ///< gpu_hours × planning_overhead_factor
  double usd_per_hour = 0.0;       ///< whole job: the GPUs billed (bill) × price per GPU-hour
  double usd_total = 0.0;          ///< time_to_train × usd_per_hour × planning_overhead_factor
  double usd_total_ideal = 0.0;    ///< time_to_train × usd_per_hour
  InstanceBill bill;               ///< the job's whole instances (docs/methodology.md "Whole instances")
  std::int64_t trainable_params = 0;
  Bound bound = Bound::capacity;
  bool precision_supported = true; ///< the GPU runs the GEMM dtype (else bf16 peak is used)
  /// False when a GPU group spans a link the catalog gives no bandwidth for (no PCIe figure, no
  /// NIC); that communication is then left out, so the times are finite but optimistic.
  bool link_known = true;
};

/// Estimates one layout (degrees < 1 are read as 1). The price's rate may be 0 (unknown); its
/// instance shapes decide the GPUs billed (the job is one replica of all its GPUs, TP groups inside one
/// instance: bill_instances). Pure, allocation-free.
TrainingEstimate estimate_training(const PreparedModel& model, const TrainingWorkload& workload,
                                   const Gpu& gpu, const TrainingLayout& layout, const TrainingConfig& config,
                                   const GpuPrice& price);

/// Fixed choices for the layout search; 0 / -1 / nullopt = search.
struct LayoutPins {
  int tp = 0, pp = 0, dp = 0, ep = 0, cp = 0, vp = 0;
  int zero_stage = -1;
  std::int64_t micro_batch = 0;
  std::optional<Recompute> recompute;
};

/// The layout for `gpus` GPUs (multi-node allowed: nodes = ceil(gpus / gpu.gpus_per_node)) that fits and
/// maximizes tokens/s; workload fields that are set (zero_stage >= 0, micro_batch > 0, recompute) and
/// pins are honoured (pins win). When nothing fits, returns the layout needing the least memory per
/// GPU, with memory.fits == false. Ties go to the first layout in enumeration order. Pure.
TrainingEstimate search_training_layout(const PreparedModel& model, const TrainingWorkload& workload,
                                        const Gpu& gpu, int gpus, const LayoutPins& pins,
                                        const TrainingConfig& config, const GpuPrice& price);

// ---- Building blocks (exposed for tests and reports) ----------------------------------------------

/// Bytes per parameter of weights, gradients and optimizer states (methodology §3.1).
struct StateBytesPerParam {
  double weights = 2.0;
  double gradients = 2.0;
  double optimizer = 12.0; ///< K
};
/// Mixed precision: AdamW 2+2+12, 8-bit AdamW 2+2+(4+2), SGD+momentum 2+2+(4+4); grads 4 when fp32.
StateBytesPerParam state_bytes_per_param(Optimizer optimizer, bool fp32_gradients);
/// Model-state bytes per GPU for `params` parameters under ZeRO `stage` over `shards` ranks (§3.2).
double model_state_bytes(double params, const StateBytesPerParam& bytes, int stage, int shards);
/// Trainable LoRA parameters: r·(d_in + d_out) for every attention and MLP projection (all seven on a
/// Llama layer; routed and shared experts included), methodology §3.4 [LORA].
std::int64_t lora_trainable_params(const ModelSpec& model, std::int64_t rank,
                                   LoraTargets targets = LoraTargets::all_linear);
/// Frozen NF4 base of QLoRA: linear layers at 4.127 bits, embedding and head 16-bit (methodology §3.4).
double qlora_base_weight_bytes(const PreparedModel& model);
/// Stored activation bytes per token per layer without recompute, FlashAttention (no s² term),
/// 16-bit (scaled by b_a/2): 8h + 4h_q + 4h_kv + 8I gated, 10h + 4h_q + 4h_kv + 4I plain (§3.3).
/// With TP: all of it ÷ t under sequence parallelism, else only the TP-sharded tensors.
double activation_bytes_per_token_layer(const PreparedModel& model, int tp, bool sequence_parallel);
/// Logits of one micro-batch: s·b·V·(2 + 4)/t (16-bit logits + FP32 loss copy, vocab-parallel), §3.3;
/// chunked cross-entropy keeps one chunk of `k_ce_chunk_tokens` tokens in FP32 instead of all of them.
double logits_bytes(const PreparedModel& model, std::int64_t tokens, int tp, bool chunked = false,
                    double bytes_per_logit = 6.0);
/// Bytes per token and vocabulary entry at the loss's peak: 6 (16-bit logits + FP32 copy [LA]); 12 for
/// torchtitan, whose loss upcasts the logits to FP32 and at the start of backward holds the saved FP32
/// log-softmax output plus its incoming and outgoing FP32 gradients (derived from its loss code [TT-LOSS]).
double loss_bytes_per_logit(TrainingFramework framework);
/// Tokens per cross-entropy chunk of a chunked loss (torchtune's 8 chunks of a 8,192-token sequence).
inline constexpr double k_ce_chunk_tokens = 1024.0;
/// Per-op selective checkpointing (torchtitan "op" policy): bytes per token per layer kept when the
/// layer input, the attention output and the odd-numbered matmul outputs of each block are saved, §3.3:
/// gated 4h + 4h_q + 2h_kv + 2I, plain 2h + 4h_q + 2h_kv + 2I (16-bit, scaled by b_a/2).
double per_op_activation_bytes_per_token_layer(const PreparedModel& model, int tp, bool sequence_parallel);
/// Activations held for `layers` layers of one micro-batch of `tokens` tokens (no logits, no working set).
double stored_activation_bytes(const PreparedModel& model, std::int64_t tokens, double layers, int tp,
                               bool sequence_parallel, Recompute recompute);

/// FLOPs per trained token (methodology §4.1–4.2).
struct TrainingFlops {
  double model_per_token = 0.0; ///< what MFU counts: 6·N_mm + 6·L·n_h·d_h·s (full); LoRA 4·N + 6·N_lora
  double hardware_per_token = 0.0; ///< model + recompute (what HFU counts)
  double forward_per_token = 0.0;  ///< one forward pass (2·N_mm + attention)
};
TrainingFlops training_flops_per_token(const PreparedModel& model, std::int64_t seq_len,
                                       TrainingMethod method, Recompute recompute, std::int64_t lora_params);
/// Idle share of a 1F1B / GPipe step: (p − 1)/(m + p − 1) (methodology §5.3 [NAR21]); with v virtual
/// stages (interleaved 1F1B) the bubble shrinks to (p − 1)/v micro-batch slots: (p − 1)/(v·m + p − 1).
double pipeline_bubble_fraction(int stages, std::int64_t micro_batches, int virtual_stages = 1);
/// Extra activation memory of the interleaved schedule on the first stage: × (1 + (p − 1)/(p·v))
/// [KOR22 §4.2.3]; 1 without interleaving.
double interleaved_activation_factor(int stages, int virtual_stages);

} // namespace rightsize
