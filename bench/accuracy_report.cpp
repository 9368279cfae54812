// Accuracy report: runs every validation case through the estimator with default, fitted and
// leave-one-out factors; prints per-case and per-kind errors; writes docs/accuracy.md and
// data/calibration.json. `--check BASELINE` only compares median LOO APE per kind with a baseline
// (fails when a kind regresses by more than 2 points) and writes nothing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalog_io.hpp"
#include "json_reader.hpp"
#include "rightsize/calibration.hpp"
#include "serving_score.hpp"
#include "validation_io.hpp"

namespace {

using namespace rightsize;

constexpr double k_allowed_regression_points = 2.0;
const std::string k_root = RIGHTSIZE_SOURCE_DIR;

struct Targets {
  const char* kind;
  double median_ape_pct;
};
// Issue 9 targets (median APE).
constexpr Targets k_targets[] = {{"throughput", 15.0},
                                 {"ttft", 25.0},
                                 {"tpot", 25.0},
                                 {"e2e", 25.0},
                                 {"training_throughput", 10.0},
                                 {"memory", 5.0},
                                 {"training_memory", 10.0},
                                 {"image_latency", 25.0}};

double target_for(const std::string& kind) {
  for (const Targets& t : k_targets) {
    if (kind == t.kind) return t.median_ape_pct;
  }
  return 0.0;
}

std::string case_table(const std::vector<CaseResult>& results) {
  std::string s = "| case | kind | GPU | measured | default | fitted | LOO | error (fitted) | error (LOO) |\n"
                  "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const CaseResult& r : results) {
    s +=
        fmt::format("| {}{} | {} | {} | {:.4g} | {:.4g} | {:.4g} | {:.4g} | {:+.1f} % | {:+.1f} % |\n", r.id,
                    r.scored ? "" : " (not scored)", to_string(r.kind), r.gpu_id, r.measured,
                    r.predicted_default, r.predicted, r.predicted_loo,
                    signed_error_pct(r.predicted, r.measured), signed_error_pct(r.predicted_loo, r.measured));
  }
  return s;
}

std::string summary_table(const std::vector<ErrorSummary>& rows, bool with_target) {
  std::string s =
      with_target
          ? "| kind | cases | median APE default | median APE fitted | mean APE fitted | median APE LOO | "
            "mean APE LOO | target (median) | met (LOO) |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n"
          : "| kind/GPU | cases | median APE default | median APE fitted | mean APE fitted | median APE LOO "
            "| "
            "mean APE LOO |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const ErrorSummary& e : rows) {
    s += fmt::format("| {} | {} | {:.1f} % | {:.1f} % | {:.1f} % | {:.1f} % | {:.1f} %", e.group, e.cases,
                     e.median_ape_default_pct, e.median_ape_pct, e.mean_ape_pct, e.median_ape_loo_pct,
                     e.mean_ape_loo_pct);
    if (with_target) {
      const double t = target_for(e.group);
      s += fmt::format(" | ≤ {:.0f} % | {}", t, e.median_ape_loo_pct <= t ? "yes" : "no");
    }
    s += " |\n";
  }
  return s;
}

std::string factor_table(const Calibration& cal) {
  std::string s = "| GPU | decode_bandwidth | prefill_compute | training_mfu | communication | cases (decode "
                  "/ prefill / training / comm) |\n"
                  "|---|---|---|---|---|---|\n";
  for (const FittedEfficiency& f : cal.gpus) {
    s += fmt::format("| {} | {:.3f} ({}) | {:.3f} ({}) | {:.3f} ({}) | {:.3f} ({}) | {} / {} / {} / {} |\n",
                     f.gpu_id, f.efficiency.decode_bandwidth, f.decode_source, f.efficiency.prefill_compute,
                     f.prefill_source, f.efficiency.training_mfu, f.training_source,
                     f.efficiency.communication, f.communication_source, f.decode_cases.size(),
                     f.prefill_cases.size(), f.training_cases.size(), f.communication_cases.size());
  }
  // One UNet rate for every GPU, a fraction of each GPU's η_f (methodology §3.7 "UNet rate").
  if (!cal.gpus.empty() && !cal.gpus.front().unet_cases.empty()) {
    const FittedEfficiency& pooled = cal.gpus.front();
    s += fmt::format("\nUNet convolutions and linear layers (`unet_gemm_fraction`, every GPU): {:.3f} × the "
                     "GPU's prefill_compute, fitted to {} UNet image cases: {}.\n",
                     pooled.efficiency.unet_gemm_fraction, pooled.unet_cases.size(),
                     fmt::join(pooled.unet_cases, ", "));
  }
  return s;
}

std::string band_table(const Calibration& cal) {
  std::string s = "| kind | GPU | ratio low (p10) | ratio high (p90) | LOO cases | rule "
                  "|\n|---|---|---:|---:|---:|---|\n";
  for (const BandEntry& b : cal.bands) {
    // Image latency is banded per image class: "image_latency (image-unet)".
    const std::string kind =
        b.model_class.empty() ? to_string(b.kind) : fmt::format("{} ({})", to_string(b.kind), b.model_class);
    s += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} |\n", kind, b.gpu_id, b.ratio_low, b.ratio_high,
                     b.cases, b.rule);
  }
  return s;
}

std::string report_markdown(const std::vector<CaseResult>& results, const Calibration& cal,
                            const std::string& method, const std::string& discussion) {
  std::string md =
      "# Accuracy of rightsize against published measurements\n\n"
      "Generated by `bench/accuracy_report` from `tests/validation/cases.json`; do not edit by hand "
      "(the method and discussion come from `tests/validation/method.md` and `discussion.md`).\n"
      "No GPU was available to this project: every measured value is a published one, cited per case in "
      "`tests/validation/cases.json`.\n\n";
  md += "## Summary per figure kind\n\n" + summary_table(summarize(results, false), true) + "\n";
  md += discussion + "\n";
  md += "## Fitted efficiency factors\n\n" + factor_table(cal) + "\n";
  md += "## Error bands (ratio measured / predicted)\n\n" + band_table(cal) + "\n";
  md += "## Per kind and GPU\n\n" + summary_table(summarize(results, true), false) + "\n";
  md +=
      "## Every case\n\nUnits: tokens/s (whole deployment), seconds, bytes.\n\n" + case_table(results) + "\n";
  md += method;
  return md;
}

bench::ServingScore score_serving_runs(const Calibration& cal);
Calibration shipped_calibration();

struct ServingGate {
  std::string key;
  double median_ape_pct = 0.0;
  std::size_t rows = 0;
};

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

int check(const std::vector<CaseResult>& results, const std::string& baseline_path) {
  const io::AccuracyBaseline baseline = io::load_baseline(baseline_path);
  int failures = 0;
  for (const ErrorSummary& e : summarize(results, false)) {
    const auto it = baseline.find(e.group);
    if (it == baseline.end()) continue;
    const bool bad = e.median_ape_loo_pct > it->second + k_allowed_regression_points;
    std::printf("%-20s median APE (LOO) %6.2f %%  baseline %6.2f %%  %s\n", e.group.c_str(),
                e.median_ape_loo_pct, it->second, bad ? "REGRESSED" : "ok");
    failures += bad ? 1 : 0;
  }
  // The measured serving runs, scored with the shipped calibration (serving_gates).
  for (const ServingGate& g : serving_gates(score_serving_runs(shipped_calibration()))) {
    const auto it = baseline.find(g.key);
    if (it == baseline.end()) continue;
    const bool bad = g.median_ape_pct > it->second + k_allowed_regression_points;
    std::printf("%-20s median APE        %6.2f %%  baseline %6.2f %%  %s (%zu rows)\n", g.key.c_str(),
                g.median_ape_pct, it->second, bad ? "REGRESSED" : "ok", g.rows);
    failures += bad ? 1 : 0;
  }
  return failures == 0 ? 0 : 1;
}

// The measured serving runs (tests/validation/serving): tables overall and per engine, GPU, model,
// precision and concurrency bucket, and the rows that cannot be expressed, by reason.
std::string serving_markdown(const bench::ServingScore& score) {
  using R = const ServingResult&;
  std::string md =
      bench::serving_table("set", bench::group_by(score.results, [](R) { return std::string("all"); }));
  md += "\n" +
        bench::serving_table("engine", bench::group_by(score.results, [](R r) { return r.run->engine; }));
  md += "\n" + bench::serving_table("GPU", bench::group_by(score.results, [](R r) { return r.run->gpu_id; }));
  md +=
      "\n" + bench::serving_table("model", bench::group_by(score.results, [](R r) { return r.run->preset; }));
  md +=
      "\n" + bench::serving_table("precision", bench::group_by(score.results, [](R r) {
                                    return r.run->precision.empty() ? std::string("bf16") : r.run->precision;
                                  }));
  md += "\n" + bench::serving_table(
                   "concurrency",
                   bench::group_by(score.results,
                                   [](R r) { return std::string(concurrency_bucket(r.run->concurrency)); },
                                   {"1", "2-8", "9-32", "33-128", ">128"}));
  // Layout family (issue 17): one scale-up domain with TP/EP, attention DP, replicas across nodes.
  md += "\n" + bench::serving_table("layout", bench::group_by(score.results, [](R r) {
                                      if (r.run->layout_multiplied)
                                        return std::string(r.run->attention_dp > 1
                                                               ? "attention DP + EP, written multiplied"
                                                               : "TP + EP in one node, written multiplied");
                                      if (r.run->attention_dp > 1) return std::string("attention DP + EP");
                                      const int gpus = r.run->tp * r.run->pp;
                                      return std::string(gpus > 8 ? "multi-node TP/PP (> 8 GPUs)"
                                                                  : "TP/PP/EP in one node");
                                    }));
  if (!score.disagg_results.empty()) {
    // Disaggregated prefill/decode runs (issue 17, methodology §3.6), scored apart from the rest.
    md += "\n" + bench::serving_table("disagg", bench::group_by(score.disagg_results, [](R r) {
                                        return std::string(r.run->decode.workers > 0 ? "workers given"
                                                                                     : "workers not given");
                                      }));
    md += bench::serving_table("disagg",
                               bench::group_by(score.disagg_results, [](R) { return std::string("all"); }))
              .substr(bench::serving_table("disagg", {}).size());
    md += "\n" + bench::serving_table("disagg engine", bench::group_by(score.disagg_results, [](R r) {
                                        return r.run->engine + " " + r.run->gpu_id + " " + r.run->preset +
                                               " " + r.run->precision;
                                      }));
    md += "\n" + bench::serving_table("disagg ISL", bench::group_by(score.disagg_results, [](R r) {
                                        return std::to_string(r.run->input_tokens);
                                      }));
    md += "\n" + bench::serving_table(
                     "disagg concurrency",
                     bench::group_by(score.disagg_results,
                                     [](R r) { return std::string(concurrency_bucket(r.run->concurrency)); },
                                     {"1", "2-8", "9-32", "33-128", ">128"}));
  }
  // Identical inputs, different measurements (docs/accuracy.md "Repeatability").
  bench::ServingGroups repeats = bench::group_by(score.results, [](R) { return std::string("aggregated"); });
  for (auto& g : bench::group_by(score.disagg_results, [](R r) {
         return std::string(r.run->decode.workers > 0 ? "disaggregated, workers given"
                                                      : "disaggregated, workers not given");
       }))
    repeats.push_back(std::move(g));
  md += "\n" + bench::repeat_table(repeats);
  int skipped = 0;
  for (const auto& [reason, n] : score.skipped)
    skipped += n;
  md += fmt::format(
      "\nRows scored: {} of {} ({} aggregated, {} disaggregated); not expressible: {}\n\n| reason "
      "| rows |\n|---|---:|\n",
      score.results.size() + score.disagg_results.size(), score.runs.size(), score.results.size(),
      score.disagg_results.size(), skipped);
  for (const auto& [reason, n] : score.skipped)
    md += fmt::format("| {} | {} |\n", reason, n);
  return md;
}

const std::string k_serving_csv = k_root + "/tests/validation/serving/serving-measurements.csv";

// The calibrated catalog as the CLI sees it under `cal`.
cli::LoadedCatalog calibrated_catalog(const Calibration& cal) {
  cli::CatalogOptions options;
  options.no_calibration = true;
  cli::LoadedCatalog loaded = cli::load_catalog(options, nullptr);
  apply_calibration(cal, loaded.catalog.gpus);
  loaded.calibration = cal;
  loaded.calibrated = true;
  return loaded;
}

// GPUs with serving rows but no decode/prefill fit of their own get factors fitted to the dense
// serving rows (bench/serving_score.hpp); each records the rows it came from.
void add_serving_factors(Calibration& cal, const std::string& exclude_preset = "",
                         const std::string& exclude_gpu = "") {
  cli::LoadedCatalog loaded = calibrated_catalog(cal);
  std::vector<std::string> only;
  for (const Gpu& g : loaded.catalog.gpus) {
    bool own = false;
    for (const FittedEfficiency& f : cal.gpus)
      own = own || (f.gpu_id == g.id && f.decode_source == "fitted");
    if (!own) only.push_back(g.id);
  }
  const auto used = bench::fit_serving_factors(loaded, k_serving_csv, k_root + "/data/models", exclude_preset,
                                               exclude_gpu, only);
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
}

// Serving factors and bands on top of the validation-case calibration `base`, optionally leaving
// one (model, GPU) pair out of both.
Calibration serving_calibration(const Calibration& base, const std::string& exclude_preset = "",
                                const std::string& exclude_gpu = "") {
  Calibration cal = base;
  add_serving_factors(cal, exclude_preset, exclude_gpu);
  const bench::ServingScore sc =
      bench::score_serving(k_serving_csv, k_root + "/data/models", calibrated_catalog(cal));
  bench::add_serving_bands(cal, sc, exclude_preset, exclude_gpu);
  return cal;
}

// Leave-one-(model, GPU)-pair-out: each pair's rows predicted with factors and bands fitted
// without them (the engine profiles' wave synchrony and fixed TTFT stay fitted on all rows).
bench::ServingScore serving_loo(const Calibration& base, const bench::ServingScore& all) {
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
    const Calibration cal = serving_calibration(base, preset, gpu);
    const bench::ServingScore sc =
        bench::score_serving(k_serving_csv, k_root + "/data/models", calibrated_catalog(cal));
    for (const ServingResult& r : sc.results) {
      if (r.run->preset != preset || r.run->gpu_id != gpu) continue;
      ServingResult copy = r;
      copy.run = &out.runs[static_cast<std::size_t>(r.run - sc.runs.data())];
      out.results.push_back(copy);
    }
    // Disaggregated rows of the same pair, under the same left-out factors.
    for (const ServingResult& r : sc.disagg_results) {
      if (r.run->preset != preset || r.run->gpu_id != gpu) continue;
      ServingResult copy = r;
      copy.run = &out.runs[static_cast<std::size_t>(r.run - sc.runs.data())];
      out.disagg_results.push_back(copy);
    }
  }
  return out;
}

bench::ServingScore score_serving_runs(const Calibration& cal) {
  return bench::score_serving(k_serving_csv, k_root + "/data/models", calibrated_catalog(cal));
}

Calibration shipped_calibration() {
  return io::load_calibration(k_root + "/data/calibration.json");
}

int run(const std::vector<std::string>& args) {
  if (args.size() == 1 && args[0] == "--serving") {
    std::fputs(serving_markdown(score_serving_runs(shipped_calibration())).c_str(), stdout);
    return 0;
  }
  if (args.size() == 1 && args[0] == "--scan") {
    const cli::LoadedCatalog loaded = cli::load_catalog(cli::CatalogOptions{}, nullptr);
    for (double fixed : {0.0, 0.02, 0.05, 0.1}) {
      for (double phi = 0.0; phi <= 1.001; phi += 0.1) {
        const bench::ServingScore sc =
            bench::score_serving(k_root + "/tests/validation/serving/serving-measurements.csv",
                                 k_root + "/data/models", loaded, phi, fixed);
        for (const char* eng : {"sglang", "trtllm", "vllm"}) {
          std::vector<const ServingResult*> rows;
          for (const ServingResult& r : sc.results)
            if (r.run->engine == eng) rows.push_back(&r);
          const ServingErrorSummary t = summarize_serving(eng, rows, true);
          std::printf("fixed %.2f phi %.1f %-7s ttft abs %5.1f signed %+6.1f within %4.1f\n", fixed, phi, eng,
                      t.median_ape_pct, t.median_signed_pct, t.within_25_pct);
        }
      }
    }
    return 0;
  }
  if (args.size() == 1 && args[0] == "--disagg-rows") {
    // One line per scored disaggregated row, for residual analysis.
    const bench::ServingScore score = score_serving_runs(shipped_calibration());
    std::puts(
        "id,engine,gpu,model,precision,isl,osl,concurrency,p_tp,p_ep,p_workers,d_tp,d_ep,d_workers,ttft_s,"
        "ttft_pred_s,tpot_s,tpot_pred_s,prefill_s,decode_s");
    for (const ServingResult& r : score.disagg_results) {
      const ServingRun& u = *r.run;
      std::printf("%s,%s,%s,%s,%s,%lld,%lld,%lld,%d,%d,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                  u.id.c_str(), u.engine.c_str(), u.gpu_id.c_str(), u.preset.c_str(), u.precision.c_str(),
                  static_cast<long long>(u.input_tokens), static_cast<long long>(u.output_tokens),
                  static_cast<long long>(u.concurrency), u.prefill.tp, u.prefill.moe_ep, u.prefill.workers,
                  u.decode.tp, u.decode.moe_ep, u.decode.workers, u.ttft_s, r.ttft_pred_s, u.tpot_s,
                  r.tpot_pred_s, r.prefill_s, r.decode_step_s);
    }
    return 0;
  }
  if (args.size() == 1 && args[0] == "--serving-rows") {
    // One line per scored row, for residual analysis.
    const bench::ServingScore score = score_serving_runs(shipped_calibration());
    std::puts("id,engine,gpu,model,precision,isl,osl,concurrency,tp,pp,ep,ttft_s,ttft_pred_s,tpot_s,tpot_"
              "pred_s,prefill_s,decode_s");
    for (const ServingResult& r : score.results) {
      const ServingRun& u = *r.run;
      std::printf("%s,%s,%s,%s,%s,%lld,%lld,%lld,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", u.id.c_str(),
                  u.engine.c_str(), u.gpu_id.c_str(), u.preset.c_str(), u.precision.c_str(),
                  static_cast<long long>(u.input_tokens), static_cast<long long>(u.output_tokens),
                  static_cast<long long>(u.concurrency), u.tp, u.pp, u.moe_ep, u.ttft_s, r.ttft_pred_s,
                  u.tpot_s, r.tpot_pred_s, r.prefill_s, r.decode_step_s);
    }
    return 0;
  }
  std::string baseline;
  bool write_baseline = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--check" && i + 1 < args.size()) {
      baseline = args[++i];
    } else if (args[i] == "--write-baseline") {
      write_baseline = true;
    } else {
      std::fprintf(stderr, "usage: accuracy_report [--check BASELINE.json] [--write-baseline]\n");
      return 2;
    }
  }
  const std::vector<ValidationCase> cases =
      io::load_validation_cases(k_root + "/tests/validation/cases.json");
  const std::vector<Gpu> gpus = io::load_catalog(k_root + "/data/gpus.json").gpus;
  const EngineConfig engine;
  const FitOptions options;
  const std::vector<CaseResult> results = evaluate_cases(cases, gpus, engine, options);
  if (!baseline.empty()) return check(results, baseline);

  const Calibration base = build_calibration(fit_efficiencies(cases, gpus, engine, options), results);
  const Calibration cal = serving_calibration(base);
  const bench::ServingScore serving = score_serving_runs(cal);
  const bench::ServingScore loo = serving_loo(base, serving);
  std::fputs(case_table(results).c_str(), stdout);
  std::fputs(("\n" + summary_table(summarize(results, false), true)).c_str(), stdout);
  std::fputs(("\n" + factor_table(cal)).c_str(), stdout);
  const std::string method = io::read_text_file(k_root + "/tests/validation/method.md");
  const std::string discussion = io::read_text_file(k_root + "/tests/validation/discussion.md");
  io::write_text_file(
      k_root + "/docs/accuracy.md",
      report_markdown(results, cal, method, discussion) +
          "\n## Measured serving runs (TensorRT-LLM, vLLM, SGLang)\n\n" + serving_markdown(serving) +
          "\n### Leave one (model, GPU) pair out\n\nEach pair's rows predicted with GPU factors "
          "and bands fitted without that pair.\n\n" +
          serving_markdown(loo));
  io::write_text_file(k_root + "/data/calibration.json", io::calibration_to_json(cal));
  if (write_baseline) {
    io::AccuracyBaseline b;
    for (const ErrorSummary& e : summarize(results, false))
      b[e.group] = e.median_ape_loo_pct;
    for (const ServingGate& g : serving_gates(serving))
      b[g.key] = std::round(g.median_ape_pct * 100.0) / 100.0;
    // The description records why each gate moved: a rewrite keeps it (amend it by hand).
    const std::string path = k_root + "/tests/validation/baseline.json";
    io::write_text_file(path, io::baseline_to_json(b, io::load_baseline_description(path)));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const rightsize::Error& e) {
    std::fprintf(stderr, "accuracy_report: error: %s\n", rightsize::format_error(e).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accuracy_report: internal error: %s\n", e.what());
    return 4;
  }
}
