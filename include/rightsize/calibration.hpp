#pragma once
// Validation against published measurements, calibration of per-GPU efficiency factors, error
// metrics and error bands (methodology §4.5, §7.3). Pure: the cases and the GPUs come in as values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/engine_profile.hpp"
#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/model.hpp"
#include "rightsize/precision.hpp"
#include "rightsize/pricing.hpp" // median()
#include "rightsize/spec.hpp"

namespace rightsize {

/// The figure a measurement (and an error band) is about. Units: throughput and
/// training_throughput in tokens/s for the whole deployment, latencies in seconds, memory in bytes.
/// training_memory: per-GPU bytes of a training run as the framework reports them (memory_scope).
enum class FigureKind : std::uint8_t {
  throughput,
  ttft,
  tpot,
  e2e,
  memory,
  training_throughput,
  training_memory,
  image_latency ///< seconds per generated image (DiT, methodology §3.7)
};
inline constexpr std::size_t k_figure_kind_count = 8;

/// Name used in files and output ("throughput", "ttft", ...).
const char* to_string(FigureKind kind);
/// Parses a figure kind; also accepts the case-file spelling "inference_throughput".
std::optional<FigureKind> parse_figure_kind(std::string_view name);

/// What a memory measurement covers.
/// reserved: the caching allocator's peak reserve (torch max_memory_reserved, torchtitan's "memory").
enum class MemoryScope : std::uint8_t { weights_per_gpu, peak_allocated, reserved };

/// One published measurement with the settings needed to predict it (tests/validation/README.md).
struct ValidationCase {
  std::string id;
  FigureKind kind = FigureKind::throughput;
  ModelSpec model;
  Precision precision;
  std::string gpu_id;                ///< catalog id, e.g. "H100-SXM"
  Deployment deployment;             ///< gpus, tp, pp, ep (expert groups)
  std::string framework;             ///< the engine and version as the case names it ("vLLM 0.6.7 ...")
  InferenceWorkload workload;        ///< ISL, OSL, concurrency per replica (0 = auto)
  std::int64_t training_seq_len = 0; ///< training cases only
  Recompute training_recompute = Recompute::full; ///< training cases: the run's recompute mode
  /// Published training settings (0 / -1 / unset = not published: global batch max(1024, GPUs),
  /// micro-batch and ZeRO searched, CP and VP 1, TP overlap the framework's default).
  std::int64_t training_global_batch = 0;
  std::int64_t training_micro_batch = 0;
  int training_zero_stage = -1;
  int training_cp = 1;
  int training_vp = 1;
  std::optional<double> training_tp_overlap;
  TrainingFramework training_framework = TrainingFramework::generic;
  AttentionKernel training_attention_kernel = AttentionKernel::fused;
  MemoryScope memory_scope = MemoryScope::weights_per_gpu;
  double measured = 0.0;                 ///< in the unit of `kind`
  Statistic statistic = Statistic::mean; ///< ttft / tpot / e2e: which statistic `measured` is
  bool scored = true;                    ///< false: reported but excluded from metrics and fits
  std::string model_class;               ///< "dense-small" (< 20 B), "dense-large", "moe"
  /// Cases with the same nonzero group share every input but the figure (the TTFT, TPOT and
  /// throughput of one measured run): a fit predicts them from one estimate. 0 = none.
  std::size_t inputs_group = 0;
  /// Engine settings the run states ("engine" in the case file, tests/validation/README.md), as a
  /// user would pass them on the command line: the in-flight cap (--max-num-seqs; 0 = the
  /// profile's) and TensorRT-LLM's capacity scheduler policy (--capacity-scheduler-policy).
  std::int64_t engine_max_num_seqs = 0;
  std::optional<CapacitySchedulerPolicy> engine_capacity_policy;
};

/// `engine` with the settings `c` states applied (ValidationCase::engine_*): what a case is
/// predicted with, by the fits and by the held-out scoring alike.
EngineConfig case_engine(const ValidationCase& c, EngineConfig engine);

/// Model class used to widen bands: "moe", "dense-large" (≥ 20 B parameters) or "dense-small".
std::string model_class_of(const ModelSpec& model);

/// Whether a model class is an image model's ("image" for a DiT, "image-unet" for a UNet): its
/// latency and images/s are judged on the image-latency band (methodology §3.7).
bool is_image_class(std::string_view model_class);

/// Predicts one case on `gpu` (whose `efficiency` is used) with `engine`. Inference kinds go
/// through prepare_model + estimate_inference; training through search_training_layout with the
/// case's TP/PP and recompute pinned, so a fitted `training_mfu` means what the training estimator
/// reads it as (kernel-level GEMM efficiency; docs/training.md).
double predict_case(const ValidationCase& c, const Gpu& gpu, const EngineConfig& engine);

/// Closed-form training throughput (methodology §4.2), kept for the worked example in tests:
/// tokens/s = gpus · F_bf16 · MFU / (6·N_mm + 6·L·n_h·d_h·s). Labelled "6ND fallback" in reports.
double training_tokens_per_s_6nd(const ModelSpec& model, std::int64_t seq_len, int gpus, double peak_tflops,
                                 double mfu);

/// Signed error in percent, (predicted − measured) / measured · 100.
double signed_error_pct(double predicted, double measured);
/// Absolute percentage error.
double ape_pct(double predicted, double measured);
/// Median of the values (0 for an empty list).

/// Arithmetic mean (0 for an empty list).
double mean(const std::vector<double>& values);
/// Linear-interpolated quantile q in [0, 1] (type 7, the numpy default); 0 for an empty list.
double quantile(std::vector<double> values, double q);

/// Efficiency factors fitted for one GPU, with the cases each factor was fitted to. A factor with
/// fewer than two cases on this GPU takes the cross-GPU value (`*_source` = "cross_gpu") or stays
/// at the default when no GPU has cases ("default").
struct FittedEfficiency {
  std::string gpu_id; ///< "*" for the cross-GPU (pooled) fit
  GpuEfficiency efficiency;
  std::vector<std::string> decode_cases, prefill_cases, training_cases, communication_cases,
      expert_read_cases, layer_overhead_cases, sequence_layer_cases;
  /// The scored UNet image cases efficiency.unet_gemm_fraction was fitted to (the "*" entry only;
  /// one fraction for every GPU, methodology §3.7 "UNet rate"); empty = not fitted (1.0).
  std::vector<std::string> unet_cases;
  std::string decode_source = "default", prefill_source = "default", training_source = "default",
              communication_source = "default", expert_read_source = "default",
              layer_overhead_source = "default", sequence_layer_source = "default";
};

/// Error band of one figure kind on one GPU ("*" = all GPUs): ratio measured / predicted.
struct BandEntry {
  FigureKind kind = FigureKind::throughput;
  std::string gpu_id;
  double ratio_low = 1.0;  ///< p10 of measured / predicted, after widening
  double ratio_high = 1.0; ///< p90, after widening
  int cases = 0;           ///< leave-one-out residuals it was computed from
  std::string rule;        ///< "own", "own+pooled widened", "pooled widened", "default"
  /// The model class whose cases it came from (image_latency: "image" for DiTs, "image-unet");
  /// empty = every class's cases (every other kind). band_for prefers a class's own entries.
  std::string model_class;
};

/// Extra widening of a band for a model class with few cases (multiplies ratio_high, divides low).
struct ClassWidening {
  std::string model_class;
  int cases = 0;
  double factor = 1.0;
};

/// The measured tail of a latency figure on a GPU (from a `rightsize calibrate` overlay): p99 ≈
/// predicted mean × p99_over_mean (docs/calibration.md, "Tails").
struct TailEntry {
  FigureKind kind = FigureKind::ttft;
  std::string gpu_id;
  double p99_over_mean = 1.0;
  int runs = 0;
};

/// The band of a serving figure (TTFT or TPOT) for estimates that reach as far as `reach`
/// (model_unmeasured, gpu_sibling or extrapolated): e^±q, q the 80th percentile of
/// |ln(measured / predicted)| over the serving rows of models (model_unmeasured) or GPUs (the other
/// two) held out of the fit (docs/accuracy.md "Bands by reach"), never narrower than a nearer
/// reach's.
struct ReachBand {
  FigureKind kind = FigureKind::ttft;
  Reach reach = Reach::extrapolated;
  double ratio_low = 1.0;
  double ratio_high = 1.0;
  int rows = 0;                      ///< held-out rows it was computed from
  std::vector<std::string> held_out; ///< the GPUs (models, for model_unmeasured) held out
};

/// The models whose serving runs a GPU's bands were made from (rule "serving rows"): an estimate of
/// another model on that GPU reaches as far as model_unmeasured (serving_reach).
struct MeasuredModels {
  std::string gpu_id;
  std::vector<std::string> models; ///< ModelSpec::name of each preset, sorted
};

/// A calibration: fitted factors per GPU and error bands (data/calibration.json).
struct Calibration {
  int schema_version = 1;
  std::vector<FittedEfficiency> gpus;          ///< sorted by id; "*" first
  std::vector<BandEntry> bands;                ///< sorted by kind, then GPU id
  std::vector<ClassWidening> classes;          ///< sorted by class
  std::vector<TailEntry> tails;                ///< from overlays only; sorted by kind, then GPU id
  std::vector<ReachBand> reach_bands;          ///< sorted by kind, then reach
  std::vector<MeasuredModels> measured_models; ///< sorted by GPU id
};

/// The reach band of a figure (TTFT, TPOT; throughput takes TPOT's inverted: tokens/s at a given
/// concurrency scale with 1 / TPOT) for an estimate that reaches as far as `reach`; none for a
/// measured GPU, another figure or a calibration without reach bands.
std::optional<ReachBand> reach_band(const Calibration& calibration, FigureKind kind, Reach reach);

/// Sets each GPU's reach: measured when the calibration holds serving-run bands of its own (rule
/// "serving rows", or "user runs" from an overlay) for TTFT or TPOT; gpu_sibling when a GPU of the
/// same family (gpu_family) in `gpus` is measured; extrapolated otherwise.
void assign_reach(const Calibration& calibration, std::vector<Gpu>& gpus);

/// How far an estimate of `model` on `gpu` reaches: the GPU's reach, except model_unmeasured on a
/// measured GPU whose calibration lists the models measured on it (MeasuredModels) without this one
/// (decoder models only: the serving rows are LLM runs; image and ViT models keep the GPU's reach).
/// A GPU measured by a `--calibration` overlay's runs ("user runs" bands) stays measured: the user
/// calibrated it on their own stack. Null calibration: the GPU's reach.
Reach serving_reach(const Calibration* calibration, const Gpu& gpu, const ModelSpec& model);

/// How many of a --calibration overlay's runs a GPU's serving bands come from: the most cases of its
/// "user runs" bands (TTFT, TPOT, throughput); 0 when its bands are the shipped ones.
int user_band_runs(const Calibration& calibration, const std::string& gpu_id);

/// The tail entry of a figure on a GPU (exact kind and GPU id), or null when none is in force.
const TailEntry* tail_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id);

/// A value with its band: low ≤ value ≤ high (all in the value's unit).
struct Band {
  double low, value, high;
};

/// The band around `value` for a figure on a GPU: the GPU's entry, else the all-GPU entry, else
/// a ×0.5–×2 default. Pure lookup.
Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value);
/// How a model class widens its bands (log-space stretch): the calibration's factor for a class with
/// scored validation cases (`measured`), else the unseen-class widening 1 + 0.10 × 5 = 1.5.
struct ClassWidth {
  double factor = 1.0;
  bool measured = false;
};
ClassWidth class_width(const Calibration& calibration, std::string_view model_class);

/// As above, further widened by the model class's factor (classes with few validation cases).
Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value,
              std::string_view model_class);
/// As above for an estimate that reaches as far as `reach`: a GPU that is not measured takes the
/// union of that band and its reach band (reach_band), so its band widens as it extrapolates.
Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value,
              std::string_view model_class, Reach reach);

/// The bands of one inference estimate's figures (methodology §3.5): TTFT and TPOT from their
/// calibrated bands, never below the estimate's physical floors; end-to-end from those two
/// (low = TTFT low + (OSL − 1)·TPOT low, likewise high), so the three agree; throughput from its
/// band, never above what the TPOT floor allows.
struct InferenceBands {
  Band ttft, tpot, e2e, output_tokens_per_s, requests_per_s;
};
InferenceBands inference_bands(const Calibration& calibration, const std::string& gpu_id,
                               std::string_view model_class, Reach reach, const InferenceEstimate& estimate);

/// Calibration family of a GPU: the first word of its architecture ("Hopper", "Blackwell", "CDNA",
/// "Ada", "Ampere", ...).
std::string gpu_family(const Gpu& gpu);

/// Applies a calibration to catalog GPUs whose efficiency is still the methodology default
/// (provenance starting "defaults:" or "methodology §4.5 defaults"): a factor fitted on the GPU's
/// own cases is used as is; an unmeasured factor takes the cross-GPU value, but never better than
/// the lowest measured value of its family, or, with no measured sibling, than the lowest measured
/// value of any GPU (methodology §4.5, "no unmeasured GPU better than a measured sibling").
/// Provenance says which factors are extrapolated.
void apply_calibration(const Calibration& calibration, std::vector<Gpu>& gpus);

/// Fit settings: plausible ranges (methodology §4.5) and the minimum cases for a per-GPU fit.
struct FitOptions {
  double bandwidth_min = 0.5, bandwidth_max = 0.95;
  double compute_min = 0.3, compute_max = 0.9;
  double mfu_min = 0.2, mfu_max = 0.75;
  double communication_min = 0.5, communication_max = 0.9;
  /// A UNet's GEMM rate as a fraction of η_f: physically at most the large-GEMM rate.
  double unet_fraction_min = 0.2, unet_fraction_max = 1.0;
  /// The engine's per-layer time as a multiple of its profile's (GpuEfficiency::layer_overhead),
  /// fitted only when fit_layer_overhead is set (`rightsize calibrate`; the shipped fit keeps 1).
  double layer_overhead_min = 0.25, layer_overhead_max = 4.0;
  bool fit_layer_overhead = false;
  int min_cases_per_gpu = 2;
  /// Count distinct runs, not cases, against min_cases_per_gpu: the ids are "<run>:<figure>"
  /// (core::stack_cases), and one run's TPOT and throughput are not two runs (`calibrate`).
  bool distinct_runs = false;
  /// A case informs a factor when |d log(prediction) / d log(factor)| reaches this.
  double min_elasticity = 0.5;
  /// The same floor for the per-layer time (layer_overhead): a fixed per-layer time is rarely half
  /// a step, so 0.5 would leave it informed by no run; 0.15 was chosen among 0.1 / 0.15 / 0.25 / 0.5
  /// on bench/calibrate_groups' 85 groups (docs/calibration.md "What is fitted").
  double min_overhead_elasticity = 0.15;
};

/// Fits per-GPU efficiency factors to the scored cases (1-D golden-section search per factor on
/// the sum of absolute log errors, two coordinate passes; a case informs a factor only when its
/// prediction is sensitive to it). `gpus` supply peaks and defaults;
/// cases whose GPU is missing are ignored. Deterministic.
std::vector<FittedEfficiency> fit_efficiencies(const std::vector<ValidationCase>& cases,
                                               const std::vector<Gpu>& gpus, const EngineConfig& engine,
                                               const FitOptions& options);

/// Fits one GPU's factors to `cases` (all on `gpu`) starting from gpu.efficiency, within the
/// options' bounds; a factor informed by fewer than min_cases_per_gpu cases keeps gpu.efficiency's
/// value and gets source `keep_source` (e.g. "shipped"). Same search as fit_efficiencies.
FittedEfficiency fit_gpu_from(const std::vector<ValidationCase>& cases, const Gpu& gpu,
                              const EngineConfig& engine, const FitOptions& options,
                              const std::string& keep_source);

/// One case's outcome.
struct CaseResult {
  std::string id;
  FigureKind kind = FigureKind::throughput;
  std::string gpu_id;
  std::string model_class;
  bool scored = true;
  /// Poisson arrivals: its latency is that of the batch the rate settles at, so it informs no
  /// factor and no band (methodology §3.4 "Which cases"); it is scored all the same.
  bool open_loop = false;
  double measured = 0.0;
  double predicted_default = 0.0; ///< with methodology default factors
  double predicted = 0.0;         ///< with factors fitted to all cases
  double predicted_loo = 0.0;     ///< with factors fitted without this case
};

/// An open loop's latency (TTFT, TPOT or E2E of a Poisson run): the step time of the batch its arrival
/// rate settles at, so it informs no fitted factor and no band (methodology §3.4 "Which cases").
bool open_loop_latency(FigureKind kind, bool open_loop);

/// Runs every case with default, fitted and leave-one-out factors.
std::vector<CaseResult> evaluate_cases(const std::vector<ValidationCase>& cases, const std::vector<Gpu>& gpus,
                                       const EngineConfig& engine, const FitOptions& options);

/// Error bands from leave-one-out ratios (rule in tests/validation/README.md).
Calibration build_calibration(const std::vector<FittedEfficiency>& fits,
                              const std::vector<CaseResult>& results);

/// Median / mean APE of one group.
struct ErrorSummary {
  std::string group; ///< kind name, or "kind/gpu"
  int cases = 0;
  double median_ape_pct = 0.0, mean_ape_pct = 0.0;         ///< fitted factors (in-sample)
  double median_ape_loo_pct = 0.0, mean_ape_loo_pct = 0.0; ///< leave-one-out
  double median_ape_default_pct = 0.0;                     ///< default factors
};

/// Summaries per kind (group = kind) and per kind and GPU (group = "kind/gpu"), scored cases only,
/// sorted by group.
std::vector<ErrorSummary> summarize(const std::vector<CaseResult>& results, bool per_gpu);

} // namespace rightsize
