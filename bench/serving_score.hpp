#pragma once
// Scores the measured serving runs (tests/validation/serving/serving-measurements.csv): each
// aggregated row becomes the spec and flags a user would write (preset, precision, GPU, tp/pp/ep,
// engine, closed-loop concurrency, ISL/OSL) and goes through the same estimator as `estimate`.
// Rows it cannot express are counted by reason. Used by bench/accuracy_report.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "app/context.hpp"
#include "grouped_cv.hpp"
#include "io/runs/serving_csv.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize::bench {

struct ServingScore {
  std::vector<ServingRun> runs;
  std::vector<ServingResult> results; ///< scored aggregated rows (pointers into `runs`)
  /// Scored disaggregated rows (issue 17), kept apart so the aggregated figures and the factor and
  /// band fits stay as they were.
  std::vector<ServingResult> disagg_results;
  /// Diagnostic, not a prediction: each disaggregated row without worker counts predicted at the
  /// xPyD that comes closest to its measurement (closest_workers); empty unless asked for.
  std::vector<ServingResult> disagg_closest;
  std::map<std::string, int> skipped; ///< reason -> rows
};

/// Worker counts the closest-xPyD diagnostic tries: every P ≤ k_closest_max_prefill with every
/// D ≤ k_closest_max_decode.
inline constexpr int k_closest_max_prefill = 16;
inline constexpr int k_closest_max_decode = 64;

/// The prediction of a disaggregated row without worker counts at the xPyD (P ≤ 16, D ≤ 64) whose
/// larger of |ln(predicted / measured)| over TTFT and TPOT is smallest. It answers whether any
/// worker counts reproduce the row; the counts are read off the measurement, so it is no prediction
/// and it is never scored as one (docs/accuracy.md "closest worker counts").
inline ServingPrediction closest_workers(const PreparedModel& model, const Gpu& gpu, const ServingRun& run,
                                         const Calibration& calibration, const EngineConfig& engine) {
  ServingPrediction best;
  double best_err = -1.0;
  for (int p = 1; p <= k_closest_max_prefill; ++p) {
    for (int d = 1; d <= k_closest_max_decode; ++d) {
      ServingRun tried = run;
      tried.prefill.workers = p;
      tried.decode.workers = d;
      const ServingPrediction pred = predict_serving_disagg(model, gpu, tried, calibration, engine);
      if (!pred.reason.empty() || pred.ttft.value <= 0.0 || pred.tpot.value <= 0.0) continue;
      const double err = std::max(std::abs(std::log(pred.ttft.value / run.ttft_s)),
                                  std::abs(std::log(pred.tpot.value / run.tpot_s)));
      if (best_err < 0.0 || err < best_err) {
        best_err = err;
        best = pred;
      }
    }
  }
  return best;
}

/// Presets for the measured models whose CSV `rightsize_preset` column is empty (issue 19): the
/// Hugging Face model id of the row -> the preset shipped for it. The CSV stays as measured.
inline const std::map<std::string, std::string>& presets_by_model_id() {
  static const std::map<std::string, std::string> table = {
      {"MiniMaxAI/MiniMax-M2.5", "minimax-m2.5"},
      {"Qwen/Qwen3.5-397B-A17B", "qwen3.5-397b-a17b"},
      {"moonshotai/Kimi-K2.5", "kimi-k2.5"},
      {"zhipuai/GLM-5", "glm-5"},
  };
  return table;
}

/// True when the row's preset comes from presets_by_model_id rather than the CSV.
inline bool preset_from_model_id(const ServingRun& run) {
  return presets_by_model_id().count(run.model) > 0;
}

inline std::string unexpressible_reason(const ServingRun& run, const std::vector<io::Preset>& presets,
                                        const io::Catalog& catalog) {
  if (run.mode != "agg" && run.mode != "disagg") {
    return "unknown mode";
  }
  if (run.preset.empty()) return "no preset for the model (issue 19)";
  bool found = false;
  for (const io::Preset& p : presets)
    found = found || p.id == run.preset;
  if (!found) return "preset not shipped";
  const Gpu* gpu = io::find_gpu(catalog, run.gpu_id);
  if (gpu == nullptr) return "GPU not in the catalog";
  if (!parse_engine_kind(run.engine)) return "unknown engine";
  if (run.mode == "disagg") {
    const int widest = std::max(worker_gpus(run.prefill), worker_gpus(run.decode));
    if (widest > gpu->gpus_per_node) return "disaggregated, a pool wider than one node (issue 17)";
    return "";
  }
  return "";
}

/// The serving CSV, the shipped presets and the prepared models of the rows, read once per
/// (CSV, models folder) and shared by every scoring of a report run: the refits of the grouped
/// cross-validation score the rows hundreds of times.
struct ServingInputs {
  std::vector<ServingRun> runs; ///< as the CSV gives them, presets mapped (presets_by_model_id)
  std::vector<io::Preset> presets;
  std::vector<std::size_t> scored;               ///< scored_row_of(runs)
  std::map<std::string, PreparedModel> prepared; ///< preset|weights format -> model
};

/// The key of a row's prepared model: its preset and weights format (precision_of is a function of
/// the weights format, so one key is one precision).
inline std::string prepared_key(const ServingRun& run) {
  return run.preset + "|" + std::to_string(static_cast<int>(precision_of(run).weights));
}

/// Not thread-safe: the first call per path pair reads the files.
inline const ServingInputs& serving_inputs(const std::string& csv_path, const std::string& models_dir) {
  static std::map<std::string, ServingInputs> cache;
  const std::string key = csv_path + "\n" + models_dir;
  const auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  ServingInputs in;
  in.runs = io::load_serving_csv(csv_path);
  for (ServingRun& run : in.runs) {
    auto mapped = presets_by_model_id().find(run.model);
    if (run.preset.empty() && mapped != presets_by_model_id().end()) run.preset = mapped->second;
  }
  in.presets = io::load_presets(models_dir);
  in.scored = scored_row_of(in.runs);
  for (const ServingRun& run : in.runs) {
    const std::string k = prepared_key(run);
    if (in.prepared.count(k) > 0) continue;
    for (const io::Preset& p : in.presets)
      if (p.id == run.preset) in.prepared.emplace(k, prepare_model(p.model, precision_of(run)));
  }
  return cache.emplace(key, std::move(in)).first->second;
}

/// Point predictions (TTFT and TPOT values, no bands) already made, keyed by the row, the
/// efficiency factors of its GPU and the engine profile's tag: a prediction's value depends on
/// nothing else (the calibration only sets its band), so a refit that leaves a GPU's factors alone
/// scores that GPU's rows from here. `engine_tags` names the engine profiles in use (empty = as
/// shipped); whoever changes a profile sets its tag first.
struct PointCache {
  struct Point {
    double ttft_s = 0.0, tpot_s = 0.0, prefill_s = 0.0, decode_step_s = 0.0;
  };
  using Map = std::unordered_map<std::string, Point>;
  Map points;
  std::array<std::string, k_engine_kind_count> engine_tags{};
  [[nodiscard]] std::string key(std::size_t row, const Gpu& gpu, EngineKind kind) const {
    const GpuEfficiency& e = gpu.efficiency;
    // Every efficiency a serving prediction reads, so a refit of any of them misses the cache.
    const double factors[] = {
        e.prefill_compute, e.decode_bandwidth,   e.training_mfu,   e.communication,
        e.expert_read,     e.unet_gemm_fraction, e.layer_overhead, e.decode_sequence_layer_s};
    std::string k = engine_tags[static_cast<std::size_t>(kind)] + "|" + std::to_string(row) + "|";
    for (const double f : factors)
      k += fmt::format("{:a},", f);
    return k;
  }
};

/// What `score_serving` scores and how.
struct ScoreOptions {
  double phi = -1.0;     ///< ≥ 0: every engine's wave synchrony (the --scan grid)
  double fixed_s = -1.0; ///< ≥ 0: every engine's fixed TTFT (the --scan grid)
  bool closest_workers = false;
  /// When set, only the rows it accepts (the row and its model class) are scored; the others are
  /// passed over without a count in `skipped`.
  std::function<bool(const ServingRun&, const std::string&)> only;
  /// When set, results carry point predictions only (band ends equal the value) and reuse `points`.
  PointCache* points = nullptr;
};

/// `r` with a point prediction: its band ends equal the value (ScoreOptions::points).
inline ServingResult with_point(ServingResult r, const PointCache::Point& p) {
  r.ttft_pred_s = r.ttft_low_s = r.ttft_high_s = p.ttft_s;
  r.tpot_pred_s = r.tpot_low_s = r.tpot_high_s = p.tpot_s;
  r.prefill_s = p.prefill_s;
  r.decode_step_s = p.decode_step_s;
  return r;
}

/// `r` with a prediction's values and bands.
inline ServingResult with_prediction(ServingResult r, const ServingPrediction& x) {
  r.ttft_pred_s = x.ttft.value;
  r.ttft_low_s = x.ttft.low;
  r.ttft_high_s = x.ttft.high;
  r.tpot_pred_s = x.tpot.value;
  r.tpot_low_s = x.tpot.low;
  r.tpot_high_s = x.tpot.high;
  r.prefill_s = x.prefill_s;
  r.decode_step_s = x.decode_step_s;
  return r;
}

/// Scores every row with the calibrated catalog of `loaded`; ServingResult.run points into
/// the returned runs.
inline ServingScore score_serving(const std::string& csv_path, const std::string& models_dir,
                                  const app::LoadedCatalog& loaded, const ScoreOptions& options = {}) {
  const ServingInputs& in = serving_inputs(csv_path, models_dir);
  ServingScore out;
  out.runs = in.runs;
  out.results.reserve(out.runs.size());
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    const ServingRun& run = out.runs[i];
    if (in.scored[i] != i) {
      if (!options.only)
        ++out.skipped[run.mode == "disagg"
                          ? "a repeat of another disaggregated row's measurement (scored once)"
                          : "a repeat of another row's measurement (scored once)"];
      continue;
    }
    const std::string reason = unexpressible_reason(run, in.presets, loaded.catalog);
    if (!reason.empty()) {
      if (!options.only) ++out.skipped[reason];
      continue;
    }
    const PreparedModel& model = in.prepared.at(prepared_key(run));
    const std::string model_class = model_class_of(model.model);
    if (options.only && !options.only(run, model_class)) continue;
    const Gpu& gpu = *io::find_gpu(loaded.catalog, run.gpu_id);
    const EngineKind kind = *parse_engine_kind(run.engine);
    EngineConfig engine = loaded.engines.of(kind);
    if (options.phi >= 0.0) engine.wave_synchrony = options.phi;
    if (options.fixed_s >= 0.0) engine.ttft_fixed_s = options.fixed_s;
    const bool disagg = run.mode == "disagg";
    const auto predict = [&] {
      return disagg ? predict_serving_disagg(model, gpu, run, loaded.calibration, engine)
                    : predict_serving(model, gpu, run, loaded.calibration, engine);
    };
    ServingResult r;
    r.run = &run;
    r.model_class = model_class;
    // A point already predicted: its row was expressible then, and expressibility does not depend
    // on the factors.
    PointCache* const cache = gpu.layout_efficiency.empty() ? options.points : nullptr;
    const std::string cache_key = cache != nullptr ? cache->key(i, gpu, kind) : std::string();
    const auto hit = cache != nullptr ? cache->points.find(cache_key) : PointCache::Map::iterator();
    if (cache != nullptr && hit != cache->points.end()) {
      (disagg ? out.disagg_results : out.results).push_back(with_point(r, hit->second));
      continue;
    }
    const ServingPrediction pred = predict();
    if (pred.reason.empty() && pred.weights_exceed_memory) {
      ++out.skipped["the weights alone exceed GPU memory at the published layout"];
      continue;
    }
    if (!pred.reason.empty()) {
      ++out.skipped[pred.reason];
      continue;
    }
    if (cache != nullptr) {
      const PointCache::Point point{pred.ttft.value, pred.tpot.value, pred.prefill_s, pred.decode_step_s};
      cache->points.emplace(cache_key, point);
      (disagg ? out.disagg_results : out.results).push_back(with_point(r, point));
    } else {
      (disagg ? out.disagg_results : out.results).push_back(with_prediction(r, pred));
    }
    if (disagg && options.closest_workers && run.decode.workers <= 0) {
      const ServingPrediction closest = closest_workers(model, gpu, run, loaded.calibration, engine);
      if (closest.ttft.value > 0.0) out.disagg_closest.push_back(with_prediction(r, closest));
    }
  }
  return out;
}

/// Rows grouped by a key (engine, GPU, model, precision), sorted by key; with `order`, in that order.
template <typename Key>
std::vector<std::pair<std::string, std::vector<const ServingResult*>>>
group_by(const std::vector<ServingResult>& results, Key key, const std::vector<std::string>& order = {}) {
  std::map<std::string, std::vector<const ServingResult*>> groups;
  for (const ServingResult& r : results)
    groups[key(r)].push_back(&r);
  std::vector<std::pair<std::string, std::vector<const ServingResult*>>> out;
  for (const std::string& k : order) {
    auto it = groups.find(k);
    if (it != groups.end()) out.emplace_back(it->first, std::move(it->second));
    if (it != groups.end()) groups.erase(it);
  }
  for (auto& [k, v] : groups)
    out.emplace_back(k, std::move(v));
  return out;
}

using ServingGroups = std::vector<std::pair<std::string, std::vector<const ServingResult*>>>;

/// `decimals`: of the percentages (0 in the report's older tables, 1 where gated figures are compared).
inline std::string serving_table(const std::string& title, const ServingGroups& groups, int decimals = 0) {
  std::string s = fmt::format("| {} | rows | TTFT median abs | TTFT median signed | TTFT within 25 % | TTFT "
                              "in band | TPOT median abs | TPOT median signed | TPOT within 25 % | TPOT in "
                              "band |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                              title);
  for (const auto& [name, rows] : groups) {
    const ServingErrorSummary t = summarize_serving(name, rows, true);
    const ServingErrorSummary p = summarize_serving(name, rows, false);
    const auto pct = [decimals](double v) { return fmt::format("{:.{}f} %", v, decimals); };
    const auto signed_pct = [decimals](double v) { return fmt::format("{:+.{}f} %", v, decimals); };
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", name, t.rows,
                     pct(t.median_ape_pct), signed_pct(t.median_signed_pct), pct(t.within_25_pct),
                     pct(t.band_coverage_pct), pct(p.median_ape_pct), signed_pct(p.median_signed_pct),
                     pct(p.within_25_pct), pct(p.band_coverage_pct));
  }
  return s;
}

/// Repeatability of the scored rows per group (core repeat_spread): how far apart distinct
/// measurements of identical inputs lie.
inline std::string repeat_table(const ServingGroups& groups) {
  std::string s = "| rows | scored | groups of identical inputs | rows in them | TTFT max/min, median | TTFT "
                  "groups > 25 % apart | TPOT max/min, median | TPOT groups > 25 % apart |\n"
                  "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [name, results] : groups) {
    std::vector<const ServingRun*> runs;
    runs.reserve(results.size());
    for (const ServingResult* r : results)
      runs.push_back(r->run);
    const RepeatSpread x = repeat_spread(runs);
    s += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.0f} % | {:.2f} | {:.0f} % |\n", name, runs.size(),
                     x.groups, x.rows, x.ttft_median_ratio, x.ttft_apart_pct, x.tpot_median_ratio,
                     x.tpot_apart_pct);
  }
  return s;
}

} // namespace rightsize::bench

namespace rightsize::bench {

/// TTFT and TPOT bands per GPU from the serving residuals: p10 and p90 of measured / predicted
/// over the GPU's rows within one node (rows `excluded` accepts left out), for all its rows
/// (class "") and per model class with 20 rows or more from two models or more; replaces that GPU's
/// case-based entries. Reads the point predictions only.
/// Rule "serving rows"; a class's own entry is not widened again for the class (band_for).
inline void add_serving_bands(Calibration& cal, const ServingScore& score, const RowExcluded& excluded = {}) {
  using Key = std::pair<std::string, std::string>; // GPU, model class ("" = every class)
  std::map<Key, std::vector<double>> ttft, tpot;
  std::map<Key, std::set<std::string>> models;           // a class's band needs rows of two models or more
  std::map<std::string, std::set<std::string>> measured; // GPU → the models of its rows
  for (const ServingResult& r : score.results) {
    if (excluded_row(excluded, *r.run)) continue;
    // A GPU's band describes replicas inside its 8-GPU HGX domain (every GPU of the CSV): replicas
    // across nodes are another regime, scored in the report's "layout" table with their own coverage.
    if (deployment_of(*r.run).gpus_per_replica() > 8) continue;
    for (const std::string& cls : {std::string(), r.model_class}) {
      ttft[{r.run->gpu_id, cls}].push_back(r.run->ttft_s / r.ttft_pred_s);
      tpot[{r.run->gpu_id, cls}].push_back(r.run->tpot_s / r.tpot_pred_s);
      models[{r.run->gpu_id, cls}].insert(r.run->preset);
    }
    measured[r.run->gpu_id].insert(r.run->preset);
  }
  // The models each GPU's bands rest on: another model there reaches as far as model_unmeasured.
  cal.measured_models.clear();
  for (const auto& [gpu_id, presets] : measured)
    cal.measured_models.push_back({gpu_id, {presets.begin(), presets.end()}});
  const auto put = [&cal, &models](FigureKind kind, const Key& key, const std::vector<double>& ratios) {
    if (ratios.size() < 20) return;
    if (!key.second.empty() && models[key].size() < 2) return; // one model's spread is not its class's
    BandEntry b;
    b.kind = kind;
    b.gpu_id = key.first;
    b.model_class = key.second;
    b.ratio_low = std::min(1.0, quantile(ratios, 0.10));
    b.ratio_high = std::max(1.0, quantile(ratios, 0.90));
    b.cases = static_cast<int>(ratios.size());
    b.rule = "serving rows";
    const auto order = [](const BandEntry& x, const BandEntry& y) {
      return std::tie(x.kind, x.gpu_id, x.model_class) < std::tie(y.kind, y.gpu_id, y.model_class);
    };
    auto it = std::find_if(cal.bands.begin(), cal.bands.end(), [&](const BandEntry& e) {
      return e.kind == kind && e.gpu_id == b.gpu_id && e.model_class == b.model_class;
    });
    if (it != cal.bands.end()) {
      *it = b;
    } else {
      cal.bands.insert(std::upper_bound(cal.bands.begin(), cal.bands.end(), b, order), b);
    }
  };
  for (const auto& [key, r] : ttft)
    put(FigureKind::ttft, key, r);
  for (const auto& [key, r] : tpot)
    put(FigureKind::tpot, key, r);
}

/// Per-GPU efficiency factors fitted to the serving rows (methodology §4.5): decode bandwidth from
/// the median TPOT ratio, prefill compute from the median TTFT ratio of rows at concurrency ≤ 8
/// (little queueing), two coordinate passes, clamped to the plausible ranges of FitOptions.
/// Rows `excluded` accepts are left out; `only` (empty = every GPU) names the GPUs fitted; `points`
/// (optional) reuses point predictions. Returns the catalog with the factors applied and, per GPU,
/// the number of rows used.
inline std::map<std::string, int> fit_serving_factors(app::LoadedCatalog& loaded, const std::string& csv,
                                                      const std::string& models_dir,
                                                      const RowExcluded& excluded = {},
                                                      const std::vector<std::string>& only = {},
                                                      PointCache* points = nullptr) {
  std::map<std::string, int> used;
  const FitOptions bounds;
  const auto fitted = [&only](const std::string& gpu_id) {
    return only.empty() || std::find(only.begin(), only.end(), gpu_id) != only.end();
  };
  ScoreOptions options;
  options.points = points;
  // Dense models only: their decode is a clean read of weights and KV, their prefill a plain
  // GEMM chain, so the GPU factor does not absorb MoE structure.
  options.only = [&](const ServingRun& run, const std::string& model_class) {
    return run.mode != "disagg" && model_class != "moe" && fitted(run.gpu_id) && !excluded_row(excluded, run);
  };
  for (int pass = 0; pass < 2; ++pass) {
    const ServingScore sc = score_serving(csv, models_dir, loaded, options);
    std::map<std::string, std::vector<double>> tpot_ratio, ttft_ratio;
    for (const ServingResult& r : sc.results) {
      tpot_ratio[r.run->gpu_id].push_back(r.tpot_pred_s / r.run->tpot_s);
      if (r.run->concurrency <= 8) ttft_ratio[r.run->gpu_id].push_back(r.ttft_pred_s / r.run->ttft_s);
    }
    for (Gpu& gpu : loaded.catalog.gpus) {
      if (!fitted(gpu.id)) continue;
      const auto t = tpot_ratio.find(gpu.id);
      if (t == tpot_ratio.end() || t->second.size() < 20) continue;
      used[gpu.id] = static_cast<int>(t->second.size());
      gpu.efficiency.decode_bandwidth = std::clamp(gpu.efficiency.decode_bandwidth * quantile(t->second, 0.5),
                                                   bounds.bandwidth_min, bounds.bandwidth_max);
      const auto f = ttft_ratio.find(gpu.id);
      if (f != ttft_ratio.end() && f->second.size() >= 10) {
        gpu.efficiency.prefill_compute = std::clamp(gpu.efficiency.prefill_compute * quantile(f->second, 0.5),
                                                    bounds.compute_min, bounds.compute_max);
      }
    }
  }
  return used;
}

/// What `fit_expert_reads` found for one GPU: the fraction and the MoE rows and models it came from.
struct ExpertReadFit {
  double fraction = 1.0;
  int rows = 0;
  int models = 0;
};

/// Per-GPU expert-read fraction (methodology §4.3 "expert reads"), on top of the dense factors
/// already in `loaded`: for each GPU with MoE serving rows from at least two models (20 rows or
/// more), the fraction in 0.40, 0.45, …, 1.00 whose median TPOT ratio predicted / measured over
/// those rows lies closest to 1. Rows `excluded` accepts are left out; `points` (optional) reuses
/// point predictions. Applies the fractions to `loaded` and returns them.
inline std::map<std::string, ExpertReadFit>
fit_expert_reads(app::LoadedCatalog& loaded, const std::string& csv, const std::string& models_dir,
                 const RowExcluded& excluded = {}, PointCache* points = nullptr) {
  // One scoring per candidate fraction, set on every GPU at once: each GPU's MoE rows see only
  // its own fraction.
  std::map<std::string, ExpertReadFit> best;
  std::map<std::string, double> best_distance;
  ScoreOptions options;
  options.points = points;
  options.only = [&excluded](const ServingRun& run, const std::string& model_class) {
    return run.mode != "disagg" && model_class == "moe" && !excluded_row(excluded, run);
  };
  for (int step = 0; step <= 12; ++step) {
    const double fraction = 0.40 + 0.05 * step;
    for (Gpu& gpu : loaded.catalog.gpus)
      gpu.efficiency.expert_read = fraction;
    const ServingScore sc = score_serving(csv, models_dir, loaded, options);
    std::map<std::string, std::vector<double>> ratio;
    std::map<std::string, std::set<std::string>> models;
    for (const ServingResult& r : sc.results) {
      ratio[r.run->gpu_id].push_back(r.tpot_pred_s / r.run->tpot_s);
      models[r.run->gpu_id].insert(r.run->preset);
    }
    for (auto& [id, v] : ratio) {
      if (v.size() < 20 || models[id].size() < 2) continue;
      const double distance = std::abs(std::log(quantile(v, 0.5)));
      const auto it = best_distance.find(id);
      if (it != best_distance.end() && it->second <= distance) continue;
      best_distance[id] = distance;
      best[id] = ExpertReadFit{fraction, static_cast<int>(v.size()), static_cast<int>(models[id].size())};
    }
  }
  for (Gpu& gpu : loaded.catalog.gpus) {
    const auto it = best.find(gpu.id);
    gpu.efficiency.expert_read = it != best.end() ? it->second.fraction : 1.0;
  }
  return best;
}

} // namespace rightsize::bench
