#pragma once
// The `sweep` use case (docs/sweep.md): the keys a grid may vary, the parsed axes, the plan every
// point is evaluated against, and the evaluation of one point (core::judge through the estimate or
// the search). The CLI fills the plan from the spec and flags, runs the points and writes the rows. Model
// keys (model.*, precision.*) are resolved once per distinct combination into a PreparedModel; fast keys
// (workload.*, sla.*, gpu, gpus, tp, pp, ep) are applied to plain structs per point without allocating.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/inference.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/sweep.hpp"
#include "rightsize/training.hpp"

namespace rightsize::app {

/// What a sweep key changes.
enum class SweepField : std::uint8_t {
  model_json, ///< a model.* / precision.* field: edit the spec JSON, re-parse, re-prepare
  input_tokens,
  output_tokens,
  concurrency,
  max_context,
  request_rate_per_s, ///< open-loop keys (workload.request_rate_per_s, workload.burstiness)
  burstiness,
  sla_ttft_ms,
  sla_tpot_ms,
  sla_e2e_ms,
  sla_requests_per_s,
  sla_output_tokens_per_s,
  sla_budget_usd,
  gpu,
  gpus,
  tp,
  pp,
  ep,
  attention_dp,
  seq_len, ///< training keys (workload.seq_len, ...; docs/sweep.md "Training specs")
  global_batch,
  training_tokens,
  micro_batch,
  sla_deadline_hours,
};

/// The spec modes a key (or a figure) applies to: a bit each.
inline constexpr std::uint8_t k_for_inference = 1;
inline constexpr std::uint8_t k_for_training = 2;
inline constexpr std::uint8_t k_for_both = k_for_inference | k_for_training;

/// Which values a key accepts.
enum class ValueKind : std::uint8_t {
  count,       ///< positive integers up to KeyInfo::max
  count_auto,  ///< positive integers or "auto" (concurrency)
  amount,      ///< positive numbers up to KeyInfo::max
  number,      ///< any JSON number (model fields; parse_spec validates)
  precision,   ///< a storage format name (precision, precision.weights)
  activations, ///< a format usable for activations
  kv_cache,    ///< a format usable for the KV cache
  preset,      ///< a preset id in data/models
  gpu,         ///< a catalog GPU id or alias
};

/// One supported key.
struct KeyInfo {
  std::string_view name; ///< as written after --vary, e.g. "workload.concurrency"
  SweepField field;
  ValueKind kind;
  double max = 0.0; ///< upper bound for count/amount kinds
  double min = 0.0; ///< lower bound for amount kinds (0: any positive number); a rate's RateRange
  std::uint8_t modes = k_for_inference; ///< the specs it applies to (k_for_*)
};

/// All supported keys, in the order docs/sweep.md lists them.
const std::vector<KeyInfo>& sweep_keys();
/// The key named `name`, or nullptr.
const KeyInfo* find_sweep_key(std::string_view name);

/// One `--vary KEY=VALUES`: its key and values (the writers render their output cells).
struct SweepAxis {
  const KeyInfo* key = nullptr;
  AxisValues values;
  std::vector<double> numbers; ///< per value for fast keys: "auto" -> 0, gpu -> catalog index
};

/// `text` as a finite number when all of it is one (std::from_chars), else nothing.
std::optional<double> number_of(const std::string& text);

/// Parses one `--vary` argument. `presets` lists preset ids (for model.preset did-you-mean).
/// Throws a usage Error naming --vary. GPU values are resolved later (resolve_gpu_axis).
SweepAxis parse_sweep_axis(std::string_view argument, const std::vector<std::string>& presets);

/// Sweep modes: a fixed deployment per point, or the full search keeping the best candidate.
enum class SweepMode : std::uint8_t { estimate, recommend };

/// The deployment fields given by flags or the spec (0 / npos = not given).
struct FixedDeployment {
  std::size_t gpu = std::numeric_limits<std::size_t>::max(); ///< catalog index
  int gpus = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
};

/// Everything a point needs. Built once; read concurrently by the worker threads.
struct SweepPlan {
  SweepMode mode = SweepMode::estimate;
  std::vector<SweepAxis> axes;
  GridShape grid;
  std::vector<std::size_t> model_axes; ///< indices into `axes` of the model keys, in order
  GridShape model_grid;                ///< over the model axes: one PreparedModel per point
  std::vector<PreparedModel> models;
  std::vector<Gpu> gpus;        ///< the catalog
  std::vector<GpuPrice> prices; ///< USD per GPU-hour (<= 0 unknown) and instance shapes, parallel to gpus
  std::vector<std::size_t> search_gpus; ///< recommend mode: catalog indices to consider
  /// Auto layouts per (model combination, GPU): replica_layouts() computed up front.
  std::vector<std::vector<Deployment>> layouts;
  InferenceWorkload workload;
  Sla sla;
  /// Poisson arrivals at the SLA's peak (Spec::rate_from_sla): a sla.requests_per_s axis sets the
  /// arrival rate as well, else each point would be estimated at the spec's rate.
  bool rate_follows_sla = false;
  FixedDeployment fixed;
  SearchPolicy policy;               ///< its calibration pointer is unset: see search_policy()
  std::vector<double> price_margins; ///< per GPU of `gpus`: what a cost ranking charges its price
  Calibration calibration; ///< the bands --confidence judges at (owned: the plan outlives the catalog)
  bool calibrated = false;
  /// The --calibration overlay's label (file and what it fitted), "" when none: the JSON document
  /// names it like estimate, check and recommend do.
  std::string calibration_overlay_label;
  /// --confidence multipliers per (model combination, GPU), computed by finish_plan.
  std::vector<BandFactors> bands;
  /// A training spec: each point is a training run (search_training_layout on its GPU count, or the
  /// training search in recommend mode) judged by the training judge.
  bool training = false;
  TrainingWorkload training_workload;
  /// Training: training_throughput_low per (model combination, GPU), computed by finish_plan.
  std::vector<double> training_lows;

  [[nodiscard]] SearchPolicy search_policy() const {
    SearchPolicy p = policy;
    p.calibration = calibrated ? &calibration : nullptr;
    return p;
  }
  [[nodiscard]] const BandFactors& bands_for(std::size_t model, std::size_t gpu) const {
    return bands[model * gpus.size() + gpu];
  }

  [[nodiscard]] double training_low_for(std::size_t model, std::size_t gpu) const {
    return training_lows[model * gpus.size() + gpu];
  }

  [[nodiscard]] const std::vector<Deployment>& layouts_for(std::size_t model, std::size_t gpu) const {
    return layouts[model * gpus.size() + gpu];
  }
};

/// Why a point has no estimate at all (a rejection, by contrast, has one).
enum class PointIssue : std::uint8_t {
  none,
  max_context,
  context_window, ///< the point's context exceeds the model's max_position (as a spec's would)
  layout_gpus,
  layout_heads,
  layout_whole,
  layout_dense, ///< ep or attention_dp above 1 on a model without experts (app::reject_moe_layout_on_dense)
  layout_ep,    ///< an EP no replica takes (LayoutIssue::ep_exceeds_replica / ep_unplaceable)
  no_layout,
  no_gpu,
  micro_batch ///< training: workload.micro_batch above workload.global_batch
};

/// The outcome of one point. Plain data: filling it allocates nothing.
struct PointResult {
  std::uint64_t index = 0;
  std::array<std::size_t, k_max_sweep_axes> digits{};
  std::size_t model = 0;       ///< model combination
  std::size_t gpu = 0;         ///< catalog index
  Deployment deployment;       ///< the whole deployment: gpus = replicas · tp · pp
  InferenceEstimate estimate;  ///< costs at full capacity (an inference spec's points)
  TrainingEstimate training;   ///< a training spec's run; deployment holds its GPUs, tp, pp, ep
  double throughput_low = 1.0; ///< training: the band's p10 ratio it was judged at (1 at p50)
  CostAtLoad at_load;          ///< served load and the cost over it (core::cost_at_load)
  TermCheck rejection;         ///< term none = meets everything (core::judge)
  PointIssue issue = PointIssue::none;
  std::int64_t issue_value = 0; ///< numbers for the issue message
  std::int64_t issue_limit = 0;
  bool price_known = false;
  /// Goodput (methodology §6.1) when the point's SLA sets a latency target (has_goodput): the share
  /// of requests within every target and the requests/s that are.
  bool has_goodput = false;
  double slo_attainment = 1.0;
  double goodput_requests_per_s = 0.0;
  [[nodiscard]] bool has_estimate() const { return issue == PointIssue::none; }
  [[nodiscard]] bool ok() const { return issue == PointIssue::none && rejection.term == Term::none; }
};

/// Resolves the fast keys of point `index` and evaluates it (estimate or recommend mode).
/// Estimate mode allocates nothing.
void evaluate_point(const SweepPlan& plan, std::uint64_t index, PointResult& out);

/// Fills the derived parts of a plan whose axes, models, GPUs and prices are set: the grid, the
/// model axes and grid, the search GPUs (all when empty) and the auto layouts.
void finish_plan(SweepPlan& plan);

/// A number per point for --x / --y / --pareto: an estimate figure or a numeric varied key.
struct Metric {
  std::string_view name;     ///< "inference.tpot_s", or the varied key's name
  std::string_view label;    ///< axis title, e.g. "TPOT"
  std::string_view unit;     ///< axis unit after scaling, e.g. "ms"
  double scale = 1.0;        ///< shown value = value · scale
  bool has_direction = true; ///< false for varied keys: not usable for --pareto
  Direction direction = Direction::minimize;
  std::size_t axis = std::numeric_limits<std::size_t>::max(); ///< varied key axis, else npos
  int figure = -1;                 ///< which estimate figure (internal), -1 for a varied key
  std::uint8_t modes = k_for_both; ///< the specs the figure applies to (k_for_*)
};

/// The metric `name`: an estimate figure of the plan's spec mode (directions: cost, latency, time and
/// memory minimize; throughput and MFU maximize) or a numeric varied key; "" names the mode's default
/// for `flag` (--x: TPOT or planned time to train; --y: cost per 1M output tokens at load or per run).
/// Throws a usage Error naming `flag`.
Metric find_metric(std::string_view name, const SweepPlan& plan, std::string_view flag);
/// The metric's value for a point (unscaled); NaN when the point has none (failed, no price).
double metric_value(const Metric& metric, const SweepPlan& plan, const PointResult& point);
/// Whether `metric` is a latency figure (TTFT, TPOT, E2E, mean or p99): the y of a latency–load curve.
bool is_latency(const Metric& metric);
/// Whether `metric` is a varied arrival rate (workload.request_rate_per_s, sla.requests_per_s).
bool is_arrival_rate(const Metric& metric, const SweepPlan& plan);

} // namespace rightsize::app
