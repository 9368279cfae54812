#pragma once
// Internals shared by the inference estimator's files (inference_setup.cpp: the setup;
// inference_memory.cpp: memory; inference.cpp: the concurrency search, the figures; inference_phases.cpp:
// phase times; inference_load.cpp: the arrival model, methodology §3.1). Core-private; pure.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/numeric.hpp"
#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/length_spread.hpp"
#include "rightsize/model.hpp"

namespace rightsize::detail {

using core::d;

struct PrefixPlan; // prefix_cache.hpp

// Everything about (model, GPU, deployment) that does not depend on the concurrency.
struct Setup {
  const PreparedModel* pm;
  const ModelSpec* m;
  const Gpu* gpu;
  const EngineConfig* engine;
  double t, p; // TP and PP degrees (t: attention TP inside one attention-DP rank)
  int tp_int, ep_int;
  double adp;    // attention data-parallel ranks; the timing model follows one rank (methodology §5.6)
  double moe_tp; // ways each routed expert's width is split: t·adp/ep
  double ep_link_gb_per_s, ep_hop_s; // link of the MoE group (t·adp GPUs of a stage)
  double compute_flops_per_s;        // F·η_f for the GEMM dtype, one GPU
  double attention_flops_per_s;      // F·η_f for the attention dtype (16-bit), one GPU (§4.1)
  double unet_gemm_fraction;         // a UNet's convolutions + linears run at this × η_f (§3.7); else 1
  double bandwidth_bytes_per_s;      // BW·η_m, one GPU
  double expert_read;                // routed experts' weights read at this fraction of η_m (§4.3)
  double kv_fraction;                // share of KV heads a TP rank holds (replication past n_kv, MLA)
  double full_layers, sliding_layers, window;
  /// The request's vision-encoder FLOPs spread over its prompt tokens, so that every prefill chunk
  /// carries its share (methodology §1.6).
  double vision_flops_per_token;
  double weights_gpu_bytes; // resident weights on the most loaded GPU
  double tp_link_gb_per_s, tp_hop_s;
  // A TP group across scale-up domains: GPUs per domain in the group, the domain's link and hop
  // (hierarchical all-reduce, methodology §5.1); tp_local = t when the group fits in one domain.
  int tp_local;
  double local_link_gb_per_s, local_hop_s;
  double pp_link_gb_per_s, pp_hop_s;
  double link_efficiency;
  bool decoder;
  const Speculative* speculative; // the workload's; method none = one token per decode step
  // Prefix caching (methodology §3.9): the plan, and at the batch being evaluated (at_batch) the
  // prompt tokens a request finds cached and the time to load the offload tier's share of them.
  const PrefixPlan* prefix;
  double cached_tokens;
  double tier_load_s;
  // Multi-LoRA serving (methodology §3.10): one adapter's bytes and extra FLOPs per token on one GPU.
  const LoraServing* lora;
  double lora_bytes;
  double lora_flops_per_token;
};

struct PhaseTime {
  double memory_s = 0.0;
  double compute_s = 0.0;
  double comm_s = 0.0;
  double routing_s = 0.0; // MoE token routing passes (gather, expert outputs, weighted sum)
  // The attention kernels' share of memory_s (KV reads) and of compute_s (score and value FLOPs): a
  // decode step runs them apart from the GEMMs, each kernel at its own roofline (methodology §3).
  double attention_memory_s = 0.0;
  double attention_compute_s = 0.0;
  double total_s = 0.0;
  [[nodiscard]] double gemm_memory_s() const { return memory_s - attention_memory_s; }
  [[nodiscard]] double gemm_compute_s() const { return compute_s - attention_compute_s; }
};

struct Point {
  PhaseTime decode;
  PhaseTime prefill;
  double ttft_s, tpot_s, e2e_s, tokens_per_s_replica;
  Percentiles ttft, tpot, e2e;
  double wait_s = 0.0, in_flight = 0.0, prefill_utilization = 0.0, ttft_fixed_s = 0.0;
  bool overloaded = false;
};

constexpr double k_quantiles[3] = {0.5, 0.9, 0.99};

// One estimate's inputs as resolved for its GPU and layout: the workload with one attention-DP
// rank's share of the arrivals, the engine's defaults on this GPU and TP degree, and the layout
// family's efficiencies.
struct EstimateInputs {
  const PreparedModel& pm;
  const InferenceWorkload& w;
  const Gpu& gpu;
  const Deployment& dep;
  const EngineConfig& engine;
  const GpuEfficiency& eff;
  double adp; // attention data-parallel ranks per replica (at least 1)
};

/// The Setup of one estimate (inference_setup.cpp); sets est.precision_supported, est.gemm_math and,
/// when a link the replica spans is unknown, est.link_known = false.
Setup make_setup(const EstimateInputs& in, InferenceEstimate& est, bool timing = true);
// The rates and links make_setup(…, timing = false) leaves out (what only the timing reads).
void time_setup(const EstimateInputs& in, Setup& s, InferenceEstimate& est);

// The concurrency-independent terms of the memory budget and the concurrency they allow.
struct Budget {
  double step_tokens;     // the engine's prefill token budget per step
  double per_seq_kv;      // KV bytes one sequence of the paged context holds on one GPU
  double max_conc;        // sequences (items) that fit per attention-DP rank
  double kv_budget_bytes; // the KV pool per GPU
  double shared_kv_bytes; // a shared prefix's one copy in it (methodology §3.9)
};

/// Memory budget per GPU (inference_memory.cpp, methodology §2.1, §2.5–2.7): fills the weights,
/// activations and overhead of `mem`; the KV cache and the verdict come with the concurrency.
Budget memory_budget(const EstimateInputs& in, const Setup& s, MemoryEstimate& mem);
/// A shared prefix's blocks held once for all the sequences in flight (methodology §3.9).
void share_prefix(const PrefixPlan& plan, const EngineConfig& engine, double pp, Budget& b);
/// The KV the requested concurrency needs, and the memory verdict at `batch`.
void settle_memory(const EstimateInputs& in, const Setup& s, const Budget& b, double batch,
                   MemoryEstimate& mem);
/// An open loop's sequences hold KV room for open_held_tokens (methodology §3.1).
void hold_open_loop_kv(const Setup& s, const InferenceWorkload& w, const EngineConfig& engine,
                       const PrefixPlan& plan, Budget& b);

/// Distinct adapters a batch of `batch` sequences mixes (inference_setup.cpp, methodology §3.10).
double lora_distinct(const Setup& s, double batch);

/// KV bytes one sequence of context c holds on one GPU (inference_memory.cpp).
double seq_kv_bytes_gpu(const Setup& s, double c);
/// GPUs a draft model's KV is split over: TP shards its KV heads, replicating them beyond (§3.8).
inline double draft_kv_shards(const DraftModel& draft, double tp) {
  return std::max(1.0, std::min(tp, draft.kv_heads));
}
/// Fixed GPU time of a forward pass: L·t_layer + L_moe·t_moe (inference_phases.cpp).
double layer_overhead_s(const Setup& s);
/// Per-sequence time of a decode step of bm sequences per micro-batch: bm·L·t_seq at TP ≥ 2
/// (inference_phases.cpp).
double sequence_layer_s(const Setup& s, double bm);
/// Extra fixed time of a forward pass that carries prompt tokens (inference_phases.cpp).
double eager_prefill_overhead_s(const Setup& s);
/// Fixed time of one prefill step: layer + eager prefill + engine step overhead (inference_phases.cpp).
double prefill_step_fixed_s(const Setup& s);
/// A step's GEMM efficiency against large GEMMs, dense and routed-expert (inference_phases.cpp).
struct GemmShape {
  double dense = 1.0;
  double expert = 1.0;
};
/// The shape factors of GEMMs of `rows` rows per attention rank; `experts`: the step runs routed
/// experts (methodology §4.3, item "grouped GEMM").
GemmShape gemm_shape(const Setup& s, double rows, bool experts);
/// Prefill of n prompt tokens after `cached` tokens already in the KV cache, on an idle replica;
/// `gemm_rows` rows in its GEMMs (0 = n).
PhaseTime prefill_time(const Setup& s, double n, double gemm_rows, double cached = 0.0);
/// What n prompt tokens add to a decode step of `decode` (`decode_tokens` tokens) when they ride in
/// it: FLOPs above its memory floor, routing and collective bytes; no fixed time (inference_phases.cpp).
double mixed_prefill_s(const Setup& s, const PhaseTime& decode, double decode_tokens, double n,
                       double gemm_rows, double cached);
/// One decode round of `batch` sequences at mean context `mean_context`.
PhaseTime decode_time(const Setup& s, double batch, double mean_context);
/// The pure decode step of the closed loop's batch, min(clients, slots) sequences (evaluate_closed's
/// pt.decode: the round plus the eager-step overhead above the largest CUDA-graph batch).
PhaseTime closed_decode_step(const Setup& s, const InferenceWorkload& w, double clients, double slots);
/// How one estimate's request lengths spread (methodology §3.1 "Request lengths"): the prompts'
/// lognormal on its grid and their prefill-time curve, the outputs' lognormal. Default: fixed lengths.
struct Spread {
  bool prompt = false;                   // prompts vary
  load::LengthGrid grid;                 // prompt lengths (p50, σ) on the integration grid
  load::ServiceCurve curve;              // prefill time against prompt length
  double service_cv = 0.0;               // coefficient of variation of the prefill service
  double curve_rows = -1.0;              // the GEMM rows the curve was made for (set_curve's memo)
  double curve_step = -1.0;              // and the open loop's step (its carrier and decode)
  double out_p50 = 0.0, out_sigma = 0.0; // output lengths (σ 0: fixed)
  /// Quantiles k_quantiles of prefill + wait: with fixed prompts service_s + the wait's quantile,
  /// else load::PrefillWait over the prompts' lognormal.
  [[nodiscard]] std::array<double, 3> ttft_quantiles_s(double service_s, double mean_wait_s,
                                                       double p_wait) const;
  /// The spread of the prefills a decode overlaps grows by √(1 + c_s²) (compound Poisson).
  [[nodiscard]] double overlap_spread() const { return std::sqrt(1.0 + service_cv * service_cv); }
  /// Output length at quantile q: the mean when outputs are fixed.
  [[nodiscard]] double output_tokens(double mean_tokens, double q) const;
};
/// The spread of `w`'s lengths without its curve (inference_spread.cpp).
Spread spread_of(const InferenceWorkload& w);
/// An open loop's step at its batch (inference_open.cpp, methodology §3.1 "Open loop: the step
/// loop"): the decode it carries and what a prompt riding in it costs.
struct OpenStep {
  PhaseTime decode;              ///< the batch's decode (incl. the eager step above the graph limit)
  double batch = 0.0;            ///< sequences in flight per rank
  double rows = 0.0;             ///< GEMM rows of the mixed step (the prompts' efficiency)
  double marginal_s = 0.0;       ///< m: what the mean prompt adds to the step it rides in
  double fresh_tokens = 0.0;     ///< the mean prompt's new tokens, those of marginal_s
  double prompts_per_step = 0.0; ///< n = batch / OSL: prompts a step takes on average
  double step_s = 0.0;           ///< T = D + (1 − e^(−n))·E + n·m / p: the mean step, TPOT
  double carrier_s = 0.0;        ///< T + e^(−n)·E: a step known to carry a prompt, before its work
  double free_tokens = 0.0;      ///< prompt tokens a step takes beside its decode tokens
  /// What a prompt of `fresh` new tokens adds beyond one carrier step: its own work and, above the
  /// step's free tokens, the further carrier steps its chunks wait (mixed_prefill_s).
  [[nodiscard]] double prompt_s(const Setup& s, double fresh) const;
  /// The same for the mean prompt (fresh_tokens), whose work is marginal_s.
  [[nodiscard]] double mean_prompt_s() const { return with_chunks_s(marginal_s, fresh_tokens); }
  /// `work_s` of a prompt of `fresh` new tokens plus the carrier steps its further chunks wait.
  [[nodiscard]] double with_chunks_s(double work_s, double fresh) const;
};
/// Sets the prefill curve of `sp` on this setup through the mean prompt (`service_at_mean_s`,
/// `mixed_rows` rows in its GEMMs), the p50 and the p99, and its service c_v. With `step`, a
/// prompt's service is what it adds to the open loop's step (OpenStep::prompt_s), else its prefill.
void set_curve(Spread& sp, const Setup& s, const InferenceWorkload& w, double mixed_rows,
               double service_at_mean_s, const OpenStep* step = nullptr);
/// Time from a request's arrival to its first token outside prefill and queue: the engine's fixed
/// part and loading cached blocks from the offload tier (inference_load.cpp, §3.9).
double request_fixed_s(const Setup& s);
/// Attention-DP balancing (methodology §3.2): the mean hold of a prompt at `arrivals_per_step`
/// prompts over the ranks and `step_s` per step; `hold_s` receives the longest (inference_load.cpp).
double balance_hold_s(const Setup& s, double arrivals_per_step, double step_s, double& hold_s);
/// Quantile q of the balancing hold: the mean at the median, that share of the longest above.
double balance_quantile_s(double mean_s, double hold_s, double q);
/// Closed loop with `clients` clients and `slots` KV slots per replica (methodology §3.1).
Point evaluate_closed(const Setup& s, const InferenceWorkload& w, double clients, double slots);
/// Mean tokens of KV room a sequence of an open loop holds: ISL + (1 + r)·(OSL − 1)/2, r the
/// engine's kv_reserved_output_share (inference_open.cpp, methodology §3.1).
double open_held_tokens(const InferenceWorkload& w, const EngineConfig& engine);
/// The highest arrival rate per rank an open loop sustains with `slots` in flight, and a request's
/// path at that load: to its first token, then its decode (inference_open.cpp, §3.1).
struct OpenCapacity {
  double requests_per_s = 0.0;
  double first_token_s = 0.0, decode_s = 0.0;
};
OpenCapacity open_capacity(const Setup& s, const InferenceWorkload& w, double slots);
/// Open loop at w.request_rate_per_s per replica (methodology §3.1).
Point evaluate_open(const Setup& s, const InferenceWorkload& w, double slots);

} // namespace rightsize::detail
