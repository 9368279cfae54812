// Measured serving runs: layout and precision of a row, error summaries (docs/accuracy.md).
#include "rightsize/serving_validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"

namespace rightsize {

std::string_view concurrency_bucket(std::int64_t concurrency) {
  if (concurrency <= 1) return "1";
  if (concurrency <= 8) return "2-8";
  if (concurrency <= 32) return "9-32";
  if (concurrency <= 128) return "33-128";
  return ">128";
}

int worker_gpus(const ServingPool& pool) {
  return pool.tp * pool.pp * std::max(1, pool.attention_dp);
}

int layout_gpus(const ServingRun& run) {
  const auto pool = [](const ServingPool& p) { return worker_gpus(p) * std::max(1, p.workers); };
  if (run.mode == "disagg") return pool(run.prefill) + pool(run.decode);
  return worker_gpus(ServingPool{run.tp, run.pp, run.attention_dp});
}

std::vector<std::size_t> scored_row_of(const std::vector<ServingRun>& runs) {
  // Everything a measurement is of; within it, two rows are one measurement when TTFT and TPOT
  // agree to the coarser copy's digits (the file gives some copies to 0.01 ms: 338.336 / 338.34).
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string,
                         std::string, std::int64_t, std::int64_t, std::int64_t>;
  constexpr double k_same_s = 0.0051e-3;          // half of 0.01 ms, and float slack
  std::map<Key, std::vector<std::size_t>> groups; // key -> the first row of each measurement
  std::vector<std::size_t> first_of(runs.size()); // row -> the first row of its measurement
  std::map<std::size_t, std::size_t> scored;      // first row -> the row scored for it
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ServingRun& r = runs[i];
    std::vector<std::size_t>& firsts =
        groups[Key{r.engine, r.gpu_id, r.model, r.precision, r.gemm_quant, r.moe_quant, r.mode,
                   r.input_tokens, r.output_tokens, r.concurrency}];
    const auto same = std::find_if(firsts.begin(), firsts.end(), [&](std::size_t f) {
      return std::fabs(runs[f].ttft_s - r.ttft_s) <= k_same_s &&
             std::fabs(runs[f].tpot_s - r.tpot_s) <= k_same_s;
    });
    if (same == firsts.end()) {
      firsts.push_back(i);
      first_of[i] = i;
      scored[i] = i;
      continue;
    }
    first_of[i] = *same;
    std::size_t& kept = scored[*same];
    if (layout_gpus(r) < layout_gpus(runs[kept])) kept = i;
  }
  std::vector<std::size_t> out(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i)
    out[i] = scored[first_of[i]];
  return out;
}

Deployment deployment_of(const ServingRun& run) {
  Deployment d;
  d.tp = run.tp;
  d.pp = run.pp;
  d.attention_dp = std::max(1, run.attention_dp);
  d.gpus = d.gpus_per_replica();
  // Experts split moe_tp ways inside each of moe_ep expert groups; the estimator's ep is the
  // number of groups the experts are distributed over (methodology §5.5).
  d.ep = run.moe_ep > 1 ? run.moe_ep : 1;
  return d;
}

Precision precision_of(const ServingRun& run) {
  const std::string& q = run.gemm_quant.empty() ? run.precision : run.gemm_quant;
  Precision p;
  if (q == "nvfp4" || run.precision == "fp4") {
    p = precision_from_shorthand(NumberFormat::nvfp4);
    p.kv_cache = NumberFormat::fp8;
  } else if (q == "fp8" || q == "fp8_block" || run.precision == "fp8") {
    p = precision_from_shorthand(NumberFormat::fp8);
    p.kv_cache = NumberFormat::fp8;
  } else if (q == "int4_wo" || run.precision == "int4") {
    p = precision_from_shorthand(NumberFormat::int4_awq);
  } else {
    p = precision_from_shorthand(NumberFormat::bf16);
  }
  return p;
}

InferenceWorkload workload_of(const ServingRun& run) {
  InferenceWorkload w;
  w.input_tokens = run.input_tokens;
  w.output_tokens = run.output_tokens;
  w.concurrency = run.concurrency;
  return w;
}

bool replicas_not_given(const ServingRun& run) {
  // One replica holds at most `batch_size` requests and would queue the rest for whole request
  // lifetimes (qwen3-32b c416 b13 measured 0.72 s TTFT; one TP2 replica would queue for ~100 s).
  return run.mode == "agg" && run.attention_dp <= 1 && run.batch_size > 0 && run.batch_size < run.concurrency;
}

ServingPrediction predict_serving(const PreparedModel& model, const Gpu& gpu, const ServingRun& run,
                                  const Calibration& calibration, const EngineConfig& engine) {
  ServingPrediction out;
  const auto kind = parse_engine_kind(run.engine);
  if (!kind) {
    out.reason = "unknown engine";
    return out;
  }
  if (replicas_not_given(run)) {
    out.reason = "batch setting below the concurrency without attention DP (replicas the row does not give)";
    return out;
  }
  const InferenceWorkload w = workload_of(run);
  const Deployment dep = deployment_of(run);
  const InferenceEstimate e = estimate_inference(model, w, gpu, dep, engine, nullptr, 0.0);
  out.fits = e.memory.fits;
  out.weights_exceed_memory = e.memory.weights_bytes > e.memory.capacity_per_gpu_bytes;
  out.prefill_s = e.prefill_s;
  out.decode_step_s = e.decode_step_s;
  const std::string cls = model_class_of(model.model);
  const InferenceBands bands =
      inference_bands(calibration, gpu.id, cls, serving_reach(&calibration, gpu, model.model), e);
  out.ttft = bands.ttft;
  out.tpot = bands.tpot;
  return out;
}

ServingErrorSummary summarize_figures(const std::string& group, const std::vector<ScoredFigure>& figures) {
  ServingErrorSummary s;
  s.group = group;
  s.rows = static_cast<int>(figures.size());
  if (figures.empty()) return s;
  std::vector<double> ape;
  std::vector<double> signed_err;
  ape.reserve(figures.size());
  signed_err.reserve(figures.size());
  int within = 0;
  int covered = 0;
  for (const ScoredFigure& f : figures) {
    const double e = signed_error_pct(f.predicted, f.measured);
    signed_err.push_back(e);
    ape.push_back(std::fabs(e));
    within += std::fabs(e) <= 25.0 ? 1 : 0;
    covered += f.measured >= f.low && f.measured <= f.high ? 1 : 0;
  }
  const double n = static_cast<double>(figures.size());
  s.median_ape_pct = quantile(ape, 0.5);
  s.median_signed_pct = quantile(signed_err, 0.5);
  s.within_25_pct = 100.0 * within / n;
  s.band_coverage_pct = 100.0 * covered / n;
  return s;
}

ServingErrorSummary summarize_serving(const std::string& group, const std::vector<const ServingResult*>& rows,
                                      bool ttft) {
  std::vector<ScoredFigure> figures;
  figures.reserve(rows.size());
  for (const ServingResult* r : rows) {
    figures.push_back(ttft ? ScoredFigure{r->run->ttft_s, r->ttft_pred_s, r->ttft_low_s, r->ttft_high_s}
                           : ScoredFigure{r->run->tpot_s, r->tpot_pred_s, r->tpot_low_s, r->tpot_high_s});
  }
  return summarize_figures(group, figures);
}

RepeatSpread repeat_spread(const std::vector<const ServingRun*>& rows) {
  using Pool = std::tuple<int, int, int, int, int, int>;
  const auto pool = [](const ServingPool& p) {
    return Pool{p.tp, p.pp, p.attention_dp, p.moe_tp, p.moe_ep, p.workers};
  };
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string,
                 std::int64_t, std::int64_t, std::int64_t, std::int64_t, Pool, Pool, Pool>;
  std::map<Key, std::vector<const ServingRun*>> groups;
  for (const ServingRun* r : rows)
    groups[Key{r->engine, r->gpu_id, r->model, r->precision, r->gemm_quant, r->moe_quant, r->mode,
               r->input_tokens, r->output_tokens, r->concurrency, r->batch_size,
               Pool{r->tp, r->pp, r->attention_dp, r->moe_tp, r->moe_ep, 0}, pool(r->prefill),
               pool(r->decode)}]
        .push_back(r);
  RepeatSpread out;
  std::vector<double> ttft, tpot;
  for (const auto& [key, runs] : groups) {
    if (runs.size() < 2) continue;
    ++out.groups;
    out.rows += static_cast<int>(runs.size());
    const auto ratio = [&runs = runs](double ServingRun::*figure) {
      const auto [lo, hi] =
          std::minmax_element(runs.begin(), runs.end(), [figure](const ServingRun* a, const ServingRun* b) {
            return a->*figure < b->*figure;
          });
      return (*hi)->*figure / (*lo)->*figure;
    };
    ttft.push_back(ratio(&ServingRun::ttft_s));
    tpot.push_back(ratio(&ServingRun::tpot_s));
  }
  if (out.groups == 0) return out;
  const auto apart = [n = static_cast<double>(out.groups)](const std::vector<double>& v) {
    return 100.0 * static_cast<double>(std::count_if(v.begin(), v.end(), [](double r) { return r > 1.25; })) /
           n;
  };
  out.ttft_apart_pct = apart(ttft);
  out.tpot_apart_pct = apart(tpot);
  out.ttft_median_ratio = quantile(ttft, 0.5);
  out.tpot_median_ratio = quantile(tpot, 0.5);
  return out;
}

} // namespace rightsize
