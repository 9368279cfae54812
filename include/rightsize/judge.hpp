#pragma once
// The one decision point (docs/ARCHITECTURE.md "One decision point"): every command that says
// whether a deployment is acceptable (estimate, check, recommend, sweep) asks `judge`, and every
// command that picks a replica layout for a GPU count asks `fit_layout` (check with no degree pinned
// asks the search's `layout_for_count`, search.hpp, which falls back to it). Nothing else compares an
// estimate with an SLA or decides feasibility.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rightsize/calibration.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

struct TrainingEstimate;

/// Every test a deployment is judged on, one vocabulary for verdicts, rejections and rankings, in the
/// canonical order (judge writes them in it; the first that fails is the verdict's rejection).
/// Feasibility: engine → precision → link → memory; then the SLA: TTFT → TPOT → end-to-end → load → deadline
/// → budget → price → power. `none` is a passing verdict's rejection.
enum class Term : std::uint8_t {
  none,
  engine,              ///< the serving engine has a build for the GPU's vendor (data/engines.json)
  precision,           ///< the catalog gives the GPU a tensor-core rate for the precision
  link,                ///< the catalog gives a link bandwidth between the replica's GPUs
  memory,              ///< bytes needed per GPU (value) against usable (limit)
  ttft,                ///< ms, at the statistic the SLA names
  tpot,                ///< ms
  e2e,                 ///< ms: the whole request (an image's or item's latency)
  requests_per_s,      ///< load: requests (images, items) per second served
  output_tokens_per_s, ///< load: output tokens per second served
  deadline,            ///< training: hours to train against the deadline
  budget,              ///< $/h (inference) or $ per run (training) against the budget
  price,               ///< a price is known: without one no cost is ranked and no budget judged
  power,               ///< board power at peak load (kW) against constraints.max_power_kw
};
/// The term's name in the verdict's term list ("requests_per_s").
const char* to_string(Term term);
/// The rejection's code in JSON, CSV and sweep output (docs/output-schema.md "Rejection codes"): the term's
/// name, except does_not_fit (memory), layout (link), engine_unsupported, precision_unsupported, no_price
/// and throughput (both load terms).
const char* reason_code(Term term);
/// How close a rejection on this term is to passing (smaller is closer), for the closest-misses lists of
/// every search: a missing price or a budget is nearer than a load or latency miss, which is nearer than
/// not fitting at all.
int closeness(Term term);

/// One term as judged: the value compared (the pessimistic end when asked) against the limit. A
/// rejection is the verdict's first failed term (Verdict::first), the same type.
struct TermCheck {
  Term term = Term::none;
  double value = 0.0;       ///< the judged value (ms, req/s, tok/s, $/h, bytes, h, kW)
  double point_value = 0.0; ///< the point estimate of the same figure (0: none kept)
  double limit = 0.0;
  bool met = true;
  Statistic stat = Statistic::mean; ///< latency terms: the statistic the target is about
  double headroom = 0.0;            ///< load terms: limit = SLA peak × (1 + headroom) (JudgeRules)
  /// Open loop: the arrival rate exceeds what the deployment serves (the queue grows without end);
  /// a latency term's value is then a finite stand-in, not a time.
  bool overloaded = false;
  /// Open-loop load terms: the value is the deployment's closed-loop capacity
  /// (InferenceEstimate::capacity_requests_per_s), not the rate it serves.
  bool capacity = false;
  /// Open-loop latency terms: the point serves the rate but the band's slow end does not
  /// (latency_at_band_s): the judged value is unbounded (+inf).
  bool overloaded_at_band = false;
  /// The figure is not known (a budget without a price, a power cap without a TDP): `value`,
  /// `point_value` and the margin are stand-ins, and the term fails.
  bool unknown = false;
  /// Fraction by which the value beats (> 0) or misses (< 0) the limit.
  [[nodiscard]] double margin() const;
  [[nodiscard]] bool is_load() const {
    return term == Term::requests_per_s || term == Term::output_tokens_per_s;
  }
};

/// A failed term with its numbers (a rejection made outside judge, e.g. a missing price).
inline TermCheck failed_term(Term term, double value = 0.0, double limit = 0.0) {
  TermCheck t;
  t.term = term;
  t.value = value;
  t.limit = limit;
  t.met = term == Term::none;
  return t;
}

/// Which end of the error band an SLA must hold at (docs/cli.md "--confidence").
/// p50: the point estimate (the median of the calibration residuals). p90: latencies at the p90 of
/// their band and throughput at its p10, so nine in ten real deployments still meet the SLA.
enum class Confidence : std::uint8_t { p50, p90 };
const char* to_string(Confidence confidence);
std::optional<Confidence> parse_confidence(std::string_view text);

/// Multipliers from the point estimate to the pessimistic end of its band (1 = no band).
struct BandFactors {
  double ttft_high = 1.0;
  double tpot_high = 1.0;
  double throughput_low = 1.0;
};

/// The factors of one GPU and model class from a calibration (all 1 without one, or for p50), its
/// bands widened to its reach's (band_for).
BandFactors band_factors(const Calibration* calibration, Confidence confidence, const std::string& gpu_id,
                         std::string_view model_class, Reach reach);

/// The p10 multiplier of a training run's tokens/s on a GPU (1 for p50 or without a calibration): the
/// training_throughput band of the GPU and model class, widened to the GPU's training reach
/// (Gpu::training_reach, band_for). A run is judged and ranked at time and cost ÷ it.
double training_throughput_low(const Calibration* calibration, Confidence confidence,
                               const std::string& gpu_id, std::string_view model_class, Reach training_reach);

/// A training run's time and cost at the judged end of its band: the point figures ÷ `throughput_low`
/// (training_throughput_low, clamped to 0.001..1; 1 is the point estimate). The one definition the
/// judge, the training ranking and every output use.
struct JudgedRun {
  double time_to_train_planning_s = 0.0;
  double usd_total = 0.0;
};
JudgedRun judged_run(const TrainingEstimate& estimate, double throughput_low);

/// An end-to-end latency at the pessimistic end of its band: its prefill part (`ttft`, at most the
/// whole) × ttft_high and the decode part × tpot_high (methodology §3.5). Any time unit.
double e2e_at_band(double e2e, double ttft, const BandFactors& bands);

/// The slow end of an open loop's band (methodology §3.5 "Open loop: the band through the queue"): a
/// GPU whose every time is k× the estimate's serves arrivals at λ as the estimate serves k·λ, each
/// latency k× longer (time scaling). So the band's slow end is the same deployment estimated at
/// k·λ, k = `tpot_high` (TPOT's band is the step's), and each latency there × its band ratio. None
/// for a closed loop, an overloaded estimate or k ≤ 1. `workload` is the one `estimate` was made
/// for (its rate the deployment's). Pure.
std::optional<InferenceEstimate> slow_end_estimate(const InferenceEstimate& estimate,
                                                   const PreparedModel& model,
                                                   const InferenceWorkload& workload, const Gpu& gpu,
                                                   const Deployment& deployment, const EngineConfig& engine,
                                                   double tpot_high);

/// A latency (figure 0 TTFT, 1 TPOT, 2 E2E; at `stat`) at the pessimistic end of its band: the point
/// × its ratio in `bands` (E2E: e2e_at_band), or for an open loop with its `slow` end the larger of
/// that and the slow end's own figure × the ratio; +inf (unbounded) for TTFT and E2E when the slow end
/// is overloaded (its TPOT is a full cache's, a time). Seconds.
double latency_at_band_s(const InferenceEstimate& estimate, const InferenceEstimate* slow, int figure,
                         Statistic stat, const BandFactors& bands);

/// The ratios of `bands`' high ends to `estimate`'s TTFT and TPOT (1 where a figure is 0): the
/// BandFactors of the shown p10–p90 band.
BandFactors high_ratios(const InferenceBands& bands, const InferenceEstimate& estimate);

/// Raises the high ends of an open loop's TTFT, TPOT and E2E bands to its slow end's
/// (latency_at_band_s at the bands' own ratios); +inf where the slow end is overloaded. Unchanged
/// for a closed loop or without `slow`.
void band_through_queue(InferenceBands& bands, const InferenceEstimate& estimate,
                        const InferenceEstimate* slow);

/// The latency limits an auto concurrency must meet so that the judged (pessimistic) end meets the
/// real ones: each limit divided by its band's high multiplier (unchanged at p50).
Sla auto_concurrency_sla(const Sla& sla, const BandFactors& bands);

/// What the judge is asked to check.
struct JudgeRules {
  bool check_load = true; ///< compare served requests/s and tokens/s with the SLA's load
  BandFactors bands;      ///< pessimistic multipliers (from band_factors) for --confidence p90
  bool price_known = true;
  double max_power_kw = 0.0; ///< constraints.max_power_kw; 0 = no cap
  double power_kw = 0.0;     ///< the deployment's board power at its load (energy.hpp); 0 = unknown
  /// Throughput headroom over the SLA's peak load (SearchPolicy::throughput_headroom): a closed-loop
  /// deployment meets the load when its judged throughput reaches peak × (1 + headroom), the rule
  /// recommend sizes replicas by (methodology §6). An open-loop estimate is judged at its arrival rate.
  double load_headroom = 0.0;
  /// An open loop's slow end (slow_end_estimate at `bands.tpot_high`): its latencies are judged
  /// there (latency_at_band_s). Null: every latency is judged at point × band ratio.
  const InferenceEstimate* slow_end = nullptr;
};

/// The verdict on one deployment: each feasibility test and SLA term with its margin, and the first
/// failure in the canonical order of Term. Inference and training deployments alike.
struct Verdict {
  bool engine_runs = true;
  bool precision_supported = true;
  bool link_known = true;
  bool fits = true;
  double memory_needed_bytes = 0.0; ///< per GPU
  double memory_usable_bytes = 0.0; ///< per GPU
  std::array<TermCheck, 7> terms{};
  std::size_t term_count = 0;
  TermCheck first; ///< the first failed term, its rejection; term == none when every test passes
  [[nodiscard]] bool passes() const { return first.term == Term::none; }
  /// Engine, precision, link and memory pass: performance figures mean something.
  [[nodiscard]] bool feasible() const { return engine_runs && precision_supported && link_known && fits; }
};

/// Judges one estimate (for the deployment as a whole: served load = all replicas). Pure, no
/// allocation.
Verdict judge(const InferenceEstimate& estimate, const Sla& sla, const JudgeRules& rules);

/// Judges one training run on the same terms: precision, link (a collective without a finite time),
/// memory, then sla.deadline_hours against its planned time to train and sla.budget_usd against its
/// cost per run (unknown price: a price miss), both at the judged end: the point figure ÷
/// `throughput_low` (training_throughput_low; 1 judges the point estimate). Pure.
Verdict judge(const TrainingEstimate& estimate, const Sla& sla, bool price_known,
              double throughput_low = 1.0);

/// The SLA terms the point estimate meets but the pessimistic end of the band (`bands`) misses:
/// the cautions of --confidence p50. Returns how many were written to `out` (in judge's order).
std::size_t optimistic_only_terms(const InferenceEstimate& estimate, const Sla& sla, const BandFactors& bands,
                                  std::array<TermCheck, 7>& out, const InferenceEstimate* slow_end = nullptr);

/// Pins for a layout choice: 0 = free.
struct LayoutRequest {
  /// GPUs of the whole deployment (replicas = gpus / (tp·pp·attention_dp)); 0 = one replica of any size up to
  /// the limits below (the smallest that fits).
  int gpus = 1;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int max_gpus_per_replica = 8; ///< with gpus = 0
  int max_nodes = 1;            ///< with gpus = 0
  int attention_dp = 0;         ///< attention data-parallel ranks; > 1 pins an attention-DP layout
};

/// Why no layout could be formed at all (distinct from "formed, but does not fit").
/// runs_whole: more than one GPU per replica asked of a model served whole (core::runs_whole).
enum class LayoutIssue : std::uint8_t {
  none,
  gpus_not_divisible,
  heads_not_divisible,
  runs_whole,
  ep_exceeds_replica, ///< a pinned EP wider than the pinned replica's tp·pp·attention_dp GPUs
  ep_unplaceable      ///< a pinned EP no replica's TP group spans (without attention DP, EP = TP)
};

/// Expert parallelism splits an MoE model's experts, and attention data parallelism pairs with it:
/// either above 1 on a model without experts is no layout (estimate, check and sweep refuse it; the
/// spec reader refuses deployment.ep / attention_dp the same way).
inline bool moe_layout_on_dense(const ModelSpec& model, int ep, int attention_dp) {
  return model.moe.experts == 0 && (ep > 1 || attention_dp > 1);
}

struct LayoutChoice {
  Deployment deployment; ///< the smallest replica that fits; else the largest one tried
  bool fits = false;
  LayoutIssue issue = LayoutIssue::none;
  /// estimate_inference of `deployment` (nullptr SLA, the keep price), when fit_layout was given a
  /// price to keep it and check_fit made it: a given concurrency, and the layout fits or is the one
  /// returned at the search's last size
  std::optional<InferenceEstimate> estimate;
};

/// The smallest replica layout for `request.gpus` GPUs that fits: replicas of tp·pp GPUs with tp·pp
/// dividing the count, fewer GPUs per replica first and, at the same size, TP inside the node before
/// PP (docs/methodology.md "Search"). Pinned degrees are kept; an unpinned EP stays 1. When nothing
/// fits, the largest layout tried is returned with fits = false so the memory verdict can be shown.
/// With `keep_price`, each layout is checked by check_fit at that price and the returned one's
/// estimate, when made, is kept in the choice (the caller's next step; the sweep's hot path).
LayoutChoice fit_layout(const PreparedModel& model, const InferenceWorkload& workload, const Gpu& gpu,
                        const LayoutRequest& request, const EngineConfig& engine,
                        const GpuPrice* keep_price = nullptr);

} // namespace rightsize
