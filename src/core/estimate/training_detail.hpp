#pragma once
// Internal to rightsize_core: the per-(model, workload, GPU, config) facts the training estimate
// derives once, so that evaluating one layout is plain arithmetic (the layout search runs thousands).
#include <array>

#include "rightsize/training.hpp"

namespace rightsize::detail {

/// Parameter and byte split of the model as training sees it.
struct TrainingContext {
  const PreparedModel* pm = nullptr;
  const TrainingWorkload* workload = nullptr;
  const Gpu* gpu = nullptr;
  const TrainingConfig* config = nullptr;

  double layers = 0.0, hidden = 0.0, q_width = 0.0, kv_width = 0.0;
  double seq = 0.0; // s
  double moe_layers = 0.0, experts_per_token = 0.0;
  bool lora = false; // LoRA or QLoRA: frozen base + trainable adapters

  // Trainable parameters: non-expert layer part, routed-expert part, edge (embedding, head).
  double train_dense = 0.0, train_expert = 0.0;
  double train_embedding = 0.0;   // first stage (0 for LoRA)
  double train_head_last = 0.0;   // last stage: LM head, or the tied embedding copy (0 for LoRA)
  double train_head_single = 0.0; // head on a single stage (0 when tied: shared with the embedding)
  // Frozen base bytes (LoRA/QLoRA only; full training keeps its weights in `train_*`).
  double base_dense_bytes = 0.0, base_expert_bytes = 0.0;
  double base_embedding_bytes = 0.0, base_head_last_bytes = 0.0, base_head_single_bytes = 0.0;

  StateBytesPerParam state; // per trainable parameter
  std::int64_t trainable_params = 0;
  std::array<TrainingFlops, 4> flops{}; // indexed by Recompute
  double attention_fwd_per_token = 0.0; // attention-core forward FLOPs per token, all layers
  double tp_overlap = 0.0;              // share of TP communication hidden under GEMMs

  double peak_flops_per_s = 0.0;      // dense peak of the math dtype (MFU denominator)
  double compute_flops_per_s = 0.0;   // peak × kernel-level GEMM efficiency
  double attention_flops_per_s = 0.0; // attention core: bf16 peak × η under FP8 training, else as above
  // Seconds of compute per token on one GPU, indexed by Recompute (divide by t·p·cp): hardware FLOPs
  // at the compute rate, or per op under FP8 (GEMMs fp8, attention bf16, casts at HBM speed).
  std::array<double, 4> compute_s_per_token{};
  bool fp8_gemms = false;       // FP8 training: GEMMs at the FP8 peak, the rest in BF16
  double hbm_bytes_per_s = 0.0; // BW × η_m (optimizer step)
  bool precision_supported = true;
};

/// Derives the context; pointers refer to the arguments, which must outlive it.
TrainingContext make_training_context(const PreparedModel& model, const TrainingWorkload& workload,
                                      const Gpu& gpu, const TrainingConfig& config);

/// Trainable parameters on one GPU of a stage, split into non-expert (sharded over dp·cp) and expert
/// (sharded over dp·cp/ep) parts; `last` picks the last stage's edge (head) instead of the first's.
struct StageParams {
  double dense = 0.0;
  double expert = 0.0;
  double frozen_dense_bytes = 0.0;
  double frozen_expert_bytes = 0.0;
};
StageParams stage_params(const TrainingContext& ctx, const TrainingLayout& layout, bool last);

/// stage_params of the layout's first and last stage (the same stage without a pipeline). They depend
/// on TP, PP, VP and EP only, so the search derives them once per layout it tries.
struct StageSplit {
  StageParams first;
  StageParams last;
};
StageSplit stage_split(const TrainingContext& ctx, const TrainingLayout& layout);

/// Per-GPU memory of the most loaded pipeline stage for `layout` with `micro_batches` per step;
/// `stages` = stage_split(ctx, layout).
MemoryEstimate training_memory(const TrainingContext& ctx, const TrainingLayout& layout,
                               std::int64_t micro_batches, const StageSplit& stages);

/// Estimate for one layout on a prepared context (estimate_training and the search share it).
/// `stages` = stage_split(ctx, layout); `bill`: the layout's bill_instances(1, gpus, price, tp) when
/// the caller has it (the search bills each TP degree of its GPU count once); `memory`: the layout's
/// training_memory when the caller computed it already (the search checks fitting first); nullptr
/// computes either.
TrainingEstimate evaluate_training(const TrainingContext& ctx, const TrainingLayout& layout,
                                   const GpuPrice& price, const StageSplit& stages,
                                   const InstanceBill* bill = nullptr,
                                   const MemoryEstimate* memory = nullptr);

/// The layout with degrees clamped to >= 1, ZeRO to 0..3 and micro_batch to >= 1.
TrainingLayout normalized_layout(const TrainingLayout& layout);

/// Per-token widths of one transformer layer in elements (methodology §3.3): hidden h, query
/// heads h_q = n_h·d_h, one of K or V h_kv = n_kv·d_h, and the MLP width I the activations use.
struct LayerWidths {
  double h, h_q, h_kv, ffn;
};
LayerWidths layer_widths(const PreparedModel& pm);

/// Bytes per token and layer of materialized attention scores on one TP rank: QKᵀ (2 B), softmax
/// (2 B) and dropout mask (1 B) per score, 5·n_h·s·(b_a/2)/t [KOR22]; 0 with a fused kernel [FA].
double materialized_scores_bytes_per_token_layer(const TrainingContext& ctx, int tp);

/// Layers held by each pipeline rank: ceil(L / p), or v chunks of ceil(L / (p·v)) when interleaved.
double layers_per_stage(const TrainingContext& ctx, int pp, int vp = 1);

} // namespace rightsize::detail
