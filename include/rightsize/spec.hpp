#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/model.hpp"
#include "rightsize/precision.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {

enum class WorkloadMode : std::uint8_t { inference, training };

/// How requests meet the scheduler (methodology §3.1): a fixed number of clients that each send
/// the next request when the last one finishes (benchmarks), or open-loop arrivals at a rate.
enum class Arrival : std::uint8_t { closed_loop, poisson };
const char* to_string(Arrival value);

/// The statistic a latency figure or SLA target is about.
enum class Statistic : std::uint8_t { mean, p50, p90, p99 };
const char* to_string(Statistic value);

/// The serving engine whose scheduler behaviour the estimate assumes (methodology §3.2).
enum class EngineKind : std::uint8_t { vllm, sglang, trtllm };

/// Speculative decoding (methodology §3.8): a drafter proposes `draft_tokens` tokens per step, the
/// model verifies them and the k + 1 positions in one forward pass. mtp: DeepSeek's multi-token
/// prediction module (one decoder layer + the shared output head) [DSV3]; eagle3: an EAGLE-3 draft
/// head (one decoder layer + the output head) [EAGLE3]; ngram: prompt-lookup drafting, no GPU work.
enum class SpeculativeMethod : std::uint8_t { none, mtp, eagle3, ngram, draft_model };
const char* to_string(SpeculativeMethod value);

/// One rate per drafted token, at most 16 (draft_tokens ≤ 16): a fixed array, so copying a workload
/// allocates nothing (the estimator copies it per estimate, the sweep per point).
struct PositionRates {
  static constexpr std::size_t k_capacity = 16;
  std::array<double, k_capacity> rates{};
  std::size_t count = 0;
  PositionRates() = default;
  PositionRates(std::initializer_list<double> values) {
    for (const double v : values)
      push_back(v);
  }
  [[nodiscard]] bool empty() const { return count == 0; }
  [[nodiscard]] std::size_t size() const { return count; }
  [[nodiscard]] const double* begin() const { return rates.data(); }
  [[nodiscard]] const double* end() const { return rates.data() + count; }
  /// Rates past the capacity are dropped (the spec reader refuses more than 16 drafted tokens).
  void push_back(double rate) {
    if (count < k_capacity) rates[count++] = rate;
  }
  void clear() { count = 0; }
};

/// A separate draft model (method draft_model, methodology §3.8): what its passes read and compute and
/// what it keeps, from its own model spec at the served precision (the spec reader fills it).
struct DraftModel {
  double weight_bytes = 0.0;       ///< all its weights, whole model
  double flops_per_token = 0.0;    ///< matmul FLOPs per token, head included (2·N)
  double kv_bytes_per_token = 0.0; ///< its KV per token, all its attention layers, whole model width
  double layers = 0.0;             ///< decoder layers (each pays the engine's layer overhead)
  double kv_heads = 0.0;           ///< KV heads: TP shards its KV over at most this many GPUs
};

struct Speculative {
  SpeculativeMethod method = SpeculativeMethod::none;
  int draft_tokens = 0;         ///< k, tokens drafted per verification step
  double acceptance_rate = 0.0; ///< a, the probability each drafted token is accepted (i.i.d.)
  /// a_i: the chance the i-th drafted token is accepted once the ones before it were (acceptance
  /// falls with the position); empty = `acceptance_rate` at every position. k values when given.
  PositionRates acceptance_by_position;
  /// EAGLE-3's draft head or the draft model's Hugging Face id or path, for the engines' flags (--emit);
  /// "" = not given.
  std::string draft_path;
  DraftModel draft; ///< method draft_model: the drafter's shape
  /// "use": "auto": `recommend` evaluates every layout with and without it and keeps the variant
  /// that ranks first (it stops paying once verification makes the step compute-bound); false =
  /// always on.
  bool automatic = false;
  /// Tokens each verification step yields on average, E = (1 − a^(k+1)) / (1 − a) [LEV23] (k + 1 at
  /// a = 1), or 1 + Σ_i Π_{j≤i} a_j by position; 1 without speculative decoding.
  [[nodiscard]] double tokens_per_step() const;
};

/// Prefix caching (methodology §3.9): engines keep the KV of finished requests in free cache blocks
/// and reuse it for the next prompt that starts with the same tokens (vLLM automatic prefix caching,
/// SGLang RadixAttention, TensorRT-LLM KV-cache reuse). Either a measured hit rate, or the structure
/// the hits come from: a prefix every request shares, and multi-turn conversations whose prompts
/// repeat the previous turns.
struct PrefixCache {
  /// The share of prompt tokens found cached, as engines report it; unset = derived from the structure.
  std::optional<double> hit_rate;
  std::int64_t shared_prefix_tokens = 0; ///< tokens every prompt starts with (system prompt, template)
  int turns = 1; ///< turns per conversation; each prompt holds the previous turns' prompts and answers
  /// Conversations whose context the cache keeps between their turns, per deployment (users thinking
  /// between turns); 0 = the clients in flight are the conversations (none waits between turns).
  std::int64_t conversations = 0;
  /// With hit_rate: the distinct cached tokens the hits draw on, per replica; 0 = not given (the
  /// capacity is then not checked).
  std::int64_t working_set_tokens = 0;
  [[nodiscard]] bool enabled() const { return hit_rate.has_value() || shared_prefix_tokens > 0 || turns > 1; }
};

/// A second KV tier below HBM for cached prefixes (methodology §3.9): host memory over the GPU's
/// host link (PCIe, or NVLink-C2C on Grace systems) or local NVMe.
enum class OffloadTier : std::uint8_t { none, cpu, nvme };
const char* to_string(OffloadTier value);

struct KvOffload {
  OffloadTier tier = OffloadTier::none;
  double bytes = 0.0; ///< the tier's capacity per replica (all its GPUs); with `sized`, the estimate sizes it
  bool sized = false; ///< "bytes": "auto": sized to hold what HBM cannot of the cache's working set
  /// With `sized`: the hit rate to size the tier for (0 = all the structure gives).
  double target_hit_rate = 0.0;
  double read_gb_per_s = 0.0; ///< nvme: read bandwidth per node (required); cpu: 0 = the catalog's host link
};

/// all_linear: every projection (PEFT "all-linear"); attention: q, k, v, o; qv: q and v (LoRA paper).
enum class LoraTargets : std::uint8_t { all_linear, attention, qv };

/// Multi-LoRA serving (methodology §3.10): many adapters on one base model, a batch mixing them
/// (vLLM --enable-lora, SGLang's LoRA batching, TensorRT-LLM lora_config).
struct LoraServing {
  std::int64_t adapters = 0;   ///< distinct adapters served; 0 = none
  std::int64_t rank = 0;       ///< the largest adapter rank (engines size their buffers to it)
  std::int64_t max_active = 0; ///< adapters one batch may mix (the engine's GPU slots)
  LoraTargets targets = LoraTargets::all_linear;
  [[nodiscard]] bool enabled() const { return adapters > 0; }
};

/// How request lengths spread around their mean (docs/model-spec.md "Length distributions",
/// methodology §3.1 "Request lengths"): the lognormal through the p50 and p99 token counts. The
/// mean stays `input_tokens` / `output_tokens` (throughput, memory and the mean figures use it);
/// the spread moves the queue and the percentiles. Unset (p50 = p99 = 0): every request has the mean.
enum class LengthShape : std::uint8_t { fixed, percentiles, lognormal, exponential, uniform, trace };
/// "fixed", "p50/p99", "lognormal", "exponential", "uniform", "trace".
const char* to_string(LengthShape value);
struct LengthSpread {
  double p50_tokens = 0.0;
  double p99_tokens = 0.0;
  LengthShape shape = LengthShape::fixed; ///< how the spread was given
  [[nodiscard]] bool varies() const { return p50_tokens > 0.0 && p99_tokens > p50_tokens; }
  /// The p99 length in whole tokens: `mean` for a fixed length, else the larger of the two.
  [[nodiscard]] std::int64_t p99_or(std::int64_t mean) const {
    if (!varies()) return mean;
    const auto p99 = static_cast<std::int64_t>(p99_tokens);
    return std::max(mean, static_cast<double>(p99) < p99_tokens ? p99 + 1 : p99);
  }
};

/// The longest request a workload describes (docs/model-spec.md "max_context"): a p99 prompt with
/// the mean output or the mean prompt with a p99 output, whichever is longer; what max_context and
/// the model's window must hold (the spec reader and every sweep point judge it alike).
struct LongestRequest {
  std::int64_t input_tokens = 0, output_tokens = 0;
  bool p99_prompt = true; ///< the prompt is the p99 one (else the output is)
  [[nodiscard]] std::int64_t tokens() const { return input_tokens + output_tokens; }
};

/// Serving workload (per request averages).
struct InferenceWorkload {
  std::int64_t input_tokens = 1024; ///< prompt tokens per request (ISL)
  std::int64_t output_tokens = 256; ///< generated tokens per request (OSL)
  std::int64_t concurrency = 0;     ///< in-flight requests per replica; 0 = "auto"
  std::int64_t max_context = 0;     ///< longest context to admit; 0 = input + output
  Arrival arrival = Arrival::closed_loop;
  /// Open loop: requests per second for the whole deployment (each replica carries its share).
  double request_rate_per_s = 0.0;
  /// Open loop: coefficient of variation of inter-arrival times (1 = Poisson; > 1 bursty, as a
  /// gamma renewal process).
  double arrival_cv = 1.0;
  /// Length spreads of prompts and outputs (none: fixed lengths, as benchmarks send them).
  LengthSpread input_spread, output_spread;
  Speculative speculative;  ///< none by default
  PrefixCache prefix_cache; ///< no cached prefixes by default (every prompt prefilled whole)
  KvOffload kv_offload;     ///< no offload tier by default
  LoraServing lora;         ///< no adapters by default
  /// Context each sequence reserves KV for: max_context, or input + output.
  [[nodiscard]] std::int64_t context_tokens() const {
    return max_context > 0 ? max_context : input_tokens + output_tokens;
  }
  [[nodiscard]] LongestRequest longest_request() const {
    const LongestRequest long_prompt{input_spread.p99_or(input_tokens), output_tokens, true};
    const LongestRequest long_output{input_tokens, output_spread.p99_or(output_tokens), false};
    return long_prompt.tokens() >= long_output.tokens() ? long_prompt : long_output;
  }
};

enum class TrainingMethod : std::uint8_t { full, lora, qlora };
enum class Optimizer : std::uint8_t { adamw, adamw_8bit, sgd };
/// none: store every activation; selective: Megatron (attention core recomputed); full: layer inputs
/// only; per_op: torchtitan per-op selective checkpointing (every second matmul recomputed).
enum class Recompute : std::uint8_t { none, selective, full, per_op };
/// Whose defaults a training run follows: generic, Megatron-LM, NeMo (it overlaps TP communication),
/// torchtitan or Hugging Face transformers (their losses upcast the logits to FP32, docs/training.md §1).
enum class TrainingFramework : std::uint8_t { generic, megatron, nemo, torchtitan, transformers };
inline constexpr TrainingFramework k_training_frameworks[] = {
    TrainingFramework::generic, TrainingFramework::megatron, TrainingFramework::nemo,
    TrainingFramework::torchtitan, TrainingFramework::transformers};
/// How attention scores are computed: fused (FlashAttention: the s×s scores never reach HBM [FA]) or
/// materialized (QKᵀ, softmax and dropout as separate kernels, as in Megatron-LM before 2022 [KOR22]).
enum class AttentionKernel : std::uint8_t { fused, materialized };
const char* to_string(TrainingMethod value);
const char* to_string(LoraTargets value);
const char* to_string(Optimizer value);
const char* to_string(Recompute value);
/// "none", "selective", "full", "per_op" (the spec's training.recompute values); nullopt otherwise.
std::optional<Recompute> parse_recompute(std::string_view text);
const char* to_string(TrainingFramework value);
/// The framework `text` names (to_string's spelling); nullopt otherwise. The one parser of the spec,
/// the validation cases and the training-run CSV.
std::optional<TrainingFramework> parse_training_framework(std::string_view text);
/// The names parse_training_framework accepts, in order ("generic", "megatron", ...).
std::vector<std::string> training_framework_names();

/// Training / fine-tuning workload. Optional fields left unset are chosen by the layout search.
struct TrainingWorkload {
  TrainingMethod method = TrainingMethod::full;
  std::int64_t lora_rank = 16;
  std::int64_t seq_len = 4096;
  std::int64_t global_batch = 1024; ///< sequences per optimizer step
  std::int64_t micro_batch = 0;     ///< sequences per micro-batch; 0 = search
  double tokens = 0.0;              ///< tokens to train on; 0 = one step only
  Optimizer optimizer = Optimizer::adamw;
  int zero_stage = -1;                ///< 0..3; -1 = search
  std::optional<Recompute> recompute; ///< unset = search
  bool cpu_offload_optimizer = false;
  TrainingFramework framework = TrainingFramework::generic;
  int virtual_pipeline_stages = 0;       ///< interleaved 1F1B chunks per pipeline rank; 0 = search
  int context_parallel = 0;              ///< ranks one sequence is split over (ring attention); 0 = search
  std::optional<double> tp_comm_overlap; ///< share of TP communication hidden; unset = framework default
  bool chunked_cross_entropy = false;    ///< loss computed in vocabulary chunks (no full FP32 logits)
  AttentionKernel attention_kernel = AttentionKernel::fused; ///< materialized: scores go through HBM
  /// LoRA adapters on the attention projections q, k, v (and o) only instead of every projection.
  LoraTargets lora_targets = LoraTargets::all_linear;
};

/// Service-level objectives; unset = no requirement.
struct Sla {
  std::optional<double> ttft_ms; ///< target for the statistic `ttft_stat` (ttft_ms, ttft_p99_ms, ...)
  std::optional<double> tpot_ms;
  std::optional<double> e2e_ms;
  Statistic ttft_stat = Statistic::mean;
  Statistic tpot_stat = Statistic::mean;
  Statistic e2e_stat = Statistic::mean;
  std::optional<double> requests_per_s;         ///< peak load to serve
  std::optional<double> average_requests_per_s; ///< average load (capacity planning)
  std::optional<double> growth_factor;          ///< expected load growth multiplier
  std::optional<double> output_tokens_per_s;
  std::optional<double> deadline_hours; ///< training: finish within
  std::optional<double> budget_usd;     ///< training: total cost cap; inference: per hour cap
};

/// The accepted range of a spec rate that divides a cost: "$/request" and "$/1M served" divide the
/// bill by the served load, so a rate of 1e-300 req/s printed 300-digit dollar figures (issue 42).
/// One definition for the spec reader (sla, workload) and `sweep --vary`.
struct RateRange {
  double min = 0.0;
  double max = 0.0;
  const char* noun = ""; ///< "requests per second", in messages
};
/// sla.requests_per_s, images_per_s, average_requests_per_s and workload.request_rate_per_s: from
/// one request in about 17 minutes to ten million a second.
inline constexpr RateRange k_requests_per_s_range{1e-3, 1e7, "requests per second"};
/// sla.output_tokens_per_s: from one token in 100 s to ten billion a second.
inline constexpr RateRange k_output_tokens_per_s_range{1e-2, 1e10, "tokens per second"};

/// Limits on what may be recommended.
struct Constraints {
  std::vector<std::string> gpus; ///< catalog ids allowed (empty = all)
  int max_gpus_per_replica = 8;
  int max_nodes = 1;
  PricingModel pricing = PricingModel::on_demand;
  std::string provider; ///< empty = median across providers
  TcoParams tco;
  double max_power_kw = 0.0; ///< GPU board power cap per deployment at peak load; 0 = none
};

/// A fixed deployment named in a spec or by `check --deployment 2xL40S`.
struct DeploymentSpec {
  std::string gpu; ///< catalog id or alias
  int gpus = 1;
  int tp = 0; ///< 0 = choose
  int pp = 0;
  int ep = 0;
  int attention_dp = 0; ///< attention data-parallel ranks per replica; 0 = none (methodology §5.6)
};

/// One pool of a disaggregated deployment (`deployment.prefill` / `deployment.decode`): `workers`
/// replicas of tp·pp GPUs each (methodology §3.6).
struct PoolSpec {
  std::string gpu; ///< catalog id or alias
  int workers = 1;
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int attention_dp = 1; ///< attention data-parallel ranks per worker (methodology §4.1)
};

/// Separate prefill and decode pools (xPyD, issue 17).
struct DisaggSpec {
  PoolSpec prefill;
  PoolSpec decode;
};

/// A whole validated spec file (docs/model-spec.md).
struct Spec {
  int schema_version = 1;
  std::string name;
  std::string source; ///< file it came from, for messages
  ModelSpec model;
  Precision precision;
  /// The checkpoint's own weight format when the spec knows it (a preset's, or an hf_config's
  /// quantization_config / torch_dtype); unset: unknown (read as bf16). Deploy artifacts ask the
  /// engine to quantize only a checkpoint of higher precision than the one served.
  std::optional<NumberFormat> checkpoint_weights;
  WorkloadMode mode = WorkloadMode::inference;
  InferenceWorkload inference;
  TrainingWorkload training;
  Sla sla;
  Constraints constraints;
  std::optional<DeploymentSpec> deployment;
  std::optional<DisaggSpec> disaggregated; ///< `deployment` with `prefill` and `decode` blocks
  std::optional<EngineKind> engine;        ///< workload.engine; unset = vLLM's defaults
  std::vector<std::string> assumptions;    ///< defaults the loader filled in, stated to the user
  /// Said once on stderr by the command line ("rightsize: warning: ..."): an hf_config whose
  /// model_type rightsize does not know, read as a generic decoder.
  std::vector<std::string> warnings;
  /// Poisson arrivals whose rate the loader took from sla.requests_per_s (no workload rate given):
  /// the two are one figure, so a what-if on the SLA's peak moves the rate too (sweep).
  bool rate_from_sla = false;
};

} // namespace rightsize
