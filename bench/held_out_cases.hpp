// Validation cases scored held out: no factor or band is fitted to them (AMD's static-batch cases fit
// one value, bench/sequence_layer_fit.hpp), each predicted as the CLI predicts it (the shipped calibrated
// catalog, the engine profile the case's framework names, the GPU's bands with its reach), and tabled per GPU
// and figure kind with median abs. and signed error, within 25 % and band coverage (issue 45 item 4: the AMD
// serving cases, tests/validation/amd-serving.md).
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
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
  /// Served at the point, overloaded at the band's slow end (the band's high end unbounded).
  bool overloaded_at_band = false;
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
    const EngineConfig engine = case_engine(c, loaded.engines.of(r.engine));
    const InferenceEstimate e = estimate_inference(pm, c.workload, *gpu, c.deployment, engine, nullptr, 0.0);
    InferenceBands b = inference_bands(loaded.calibration, gpu->id, model_class_of(c.model), gpu->reach, e);
    // An open loop's band reaches through the queue to its slow end (methodology §3.5), as judged.
    const BandFactors ratios = high_ratios(b, e);
    const auto slow = slow_end_estimate(e, pm, c.workload, *gpu, c.deployment, engine, ratios.tpot_high);
    const InferenceEstimate* slow_end = slow ? &*slow : nullptr;
    band_through_queue(b, e, slow_end);
    r.predicted = c.kind == FigureKind::ttft   ? b.ttft
                  : c.kind == FigureKind::tpot ? b.tpot
                  : c.kind == FigureKind::e2e  ? b.e2e
                                               : b.output_tokens_per_s;
    // A percentile: the mean's band moved to it (the band is a ratio to the point estimate).
    if (c.statistic != Statistic::mean) {
      const int figure = c.kind == FigureKind::ttft ? 0 : c.kind == FigureKind::tpot ? 1 : 2;
      const double mean = latency_stat_s(e, figure, Statistic::mean);
      const double k = mean > 0.0 ? latency_stat_s(e, figure, c.statistic) / mean : 1.0;
      double high = r.predicted.high * k;
      if (slow_end != nullptr) {
        // The slow end's own percentile × the band ratio (latency_at_band_s), unbounded if overloaded.
        high = slow_end->overloaded && figure != 1
                   ? std::numeric_limits<double>::infinity()
                   : std::max(high, latency_at_band_s(*slow_end, nullptr, figure, c.statistic, ratios));
      }
      r.predicted = Band{r.predicted.low * k, r.predicted.value * k, high};
    }
    r.overloaded_at_band = slow_end != nullptr && slow_end->overloaded;
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

/// The open-loop cases per figure and statistic, with issue 39's held-out targets (median abs.:
/// TTFT mean 30 %, TTFT p99 35 %, TPOT mean 20 %, TPOT p99 25 %) where it sets one.
inline std::string statistic_markdown(const HeldOutScore& score) {
  std::map<std::pair<int, int>, std::vector<const HeldOutResult*>> groups;
  for (const HeldOutResult& r : score.results)
    groups[{static_cast<int>(r.c->kind), static_cast<int>(r.c->statistic)}].push_back(&r);
  std::string s = "| kind | statistic | cases | median abs | median signed | within 25 % | in band | target "
                  "(median abs.) |\n|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& [key, rows] : groups) {
    const ValidationCase& c = *rows.front()->c;
    const ServingErrorSummary f = held_out_figures(rows);
    double target = 0.0;
    if (c.kind == FigureKind::ttft && c.statistic == Statistic::mean) target = 30.0;
    if (c.kind == FigureKind::ttft && c.statistic == Statistic::p99) target = 35.0;
    if (c.kind == FigureKind::tpot && c.statistic == Statistic::mean) target = 20.0;
    if (c.kind == FigureKind::tpot && c.statistic == Statistic::p99) target = 25.0;
    const std::string met = target <= 0.0                ? std::string("-")
                            : f.median_ape_pct <= target ? fmt::format("≤ {:.0f} %: met", target)
                                                         : fmt::format("≤ {:.0f} %: **not met**", target);
    s += fmt::format("| {} | {} | {} | {:.1f} % | {:+.1f} % | {:.0f} % | {:.0f} % | {} |\n",
                     to_string(c.kind), to_string(c.statistic), f.rows, f.median_ape_pct, f.median_signed_pct,
                     f.within_25_pct, f.band_coverage_pct, met);
  }
  return s;
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
  // An open loop overloaded at its band's slow end has no upper bound (methodology §3.5): its case is
  // in band by that alone, so the count says how many are.
  std::size_t unbounded = 0;
  std::size_t finite_in_band = 0;
  for (const HeldOutResult& r : score.results) {
    if (!std::isfinite(r.predicted.high))
      ++unbounded;
    else if (r.in_band())
      ++finite_in_band;
  }
  if (unbounded > 0)
    s += fmt::format(
        "\nBand's high end unbounded (overloaded at the band's slow end, methodology §3.5): {} of "
        "{} cases, each in band by that alone; {} of the other {} in band.\n",
        unbounded, score.results.size(), finite_in_band, score.results.size() - unbounded);
  s += "\n| case | kind | GPU | profile | measured | predicted (p10–p90) | error |\n"
       "|---|---|---|---|---:|---:|---:|\n";
  for (const HeldOutResult& r : score.results) {
    const std::string high =
        std::isfinite(r.predicted.high) ? fmt::format("{:.4g}", r.predicted.high) : std::string("unbounded");
    s += fmt::format("| {} | {} | {} | {} | {:.4g} | {:.4g} ({:.4g}–{}) | {:+.1f} %{} |\n", r.c->id,
                     to_string(r.c->kind), r.gpu_id, to_string(r.engine), r.c->measured, r.predicted.value,
                     r.predicted.low, high, r.signed_error_pct(), r.in_band() ? "" : " (out of band)");
  }
  return s;
}

} // namespace rightsize::bench
