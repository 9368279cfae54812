// The accuracy report's fits and cross-validation: see cv.hpp.
#include "accuracy/cv.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app/catalog_setup.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/catalog/engines_io.hpp"
#include "io/json/json_reader.hpp"
#include "io/runs/validation_io.hpp"
#include "reach_bands.hpp"

namespace rightsize::bench::accuracy {

// The serving gates: median APE over the rows whose preset the CSV names (serving_*), over the rows
// of issue 19's models scored through the model-id table (serving_*_new) and over the
// disaggregated runs (serving_*_disagg), each gated separately so none hides another.
std::vector<ServingGate> serving_gates(const bench::ServingScore& serving) {
  std::vector<const ServingResult*> rows;
  std::vector<const ServingResult*> new_rows;
  std::vector<const ServingResult*> disagg_rows;
  for (const ServingResult& r : serving.results)
    (bench::preset_from_model_id(*r.run) ? new_rows : rows).push_back(&r);
  for (const ServingResult& r : serving.disagg_results)
    disagg_rows.push_back(&r);
  const std::vector<const ServingResult*>* sets[3] = {&rows, &new_rows, &disagg_rows};
  const char* suffixes[3] = {"", "_new", "_disagg"};
  std::vector<ServingGate> out;
  for (const bool ttft : {true, false}) {
    for (int k = 0; k < 3; ++k) {
      if (sets[k]->empty()) continue;
      const std::string key = std::string(ttft ? "serving_ttft" : "serving_tpot") + suffixes[k];
      out.push_back({key, summarize_serving(key, *sets[k], ttft).median_ape_pct, sets[k]->size()});
    }
  }
  return out;
}

const std::string k_root = RIGHTSIZE_SOURCE_DIR;
const std::string k_serving_csv = k_root + "/tests/validation/serving/serving-measurements.csv";

// The shipped catalog as the CLI loads it (the data folder and today's date read as the CLI reads them).
app::LoadedCatalog shipped_catalog(bool no_calibration) {
  app::CatalogSetup request;
  request.no_calibration = no_calibration;
  cli::LogDiagnostics diagnostics;
  return app::load_catalog(request, cli::environment(), diagnostics, nullptr);
}

const std::string k_models_dir = k_root + "/data/models";

const Ablation k_shipped{};

// The calibrated catalog as the CLI sees it under `cal` (and the ablation's engine profiles).
app::LoadedCatalog calibrated_catalog(const Calibration& cal, const Ablation& ablation) {
  app::LoadedCatalog loaded = shipped_catalog(true);
  apply_calibration(cal, loaded.catalog.gpus);
  assign_reach(cal, loaded.catalog.gpus);
  loaded.calibration = cal;
  loaded.calibrated = true;
  if (ablation.engines) loaded.engines = *ablation.engines;
  return loaded;
}

// The GPUs with no decode/prefill fit of their own in `base`: the serving rows fit theirs.
std::vector<std::string> gpus_without_case_fit(const Calibration& base) {
  std::vector<std::string> only;
  for (const Gpu& g : calibrated_catalog(base).catalog.gpus) {
    bool own = false;
    for (const FittedEfficiency& f : base.gpus)
      own = own || (f.gpu_id == g.id && f.decode_source == "fitted");
    if (!own) only.push_back(g.id);
  }
  return only;
}

// GPUs with serving rows but no decode/prefill fit of their own (`only`) get factors fitted to the
// dense serving rows (bench/serving_score.hpp); each records the rows it came from. Rows `excluded`
// accepts are left out.
void add_serving_factors(Calibration& cal, const std::vector<std::string>& only,
                         const bench::RowExcluded& excluded, const Ablation& ablation,
                         bench::PointCache* points) {
  app::LoadedCatalog loaded = calibrated_catalog(cal, ablation);
  const auto used = ablation.serving_factors ? bench::fit_serving_factors(loaded, k_serving_csv, k_models_dir,
                                                                          excluded, only, points)
                                             : std::map<std::string, int>{};
  for (const auto& [id, rows] : used) {
    const Gpu* g = io::find_gpu(loaded.catalog, id);
    auto it = std::find_if(cal.gpus.begin(), cal.gpus.end(),
                           [&gpu_id = id](const FittedEfficiency& f) { return f.gpu_id == gpu_id; });
    if (it == cal.gpus.end()) {
      FittedEfficiency f;
      f.gpu_id = id;
      it = cal.gpus.insert(std::upper_bound(cal.gpus.begin(), cal.gpus.end(), f,
                                            [](const FittedEfficiency& a, const FittedEfficiency& b) {
                                              return a.gpu_id < b.gpu_id;
                                            }),
                           f);
    }
    it->efficiency.decode_bandwidth = g->efficiency.decode_bandwidth;
    it->efficiency.prefill_compute = g->efficiency.prefill_compute;
    it->decode_source = "serving";
    it->prefill_source = "serving";
    const std::string label = fmt::format("serving-measurements.csv: {} dense-model rows on {}", rows, id);
    it->decode_cases = {label};
    it->prefill_cases = {label};
  }
  if (!ablation.expert_reads) return;
  // The expert-read fraction of every GPU with MoE rows from two models or more, on top of the
  // dense factors just fitted (methodology §4.3 "expert reads").
  for (const auto& [id, fit] :
       bench::fit_expert_reads(loaded, k_serving_csv, k_models_dir, excluded, points)) {
    const auto it = std::find_if(cal.gpus.begin(), cal.gpus.end(),
                                 [&gpu_id = id](const FittedEfficiency& f) { return f.gpu_id == gpu_id; });
    if (it == cal.gpus.end()) continue; // every GPU with serving rows has an entry by now
    it->efficiency.expert_read = fit.fraction;
    it->expert_read_source = "serving";
    it->expert_read_cases = {fmt::format("serving-measurements.csv: {} MoE-model rows ({} models) on {}",
                                         fit.rows, fit.models, id)};
  }
}

// Serving factors and bands on top of the validation-case calibration `base`, leaving the rows
// `excluded` accepts out of both; `points` (optional) reuses point predictions across refits.
Calibration serving_calibration(const Calibration& base, const bench::RowExcluded& excluded,
                                const Ablation& ablation, bench::PointCache* points) {
  Calibration cal = base;
  if (!ablation.case_factors) {
    // Every inference factor the cases fitted (per GPU and pooled) back to the catalog default, as
    // if cases.json held none; the calibration's rules apply as to any unmeasured GPU, and the
    // serving fit still covers the GPUs it covers as shipped.
    const GpuEfficiency defaults;
    for (FittedEfficiency& f : cal.gpus) {
      f.efficiency.decode_bandwidth = defaults.decode_bandwidth;
      f.efficiency.prefill_compute = defaults.prefill_compute;
      f.efficiency.communication = defaults.communication;
      f.decode_source = f.prefill_source = f.communication_source = "default";
      f.decode_cases.clear();
      f.prefill_cases.clear();
      f.communication_cases.clear();
    }
  }
  add_serving_factors(cal, gpus_without_case_fit(base), excluded, ablation, points);
  if (!ablation.serving_bands) return cal;
  bench::ScoreOptions options;
  options.points = points;
  options.only = [](const ServingRun& run, const std::string&) { return run.mode != "disagg"; };
  bench::add_serving_bands(
      cal, bench::score_serving(k_serving_csv, k_models_dir, calibrated_catalog(cal, ablation), options),
      excluded);
  return cal;
}

// The rows `held_out` accepts, predicted with the serving factors and bands fitted on `base` and
// the other rows (run pointers into `runs`): aggregated rows, and disaggregated ones when asked.
bench::ServingScore held_out_score(const Calibration& base, const bench::RowExcluded& held_out,
                                   const std::vector<ServingRun>& runs, const Ablation& ablation = k_shipped,
                                   bench::PointCache* points = nullptr, bool with_disagg = false,
                                   const std::vector<ReachBand>& reach = {}) {
  Calibration cal = serving_calibration(base, held_out, ablation, points);
  cal.reach_bands = reach;
  bench::ScoreOptions options;
  options.only = [&](const ServingRun& run, const std::string&) {
    return (with_disagg || run.mode != "disagg") && held_out(run);
  };
  const bench::ServingScore sc =
      bench::score_serving(k_serving_csv, k_models_dir, calibrated_catalog(cal, ablation), options);
  bench::ServingScore out;
  const auto rebased = [&](const std::vector<ServingResult>& from, std::vector<ServingResult>& to) {
    for (const ServingResult& r : from) {
      ServingResult copy = r;
      copy.run = &runs[static_cast<std::size_t>(r.run - sc.runs.data())];
      to.push_back(copy);
    }
  };
  rebased(sc.results, out.results);
  rebased(sc.disagg_results, out.disagg_results);
  return out;
}

// Leave-one-(model, GPU)-pair-out: each pair's rows predicted with factors and bands fitted
// without them (the engine profiles' wave synchrony and fixed TTFT stay fitted on all rows).
bench::ServingScore serving_loo(const Calibration& base, const bench::ServingScore& all,
                                bench::PointCache* points) {
  bench::ServingScore out;
  out.runs = all.runs;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<const ServingResult*> every;
  for (const ServingResult& r : all.results)
    every.push_back(&r);
  for (const ServingResult& r : all.disagg_results)
    every.push_back(&r);
  for (const ServingResult* rp : every) {
    const ServingResult& r = *rp;
    const std::pair<std::string, std::string> p{r.run->preset, r.run->gpu_id};
    if (std::find(pairs.begin(), pairs.end(), p) == pairs.end()) pairs.push_back(p);
  }
  for (const auto& [preset, gpu] : pairs) {
    const bench::RowExcluded pair = [&p = preset, &g = gpu](const ServingRun& run) {
      return run.preset == p && run.gpu_id == g;
    };
    // Disaggregated rows of the same pair, under the same left-out factors.
    bench::ServingScore sc = held_out_score(base, pair, out.runs, k_shipped, points, true);
    std::move(sc.results.begin(), sc.results.end(), std::back_inserter(out.results));
    std::move(sc.disagg_results.begin(), sc.disagg_results.end(), std::back_inserter(out.disagg_results));
  }
  return out;
}

bench::ServingScore score_serving_runs(const Calibration& cal, bool with_closest_workers) {
  bench::ScoreOptions options;
  options.closest_workers = with_closest_workers;
  return bench::score_serving(k_serving_csv, k_models_dir, calibrated_catalog(cal), options);
}

// ---- Grouped cross-validation (issue 37, docs/accuracy.md "Grouped cross-validation") ----

// The grouped cross-validation of the aggregated rows of `serving` under `ablation`, for the
// groupings whose suffix is in `suffixes` (empty = all): every fold refits the case calibration
// (without the cases that copy its rows), the serving factors, the expert reads and the bands
// without the held-out group. The engine profiles stay as given (their fitted values are fixed).
namespace {

// A grouping scored again, each fold's held-out rows now banded with the reach bands `bands_for`
// gives its key (never from its own rows): the band coverage the held-out group gets as shipped.
// The point predictions are the first pass's (the bands do not move them).
template <typename BandsFor>
std::vector<ServingResult> with_fold_bands(CaseFits& fits, const bench::ServingScore& serving,
                                           const GroupedSet& first, const Ablation& ablation,
                                           bench::PointCache& points, BandsFor&& bands_for) {
  return bench::grouped_results(serving.results, first.grouping,
                                [&](const std::string& key, const bench::RowExcluded& held_out) {
                                  return held_out_score(fits.without(held_out), held_out, serving.runs,
                                                        ablation, &points, false, bands_for(key))
                                      .results;
                                });
}

} // namespace

std::vector<GroupedSet> grouped_cv(CaseFits& fits, const bench::ServingScore& serving,
                                   const Ablation& ablation, bench::PointCache& points,
                                   const std::vector<std::string>& suffixes) {
  for (std::size_t k = 0; k < k_engine_kind_count; ++k)
    points.engine_tags[k] = ablation.touches[k] ? ablation.name : std::string();
  std::vector<GroupedSet> out;
  for (const bench::CvGrouping& g : bench::cv_groupings()) {
    if (!suffixes.empty() && std::find(suffixes.begin(), suffixes.end(), g.suffix) == suffixes.end())
      continue;
    out.push_back({g, bench::grouped_results(serving.results, g,
                                             [&](const std::string&, const bench::RowExcluded& held_out) {
                                               return held_out_score(fits.without(held_out), held_out,
                                                                     serving.runs, ablation, &points)
                                                   .results;
                                             })});
    if (!ablation.reach_bands) continue;
    const GroupedSet& first = out.back();
    if (g.suffix == "lomo") {
      // A held-out model: the model_unmeasured band of the other models' residuals.
      out.back().results =
          with_fold_bands(fits, serving, first, ablation, points, [&](const std::string& model) {
            return bench::model_reach_bands_from(first.results, model);
          });
    } else if (g.suffix == "logo") {
      // A held-out GPU: the GPU reach bands of the other GPUs' residuals, the model_unmeasured band
      // (from the leave-one-model-out rows of the other GPUs, when that grouping ran) nested inside.
      const auto lomo = std::find_if(out.begin(), out.end(),
                                     [](const GroupedSet& s) { return s.grouping.suffix == "lomo"; });
      const std::vector<Gpu> gpus = shipped_catalog(true).catalog.gpus;
      out.back().results =
          with_fold_bands(fits, serving, first, ablation, points, [&](const std::string& gpu_id) {
            const std::vector<ReachBand> model =
                lomo == out.end() ? std::vector<ReachBand>{}
                                  : bench::model_reach_bands_from(lomo->results, "", gpu_id);
            return bench::sorted_reach_bands(model, bench::reach_bands_from(first.results, gpus, gpu_id));
          });
    }
  }
  return out;
}

// The serving gates of the grouped figures: median abs. error and band coverage of TTFT and TPOT
// per grouping (serving_ttft_lomo, serving_tpot_logo, ...).
std::vector<ServingGate> grouped_gates(const std::vector<GroupedSet>& sets) {
  std::vector<ServingGate> out;
  for (const GroupedSet& s : sets) {
    std::vector<const ServingResult*> rows;
    for (const ServingResult& r : s.results)
      rows.push_back(&r);
    for (const bool ttft : {true, false}) {
      const std::string key = std::string(ttft ? "serving_ttft_" : "serving_tpot_") + s.grouping.suffix;
      const ServingErrorSummary f = summarize_serving(key, rows, ttft);
      out.push_back({key, f.median_ape_pct, rows.size(), f.band_coverage_pct});
    }
  }
  return out;
}

// The fitted values of data/engines.json (basis "fitted"), each set to its neutral value in its own
// ablation: 0 for the per-layer, per-expert and indexer times and the fixed TTFT; 0 for the wave
// synchrony, the closed loop as the exact MVA of the prefill queue alone (methodology §4.4), no
// wave term. The file is read, changed in memory and parsed by the loader the CLI uses.
std::vector<Ablation> engine_ablations() {
  const std::string path = k_root + "/data/engines.json";
  const nlohmann::json doc = io::read_json_file(path);
  std::vector<Ablation> out;
  const auto change_text = [](const std::string& key, double value) {
    if (key == "wave_synchrony") return fmt::format("{:g} → 0", value);
    if (value >= 1e-3) return fmt::format("{:g} ms → 0", value * 1e3);
    return fmt::format("{:g} µs → 0", value * 1e6);
  };
  const auto add = [&](const std::string& name, const std::string& key,
                       const nlohmann::json::json_pointer& at, std::optional<EngineKind> kind) {
    const double value = doc.at(at / "value").get<double>();
    nlohmann::json changed = doc;
    changed.at(at / "value") = 0.0;
    Ablation a;
    a.name = name;
    a.change = change_text(key, value);
    if (value != 0.0) a.engines = io::parse_engines(changed, path);
    for (std::size_t k = 0; k < k_engine_kind_count; ++k)
      a.touches[k] = !kind || static_cast<std::size_t>(*kind) == k;
    out.push_back(std::move(a));
  };
  for (const auto& [key, field] : doc.at("common").items())
    if (field.at("basis") == "fitted")
      add("common." + key, key, nlohmann::json::json_pointer("/common/" + key), {});
  for (const auto& [engine, entry] : doc.at("engines").items())
    for (const auto& [key, field] : entry.at("fields").items())
      if (field.at("basis") == "fitted")
        add(fmt::format("{}.{}", engine, key), key,
            nlohmann::json::json_pointer(fmt::format("/engines/{}/fields/{}", engine, key)),
            parse_engine_kind(engine));
  return out;
}

// The fitted calibration components, each turned off in its own ablation.
std::vector<Ablation> component_ablations() {
  std::vector<Ablation> out(5);
  out[0].name = "serving factors";
  out[0].change =
      "η_m, η_f of the GPUs without a case fit (B200, H200) from their dense rows → the case fit's";
  out[0].serving_factors = false;
  out[1].name = "expert reads";
  out[1].change = "per-GPU expert-read fraction from the MoE rows → 1 (the dense rate)";
  out[1].expert_reads = false;
  out[2].name = "serving bands";
  out[2].change = "p10–p90 of the rows' residuals per GPU and class → the case bands";
  out[2].serving_bands = false;
  out[3].name = "case factors";
  out[3].change = "η_m, η_f, η_l fitted to tests/validation/cases.json (per GPU and pooled) → the catalog's "
                  "defaults 0.80, 0.60, 0.75";
  out[3].case_factors = false;
  out[4].name = "reach bands";
  out[4].change = "a held-out GPU's TTFT/TPOT band from the other held-out GPUs' residuals → its case band";
  out[4].reach_bands = false;
  return out;
}

Calibration shipped_calibration() {
  return io::load_calibration(k_root + "/data/calibration.json");
}

} // namespace rightsize::bench::accuracy
