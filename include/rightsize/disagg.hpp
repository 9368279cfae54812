#pragma once
// Disaggregated prefill/decode serving (methodology §3.6, [DISTSERVE], [SPLITWISE], [MOONCAKE]):
// a prefill pool of P workers and a decode pool of D workers, each worker a replica with its own GPU
// type and layout; the prompt's KV cache is shipped from the prefill worker to a decode worker.
// Composed from the aggregated per-replica estimator (estimate_inference): the prefill pool is that
// estimator's idle prefill plus the queueing of prompts across the P workers, the decode pool its
// pure decode step at the decode pool's in-flight batch (no prefill interference). Pure.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

/// Fixed TTFT cost of handing a request from the prefill to the decode pool, beyond the KV bytes
/// themselves: the router/proxy hop, the PD bootstrap handshake, KV-transfer setup and completion
/// polling, the decode worker's pickup (methodology §3.6). Fitted: the median of measured − predicted
/// TTFT (without it) over the 72 disaggregated CSV rows at concurrency ≤ 16 (DeepSeek-R1/V3 on
/// B200/H200, SGLang and TensorRT-LLM; docs/accuracy.md "disagg"): 0.237 s.
inline constexpr double k_pd_handoff_s = 0.24;

/// One pool: `workers` replicas of `layout` (layout.gpus = GPUs of one worker = tp·pp) on `gpu`,
/// rented at `price` (the rate and its providers' instance shapes; rate <= 0: unknown).
struct PoolDeployment {
  const Gpu* gpu = nullptr;
  Deployment layout;
  int workers = 1;
  GpuPrice price;
  [[nodiscard]] int gpus() const { return workers * layout.gpus_per_replica(); }
};

struct DisaggDeployment {
  PoolDeployment prefill;
  PoolDeployment decode;
};

/// What both pools are billed for (docs/methodology.md "Whole instances"): each pool is its own set of
/// instances, `copies` × its workers replicas of its worker layout (TP groups of layout.tp) billed by
/// bill_instances under the pool's price; the deployment pays the sum.
struct DisaggBill {
  InstanceBill prefill;
  InstanceBill decode;
  double usd_per_hour = 0.0; ///< both pools (0 when a pool's price is unknown)
};
DisaggBill bill_disagg(const DisaggDeployment& unit, int copies = 1);

/// The link a prompt's KV cache crosses from a prefill worker to a decode worker.
struct KvLink {
  LinkKind kind = LinkKind::network;
  double gb_per_s = 0.0; ///< per GPU lane, per direction; 0 = unknown
  int lanes = 1;         ///< GPU pairs sending in parallel: min of the two workers' KV shards
};

/// The GPUs one prompt's KV cache is spread over in a worker of `layout` (methodology §3.6): each
/// pipeline stage holds its layers' KV and each tensor-parallel rank its KV heads (up to the KV
/// heads); an MLA latent is replicated on every TP rank, and an attention-DP rank holds its own
/// sequences whole, so neither adds a shard.
int kv_shards(const PreparedModel& model, const Deployment& layout);

/// NVLink (the scale-up link) when both workers are the same GPU type and fit together in one
/// scale-up domain (g_p + g_d ≤ domain), else RDMA over each GPU's NIC; lanes = min(s_p, s_d), the two
/// workers' KV shards (kv_shards), each at the slower end's bandwidth (methodology §3.6).
KvLink kv_transfer_link(const Gpu& prefill_gpu, int prefill_worker_gpus, int prefill_shards,
                        const Gpu& decode_gpu, int decode_worker_gpus, int decode_shards);

/// KV bytes of one prompt of `prompt_tokens` tokens for the whole model (every layer, all KV heads or
/// the MLA latent once, linear-attention state once): what the decode worker must receive.
double kv_transfer_bytes(const PreparedModel& model, std::int64_t prompt_tokens);

/// T_kv = latency + bytes / (lanes · B_link · η_l), B_link in GB/s (methodology §3.6). 0 bytes = 0 s.
double kv_transfer_s(double bytes, const KvLink& link, double efficiency, double latency_s);

/// Little's law for the decode pool: sequences in flight on one decode worker when the deployment
/// completes `requests_per_s` requests, each decoding `output_tokens − 1` tokens at `tpot_s`, spread
/// over `decode_workers` workers: λ·(OSL − 1)·TPOT / D.
double decode_in_flight(double requests_per_s, std::int64_t output_tokens, double tpot_s, int decode_workers);

/// Estimate of a disaggregated deployment.
struct DisaggEstimate {
  InferenceEstimate prefill;  ///< one prefill worker: memory with one prompt in flight, idle prefill
  InferenceEstimate decode;   ///< one decode worker at the decode pool's in-flight batch
  InferenceEstimate combined; ///< the whole deployment, as judge() and the shared renderers read it
  KvLink link;
  double kv_bytes = 0.0;                 ///< one prompt's KV cache (whole model)
  double kv_transfer_s = 0.0;            ///< added to TTFT
  double prefill_service_s = 0.0;        ///< one prompt on an idle prefill worker
  double prefill_prompts_per_step = 1.0; ///< mean prompts a loaded prefill worker packs per step
  double prefill_step_s = 0.0;           ///< that batched step (a prompt's own prefill time under load)
  double prefill_wait_s = 0.0;           ///< mean wait for a prefill worker
  double prefill_utilization = 0.0;      ///< share of time a prefill worker is busy
  double ttft_fixed_s = 0.0;             ///< engine's fixed TTFT share (HTTP, tokenizer, scheduling)
  double handoff_s = 0.0;                ///< prefill-to-decode handoff (k_pd_handoff_s)
  double decode_batch = 0.0;             ///< mean sequences in flight per decode worker
  double client_wait_s = 0.0;            ///< closed loop: wait for a decode slot when clients exceed the KV
  DisaggBill bill;                       ///< one unit's instances; `combined.usd_per_hour` is its cost
};

/// What the estimate_disagg calls of one search share, none of it depending on the arrival rate:
/// one decode worker's step times and whole estimates by integer batch (closed_decode_step_s,
/// decode_at), kept for the units that share a decode pool's GPU and layout, and the idle prefill
/// worker of each prefill pool they pair with. They depend on the model, the engine, the workload's
/// lengths and the decode pool, all in `key`, and on the workload's other fields and each GPU's
/// price, which one search holds fixed (a memo serves one search). A call whose decode pool or
/// lengths differ from the key starts the memo again, so a stale figure is never read.
struct DecodeStepMemo {
  struct Key {
    const PreparedModel* model = nullptr;
    const EngineConfig* engine = nullptr;
    const Gpu* gpu = nullptr;
    int tp = 0, pp = 0, ep = 0, attention_dp = 0;
    std::int64_t input_tokens = 0, output_tokens = 0, max_context = 0;
    double usd_per_gpu_hour = 0.0; ///< the decode pool's price
    bool operator==(const Key&) const = default;
  };
  /// A prefill pool: its GPU, layout and price.
  struct PoolKey {
    const Gpu* gpu = nullptr;
    int tp = 0, pp = 0, ep = 0, attention_dp = 0;
    double usd_per_gpu_hour = 0.0;
    bool operator==(const PoolKey&) const = default;
  };
  Key key;
  std::vector<double> step_s;                                 ///< index = batch; 0 = not computed yet
  std::unordered_map<std::int64_t, InferenceEstimate> worker; ///< decode worker by batch
  std::vector<std::pair<PoolKey, InferenceEstimate>> prefill; ///< idle prefill worker by pool
};

/// Estimates `deployment` at `workload.concurrency` clients for the whole deployment (closed loop), or
/// at `workload.request_rate_per_s` (Arrival::poisson); concurrency 0 = the largest client count whose
/// mean latencies meet `sla` (when given) and whose decode batches fit the decode workers' KV.
/// `handoff_s` < 0 = k_pd_handoff_s. An open loop carries the closed-loop capacity of the same
/// pools (InferenceEstimate::capacity_requests_per_s); `closed` gives that closed-loop estimate when
/// the caller has it (the search does, once per unit), else it is computed.
DisaggEstimate estimate_disagg(const PreparedModel& model, const InferenceWorkload& workload,
                               const DisaggDeployment& deployment, const EngineConfig& engine, const Sla* sla,
                               double handoff_s = -1.0, DecodeStepMemo* steps = nullptr,
                               const DisaggEstimate* closed = nullptr);

/// Each pool's time factor at its band's slow end (methodology §3.5): its GPU's TPOT band high
/// ratio (the step's), as an aggregated replica's k.
struct PoolTimeFactors {
  double prefill = 1.0;
  double decode = 1.0;
};

/// The slow end of a disaggregated open loop's band (methodology §3.5 "Open loop: the band through
/// the queue", as core::slow_end_estimate): each pool at its own k × the arrival rate (the prefill
/// queue at k.prefill·λ, the decode batch at k.decode·λ), its combined estimate. None for a closed
/// loop, an overloaded estimate or both k ≤ 1. Pure.
std::optional<InferenceEstimate>
disagg_slow_end(const DisaggEstimate& estimate, const PreparedModel& model, const InferenceWorkload& workload,
                const DisaggDeployment& deployment, const EngineConfig& engine, PoolTimeFactors k,
                DecodeStepMemo* steps = nullptr, const DisaggEstimate* closed = nullptr);

} // namespace rightsize
