// The inference estimate's memory (methodology §2.1, §2.3–2.7, §3.1 "Open loop: KV in flight",
// §3.9): each sequence's KV on one GPU, the budget per GPU and the concurrency it allows, a shared
// prefix's one copy, an open loop's held KV, and the verdict at a batch. Pure arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"

namespace rightsize::detail {

// KV bytes one sequence of context c holds on one GPU (its TP share of its PP stage's layers).
// Sliding layers hold min(c, W) tokens; linear-attention layers a fixed state that TP shards by
// value heads (Mamba: d_inner) like KV heads (methodology §2.3).
double seq_kv_bytes_gpu(const Setup& s, double c) {
  const double tokens = s.full_layers * c + s.sliding_layers * std::min(c, s.window);
  const double shards = s.pm->linear_state_shards;
  const double state =
      shards > 0.0 ? s.pm->linear_state_bytes_per_sequence * std::ceil(shards / s.t) / shards : 0.0;
  return (s.pm->kv_bytes_per_token_layer * s.kv_fraction * tokens + state) / s.p;
}

namespace {

// The memory an engine may use on one GPU (methodology §2.1): C·u when u is a share of the whole GPU
// (vLLM, SGLang); when it is a share of what is free after loading (TensorRT-LLM's
// free_gpu_memory_fraction [TRT-KVCFG]), the non-KV bytes plus u of the rest, so KV = u·(C − W − A − R).
// Weights that overfill the GPU leave nothing free: C, and the KV budget is negative.
double usable_bytes(const MemoryEstimate& mem) {
  if (!mem.usable_fraction_of_free) return mem.capacity_per_gpu_bytes * mem.usable_fraction;
  const double non_kv = mem.non_kv_bytes();
  const double free_bytes = mem.capacity_per_gpu_bytes - non_kv;
  return free_bytes > 0.0 ? non_kv + mem.usable_fraction * free_bytes : mem.capacity_per_gpu_bytes;
}

} // namespace

// Memory budget per GPU (methodology §2.1, §2.5–2.7): C·u ≥ W + A + R + KV. Fills the weights,
// activations and overhead of `mem`; the KV cache and the verdict come with the concurrency.
Budget memory_budget(const EstimateInputs& in, const Setup& s, MemoryEstimate& mem) {
  const PreparedModel& pm = in.pm;
  const ModelSpec& m = pm.model;
  const EngineConfig& engine = in.engine;
  mem.capacity_per_gpu_bytes = in.gpu.visible_memory();
  mem.usable_fraction = engine.usable_fraction;
  mem.usable_fraction_of_free = engine.usable_fraction_of_free;
  // The vision tower sits on the first pipeline stage, TP-sharded like the LM (methodology §1.6).
  mem.weights_bytes = s.weights_gpu_bytes + pm.image_encoder_weight_bytes + pm.vision_weight_bytes / s.t;
  // An MTP module or EAGLE-3 head is one more decoder layer (methodology §3.8): a layer's share of
  // the resident weights; its output head is the model's.
  const SpeculativeMethod spec = in.w.speculative.method;
  const DraftModel& draft = in.w.speculative.draft;
  if (s.decoder && (spec == SpeculativeMethod::mtp || spec == SpeculativeMethod::eagle3))
    mem.weights_bytes += s.weights_gpu_bytes / std::max(1.0, d(m.layers));
  // A separate draft model is served TP-sharded beside the target (vLLM's draft_tensor_parallel_size
  // defaults to the target's; SGLang runs the draft worker on the same TP group).
  if (s.decoder && spec == SpeculativeMethod::draft_model) mem.weights_bytes += draft.weight_bytes / s.t;
  // Multi-LoRA: the engine's max_active adapter slots of the largest rank (methodology §3.10).
  if (in.w.lora.enabled()) mem.weights_bytes += d(in.w.lora.max_active) * s.lora_bytes / s.p;
  Budget b{};
  b.step_tokens = d(engine.max_batched_tokens);
  if (s.decoder) {
    // A_peak ≈ b_a·T_step·(h + 3·I/t) + 4 B·S_logit·V/t, S_logit = max_num_seqs rows of fp32 logits.
    mem.activations_bytes =
        pm.activation_bytes * b.step_tokens * (d(m.hidden_size) + 3.0 * pm.ffn_width_for_activations / s.t) +
        4.0 * d(engine.max_num_seqs) * d(m.vocab_size) / s.t;
  }
  mem.overhead_bytes = engine.runtime_reserve_bytes + engine.cuda_graph_bytes +
                       (in.dep.gpus_per_replica() > 1 ? engine.nccl_reserve_bytes : 0.0);
  const double block = d(std::max<std::int64_t>(1, engine.block_tokens));
  const double context = std::ceil(d(in.w.context_tokens()) / block) * block; // paged blocks (§2.4)
  b.per_seq_kv = seq_kv_bytes_gpu(s, context);
  // An MTP module or EAGLE-3 head keeps one full-attention layer's KV of every sequence, on the
  // stage that holds it (methodology §3.8).
  if (s.decoder && (spec == SpeculativeMethod::mtp || spec == SpeculativeMethod::eagle3))
    b.per_seq_kv += pm.kv_bytes_per_token_layer * s.kv_fraction * context;
  // A draft model keeps its own KV of every sequence: all its layers, sharded over min(t, its KV heads).
  if (s.decoder && spec == SpeculativeMethod::draft_model)
    b.per_seq_kv += draft.kv_bytes_per_token * context / draft_kv_shards(draft, s.t);
  mem.usable_per_gpu_bytes = usable_bytes(mem);
  const double kv_budget = mem.usable_per_gpu_bytes - mem.non_kv_bytes();
  b.kv_budget_bytes = kv_budget;

  double max_conc = 0.0;
  if (!s.decoder) {
    // Items in flight are bounded by activations: T·b_a·(h + 3·I/t) per item per layer set.
    const double per_item =
        d(m.tokens_per_item) * pm.activation_bytes * (d(m.hidden_size) * 4.0 + 3.0 * d(m.ffn_size) / s.t);
    max_conc = kv_budget > 0.0 && per_item > 0.0 ? std::floor(kv_budget / per_item) : 0.0;
    mem.activations_bytes = 0.0;
  } else if (kv_budget > 0.0 && b.per_seq_kv > 0.0) {
    max_conc = std::floor(kv_budget / b.per_seq_kv);
  }
  b.max_conc = std::min(max_conc, d(engine.max_num_seqs) * s.p); // per attention-DP rank
  return b;
}

// A shared prefix's blocks are held once for all the sequences in flight (methodology §3.9): the
// pool loses one copy, each sequence its share, and more sequences fit.
void share_prefix(const PrefixPlan& plan, const EngineConfig& engine, double pp, Budget& b) {
  if (!plan.active || plan.shared_tokens <= 0.0 || b.per_seq_kv <= 0.0) return;
  b.shared_kv_bytes = b.kv_budget_bytes - plan.kv_pool_bytes;
  b.per_seq_kv = plan.per_seq_kv_bytes;
  const double fit =
      plan.kv_pool_bytes > 0.0 && b.per_seq_kv > 0.0 ? std::floor(plan.kv_pool_bytes / b.per_seq_kv) : 0.0;
  b.max_conc = std::min(fit, d(engine.max_num_seqs) * pp);
}

// The KV the requested concurrency holds. A closed loop's clients beyond the KV slots wait in the
// engine's queue and hold none: the engines admit a request only when its blocks are free
// ([VLLM-SCHED], [TRT-SCHED]), so the pool holds at most max_conc sequences and the timing counts
// the others' wait (clients_exceed_kv; methodology §3.1 "Clients beyond the KV slots").
void settle_memory(const EstimateInputs& in, const Setup& s, const Budget& b, double batch,
                   MemoryEstimate& mem) {
  const PreparedModel& pm = in.pm;
  const ModelSpec& m = pm.model;
  const bool queued = s.decoder && in.w.arrival == Arrival::closed_loop && b.max_conc >= 1.0;
  const double held = queued ? std::min(batch, b.max_conc) : batch;
  mem.kv_cache_bytes = s.decoder ? held * b.per_seq_kv + b.shared_kv_bytes : 0.0;
  if (!s.decoder) {
    mem.activations_bytes = batch * d(m.tokens_per_item) * pm.activation_bytes *
                            (d(m.hidden_size) * 4.0 + 3.0 * d(m.ffn_size) / s.t);
  }
  const double non_kv = mem.weights_bytes + mem.activations_bytes + mem.overhead_bytes;
  mem.per_gpu_bytes = non_kv + mem.kv_cache_bytes;
  mem.fits = mem.per_gpu_bytes <= mem.usable_per_gpu_bytes && b.max_conc >= 1.0;
  // Whether the memory would hold every client's KV at once (the engine's max_num_seqs aside): what
  // the layout search sizes a replica by.
  mem.holds_all_clients =
      !queued || non_kv + batch * b.per_seq_kv + b.shared_kv_bytes <= mem.usable_per_gpu_bytes;
}

// An open loop's sequences hold KV room for open_held_tokens, not the full context (methodology
// §3.1 "Open loop: KV in flight"): each sequence's KV shrinks by what a sequence of that many
// tokens holds against one of the paged context, and the pool (less a shared prefix's copy) fits
// more of them, up to the engine's max_num_seqs per stage.
void hold_open_loop_kv(const Setup& s, const InferenceWorkload& w, const EngineConfig& engine,
                       const PrefixPlan& plan, Budget& b) {
  const double block = d(std::max<std::int64_t>(1, engine.block_tokens));
  const double context = std::ceil(d(w.context_tokens()) / block) * block;
  const double held = std::ceil(open_held_tokens(w, engine) / block) * block;
  const double full = seq_kv_bytes_gpu(s, context);
  if (held >= context || b.per_seq_kv <= 0.0 || full <= 0.0) return;
  b.per_seq_kv *= seq_kv_bytes_gpu(s, held) / full;
  const double pool = plan.active ? plan.kv_pool_bytes : b.kv_budget_bytes;
  const double fit = pool > 0.0 ? std::floor(pool / b.per_seq_kv) : 0.0;
  b.max_conc = std::min(fit, d(engine.max_num_seqs) * s.p);
}

} // namespace rightsize::detail
