#pragma once
// Measured serving runs (tests/validation/serving/serving-measurements.csv, docs/accuracy.md):
// one closed-loop benchmark run per row, scored on mean TTFT and TPOT. Pure: rows come in as values.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/calibration.hpp"
#include "rightsize/inference.hpp"

namespace rightsize {

/// One pool of a disaggregated run (CSV columns prefill_* / decode_*).
struct ServingPool {
  int tp = 1, pp = 1, attention_dp = 1, moe_tp = 1, moe_ep = 1;
  int workers = 0; ///< workers of this pool; 0 = not given
};

/// One measured run, as the CSV gives it (column names in tests/validation/serving/README.md).
struct ServingRun {
  std::string id;
  std::string engine; ///< "trtllm", "vllm", "sglang"
  std::string
      engine_version; ///< as the file gives it, empty when not given (reported, never read by the estimate)
  std::string gpu_id; ///< catalog id
  std::string model;  ///< Hugging Face id
  std::string preset; ///< shipped preset, empty when none
  std::string precision, gemm_quant, moe_quant;
  std::string mode; ///< "agg" or "disagg"
  std::int64_t input_tokens = 0, output_tokens = 0, concurrency = 0;
  /// The engine's batch setting upstream (per attention-DP rank with attention DP); 0 = not given.
  std::int64_t batch_size = 0;
  int tp = 1, pp = 1, attention_dp = 1, moe_tp = 1, moe_ep = 1;
  /// The file wrote this run's layout with its degrees multiplied (tp or attention_dp = moe_tp ×
  /// moe_ep); the fields above hold the layout read back (docs/accuracy.md "Multiplied layouts").
  bool layout_multiplied = false;
  ServingPool prefill, decode; ///< mode "disagg": the two pools' layouts
  double ttft_s = 0.0;         ///< measured mean time to first token
  double tpot_s = 0.0;         ///< measured mean time per output token
};

/// Concurrency bucket of the report: "1", "2-8", "9-32", "33-128", ">128".
std::string_view concurrency_bucket(std::int64_t concurrency);

/// GPUs of one worker of a pool: tp·pp·attention-DP ranks.
int worker_gpus(const ServingPool& pool);

/// GPUs of one row's layout: tp·pp·attention-DP ranks for an aggregated replica, the sum over the
/// two pools' workers for a disaggregated run.
int layout_gpus(const ServingRun& run);

/// For each row, the index of the row scored for its measurement. Rows with the same engine, GPU,
/// model, quantization, mode and workload and the same measured TTFT and TPOT (to the coarser
/// copy's 0.01 ms) are one run listed
/// more than once (the upstream file lists some runs twice, their layout columns in two encodings,
/// one multiplying the degrees: TP8·EP8 on 8 GPUs also as 64 GPUs); each is scored once, under the
/// layout with the fewest GPUs, first in file order on a tie (docs/accuracy.md, "Repeated rows").
/// A row's own index means it is scored.
std::vector<std::size_t> scored_row_of(const std::vector<ServingRun>& runs);

/// True for an aggregated row whose batch setting is below its client count without attention DP:
/// not one replica (it would queue the excess for whole request lifetimes) but clients spread over
/// replicas or a router the row does not give; such a row is not expressible (docs/accuracy.md).
bool replicas_not_given(const ServingRun& run);

/// The Deployment one aggregated replica of a run maps to: tp, pp and the MoE expert-parallel degree.
Deployment deployment_of(const ServingRun& run);

/// The precision a run's quantization columns name: fp8 (weights, activations and KV cache fp8),
/// fp4 (nvfp4 weights and activations, fp8 KV cache), int4 weight-only (int4 weights, bf16 math,
/// bf16 KV), bf16 otherwise. The KV formats are the engines' defaults for these checkpoints
/// (TensorRT-LLM and SGLang quantized recipes store fp8 KV; tests/validation/serving/README.md).
Precision precision_of(const ServingRun& run);

/// The closed-loop workload of a run: its fixed lengths and client count.
InferenceWorkload workload_of(const ServingRun& run);

/// The estimate of one run: `engine` (the profile of the run's engine, data/engines.json) on `gpu`,
/// its published layout and its closed-loop concurrency, bands from `calibration`. `reason` is
/// non-empty when the run cannot be expressed (unknown engine).
struct ServingPrediction {
  std::string reason;
  bool fits = true; ///< the estimator's memory model admits the published layout and concurrency
  bool weights_exceed_memory = false; ///< the layout cannot hold the weights: the row is not expressible
  Band ttft{0.0, 0.0, 0.0}, tpot{0.0, 0.0, 0.0};
  double prefill_s = 0.0;     ///< one request's prefill on an idle replica
  double decode_step_s = 0.0; ///< decode step at the run's in-flight batch
};
ServingPrediction predict_serving(const PreparedModel& model, const Gpu& gpu, const ServingRun& run,
                                  const Calibration& calibration, const EngineConfig& engine);

/// The estimate of one disaggregated run (methodology §3.6): both pools on the run's GPU, each with
/// its published layout; `*_workers` not given = one worker each (1P1D); the run's concurrency is the
/// client count of the whole deployment. `reason` is non-empty when the run cannot be expressed.
ServingPrediction predict_serving_disagg(const PreparedModel& model, const Gpu& gpu, const ServingRun& run,
                                         const Calibration& calibration, const EngineConfig& engine);

/// One scored row: measured and predicted TTFT and TPOT in seconds.
struct ServingResult {
  const ServingRun* run = nullptr;
  double ttft_pred_s = 0.0, tpot_pred_s = 0.0;
  double ttft_low_s = 0.0, ttft_high_s = 0.0; ///< p10–p90 band
  double tpot_low_s = 0.0, tpot_high_s = 0.0;
  double prefill_s = 0.0, decode_step_s = 0.0;
  std::string model_class; ///< model_class_of the run's model
};

/// Error figures of one group of results for one figure.
struct ServingErrorSummary {
  std::string group;
  int rows = 0;
  double median_ape_pct = 0.0;
  double median_signed_pct = 0.0;
  double within_25_pct = 0.0;     ///< share of rows with |error| ≤ 25 %, in percent
  double band_coverage_pct = 0.0; ///< share of rows whose measurement lies inside the band, in percent
};

/// One prediction against its measurement, with the prediction's p10–p90 band.
struct ScoredFigure {
  double measured = 0.0, predicted = 0.0, low = 0.0, high = 0.0;
};

/// Median abs. and signed error, share within 25 % and band coverage of `figures`.
ServingErrorSummary summarize_figures(const std::string& group, const std::vector<ScoredFigure>& figures);

/// Summary of TTFT (ttft = true) or TPOT over the results (summarize_figures).
ServingErrorSummary summarize_serving(const std::string& group, const std::vector<const ServingResult*>& rows,
                                      bool ttft);

/// How far apart distinct measurements of identical inputs lie (docs/accuracy.md "Repeatability"):
/// rows grouped by everything a row gives that the estimate reads (engine, GPU, model, quantization,
/// mode, lengths, clients, batch setting, both pools' layouts and worker counts); over the groups
/// holding two or more measurements, the median of max/min and the share of groups more than 25 %
/// apart (max/min > 1.25), per figure. A spread the inputs cannot explain bounds what any estimate
/// of those rows can reach.
struct RepeatSpread {
  int groups = 0; ///< groups with two or more measurements
  int rows = 0;   ///< rows in those groups
  double ttft_median_ratio = 1.0, tpot_median_ratio = 1.0;
  double ttft_apart_pct = 0.0, tpot_apart_pct = 0.0; ///< share of groups with max/min > 1.25, in percent
};
RepeatSpread repeat_spread(const std::vector<const ServingRun*>& rows);

} // namespace rightsize
