// Validation cases scored held out: no factor or band is fitted to them (AMD's static-batch cases fit
// one value, bench/sequence_layer_fit.hpp), each predicted as the CLI predicts it (the shipped calibrated
// catalog, the engine profile the case's framework names, the GPU's bands with its reach), and tabled per GPU
// and figure kind with median abs. and signed error, within 25 % and band coverage (issue 45 item 4: the AMD
// serving cases, tests/validation/amd-serving.md).
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "app/context.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize::bench {

/// One held-out case: the profile it ran with and the prediction with its p10–p90 band.
struct HeldOutResult {
  const ValidationCase* c = nullptr;
  /// The GPU as the catalog gave it (a copy: the score outlives the catalog it was made with).
  std::string gpu_id, gpu_vendor, gpu_architecture;
  Reach gpu_reach = Reach::measured;
  EngineKind engine = EngineKind::vllm;
  Band predicted{0.0, 0.0, 0.0};
  /// An open-loop case's deployment capacity and whether the estimate calls its rate overloaded.
  double capacity_requests_per_s = 0.0;
  bool overloaded = false;
  [[nodiscard]] double signed_error_pct() const {
    return rightsize::signed_error_pct(predicted.value, c->measured);
  }
  [[nodiscard]] bool in_band() const { return c->measured >= predicted.low && c->measured <= predicted.high; }
};

struct HeldOutScore {
  std::vector<HeldOutResult> results;
  std::map<std::string, int> skipped; ///< reason → cases
};

/// The engine profile a case's framework names: SGLang, TensorRT-LLM, else vLLM's (the CLI's
/// default, which also stands in for engines without a profile, e.g. AMD's ATOM).
inline EngineKind engine_of_framework(std::string framework) {
  std::transform(framework.begin(), framework.end(), framework.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (framework.find("sglang") != std::string::npos) return EngineKind::sglang;
  if (framework.find("tensorrt") != std::string::npos) return EngineKind::trtllm;
  return EngineKind::vllm;
}

/// Every scored inference case (TTFT, TPOT, end-to-end, throughput) of `cases` predicted with
/// `loaded` (its calibration, engine profiles and GPUs with their reach).
inline HeldOutScore score_held_out(const std::vector<ValidationCase>& cases,
                                   const app::LoadedCatalog& loaded) {
  HeldOutScore out;
  for (const ValidationCase& c : cases) {
    if (!c.scored) {
      ++out.skipped["not scored (the case says why)"];
      continue;
    }
    if (c.kind != FigureKind::ttft && c.kind != FigureKind::tpot && c.kind != FigureKind::e2e &&
        c.kind != FigureKind::throughput) {
      ++out.skipped["not a serving figure"];
      continue;
    }
    if (c.kind == FigureKind::throughput && c.workload.arrival == Arrival::poisson) {
      ++out.skipped["open-loop throughput (the arrival rate, served by construction: not a prediction)"];
      continue;
    }
    const Gpu* gpu = io::find_gpu(loaded.catalog, c.gpu_id);
    if (gpu == nullptr) {
      ++out.skipped["GPU not in the catalog"];
      continue;
    }
    HeldOutResult r;
    r.c = &c;
    r.gpu_id = gpu->id;
    r.gpu_vendor = gpu->vendor;
    r.gpu_architecture = gpu->architecture;
    r.gpu_reach = gpu->reach;
    r.engine = engine_of_framework(c.framework);
    const PreparedModel pm = prepare_model(c.model, c.precision);
    const InferenceEstimate e = estimate_inference(pm, c.workload, *gpu, c.deployment,
                                                   case_engine(c, loaded.engines.of(r.engine)), nullptr, 0.0);
    const InferenceBands b =
        inference_bands(loaded.calibration, gpu->id, model_class_of(c.model), gpu->reach, e);
    r.predicted = c.kind == FigureKind::ttft   ? b.ttft
                  : c.kind == FigureKind::tpot ? b.tpot
                  : c.kind == FigureKind::e2e  ? b.e2e
                                               : b.output_tokens_per_s;
    // A percentile: the mean's band moved to it (the band is a ratio to the point estimate).
    if (c.statistic != Statistic::mean) {
      const int figure = c.kind == FigureKind::ttft ? 0 : c.kind == FigureKind::tpot ? 1 : 2;
      const double mean = latency_stat_s(e, figure, Statistic::mean);
      const double k = mean > 0.0 ? latency_stat_s(e, figure, c.statistic) / mean : 1.0;
      r.predicted = Band{r.predicted.low * k, r.predicted.value * k, r.predicted.high * k};
    }
    r.capacity_requests_per_s = e.capacity_requests_per_s;
    r.overloaded = e.overloaded;
    out.results.push_back(r);
  }
  return out;
}

/// Capacity at the rate each open-loop run served (issue 39: runs that served their rate must not be
/// called overloaded): one row per run (GPU, framework, layout, rate and lengths), its rate against
/// the capacity the estimate gives the deployment; empty when no case is open loop.
inline std::string capacity_markdown(const HeldOutScore& score) {
  std::map<std::string, const HeldOutResult*> runs;
  for (const HeldOutResult& r : score.results) {
    const ValidationCase& c = *r.c;
    if (c.workload.arrival != Arrival::poisson) continue;
    runs.try_emplace(fmt::format("{} {} {}x{} tp{} {} {}/{}", r.gpu_id, c.framework, c.deployment.gpus,
                                 c.deployment.replicas(), c.deployment.tp, c.workload.request_rate_per_s,
                                 c.workload.input_tokens, c.workload.output_tokens),
                     &r);
  }
  if (runs.empty()) return {};
  std::string s =
      "| run (its first case) | GPU | profile | GPUs | rate served (req/s) | predicted capacity (req/s) | "
      "capacity / rate | called overloaded |\n|---|---|---|---:|---:|---:|---:|---|\n";
  int overloaded = 0;
  for (const auto& [key, r] : runs) {
    const double rate = r->c->workload.request_rate_per_s;
    overloaded += r->overloaded ? 1 : 0;
    s += fmt::format("| {} | {} | {} | {} | {:.4g} | {:.4g} | {:.2f} | {} |\n", r->c->id, r->gpu_id,
                     to_string(r->engine), r->c->deployment.gpus, rate, r->capacity_requests_per_s,
                     rate > 0.0 ? r->capacity_requests_per_s / rate : 0.0, r->overloaded ? "yes" : "no");
  }
  return s + fmt::format("\n{} of {} runs that served their rate are called overloaded.\n", overloaded,
                         runs.size());
}

/// Median abs. and signed error, within 25 % and band coverage of `rows` (summarize_figures).
inline ServingErrorSummary held_out_figures(const std::vector<const HeldOutResult*>& rows) {
  std::vector<ScoredFigure> figures;
  figures.reserve(rows.size());
  for (const HeldOutResult* r : rows)
    figures.push_back({r->c->measured, r->predicted.value, r->predicted.low, r->predicted.high});
  return summarize_figures("", figures);
}

/// Rows grouped by figure kind ("" = every GPU) or by (GPU, kind).
inline std::map<std::tuple<std::string, std::string>, std::vector<const HeldOutResult*>>
held_out_groups(const HeldOutScore& score, bool per_gpu) {
  std::map<std::tuple<std::string, std::string>, std::vector<const HeldOutResult*>> groups;
  for (const HeldOutResult& r : score.results)
    groups[{per_gpu ? r.gpu_id : std::string(), to_string(r.c->kind)}].push_back(&r);
  return groups;
}

/// The tables: per kind over every GPU, per GPU (its architecture and reach) and kind, every case.
inline std::string held_out_markdown(const HeldOutScore& score) {
  std::string s = "| GPU | architecture | reach | kind | cases | median abs | median signed | within 25 % | "
                  "in band |\n|---|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const bool per_gpu : {false, true}) {
    for (const auto& [key, rows] : held_out_groups(score, per_gpu)) {
      const ServingErrorSummary f = held_out_figures(rows);
      const HeldOutResult& g = *rows.front();
      s += fmt::format("| {} | {} | {} | {} | {} | {:.1f} % | {:+.1f} % | {:.0f} % | {:.0f} % |\n",
                       per_gpu ? g.gpu_id : "all", per_gpu ? g.gpu_architecture : "",
                       per_gpu ? to_string(g.gpu_reach) : "", std::get<1>(key), f.rows, f.median_ape_pct,
                       f.median_signed_pct, f.within_25_pct, f.band_coverage_pct);
    }
  }
  for (const auto& [reason, n] : score.skipped)
    s += fmt::format("\nNot scored: {} case(s), {}.\n", n, reason);
  s += "\n| case | kind | GPU | profile | measured | predicted (p10–p90) | error |\n"
       "|---|---|---|---|---:|---:|---:|\n";
  for (const HeldOutResult& r : score.results) {
    s += fmt::format("| {} | {} | {} | {} | {:.4g} | {:.4g} ({:.4g}–{:.4g}) | {:+.1f} %{} |\n", r.c->id,
                     to_string(r.c->kind), r.gpu_id, to_string(r.engine), r.c->measured, r.predicted.value,
                     r.predicted.low, r.predicted.high, r.signed_error_pct(),
                     r.in_band() ? "" : " (out of band)");
  }
  return s;
}

} // namespace rightsize::bench
