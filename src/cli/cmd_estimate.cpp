// rightsize estimate SPEC --gpu ID [--gpus N] [--tp T] [--pp P] [--ep E] [--concurrency C]
// One deployment, estimated: memory against capacity, performance, bound, cost, assumptions.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "app.hpp"
#include "disagg_render.hpp"
#include "image_render.hpp"
#include "instances_render.hpp"
#include "judge_options.hpp"
#include "render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/training.hpp"
#include "rightsize/units.hpp"
#include "run_context.hpp"
#include "training_render.hpp"

namespace rightsize::cli {
namespace {

struct EstimateOptions {
  std::string spec;
  std::string gpu;
  int gpus = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  std::int64_t concurrency = -1;
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
};

void require_positive(int value, const char* flag) {
  if (value < 0 || value > 65536) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("expected a positive integer up to 65536, got {}", value));
  }
}

// The GEMM dtype fallback the estimate took on this GPU, as an assumption line (none when the
// GEMMs run in the precision's own math).
std::optional<std::string> gemm_fallback(const PreparedModel& pm, const InferenceEstimate& e,
                                         const Gpu& gpu) {
  if (!e.precision_supported || e.gemm_math == pm.math) return std::nullopt;
  return fmt::format("{} GEMMs run in {} on {}: it has no {} tensor cores (the engines' fallback, "
                     "docs/methodology.md §3)",
                     math_dtype_name(pm.math), math_dtype_name(e.gemm_math), gpu.id,
                     math_dtype_name(pm.math));
}

void print_inference_table(const Spec& spec, const InferenceWorkload& w, const PreparedModel& pm,
                           const Gpu& gpu, const Deployment& d, const InferenceEstimate& e,
                           const ResolvedPrice& price, PricingModel pricing, const BandContext& bands,
                           const Verdict& verdict, const CostAtLoad& at_load, Confidence confidence,
                           const std::string& engine_name) {
  fmt::print("{} on {} × {} ({}, {} replica{})\n", pm.model.name, d.gpus, gpu.id, layout_label(d),
             d.replicas(), d.replicas() == 1 ? "" : "s");
  fmt::print("params {} total, {} active; weights {} in {}; KV cache in {}\n",
             format_params(static_cast<double>(pm.params.total)),
             format_params(static_cast<double>(pm.params.active)), format_gb(pm.weight_bytes_total),
             format_info(pm.precision.weights).name, format_info(pm.precision.kv_cache).name);
  if (pm.model.vision.layers > 0) {
    // Vision-language model (methodology §1.6): the tower's weights and the request's image tokens.
    const VisionTowerSpec& v = pm.model.vision;
    const VisionRequest r = vision_request(v);
    const std::string images =
        v.images_per_request == 0
            ? std::string("no images per request (workload.images_per_request)")
            : fmt::format("{} image(s) per request = {} image tokens of the {} input tokens, {:.3g} TFLOP to "
                          "encode in prefill",
                          v.images_per_request, r.image_tokens, w.input_tokens, r.encoder_flops / 1e12);
    fmt::print("vision   tower {} params, {} (16-bit, in the weights); {}\n",
               format_params(static_cast<double>(pm.params.vision)), format_gb(pm.vision_weight_bytes),
               images);
  }
  if (is_image_model(pm)) {
    fmt::print("workload one image per request: {}; batch {} per replica{} (fits up to {})\n\n",
               image_workload_line(pm.model), e.concurrency, w.concurrency == 0 ? " (auto)" : "",
               e.max_concurrency);
  } else {
    fmt::print("workload {} input / {} output tokens, {} {} per replica{} (fits up to {})\n\n",
               w.input_tokens, w.output_tokens, e.open_loop ? "in flight" : "concurrency", e.concurrency,
               e.open_loop          ? " (Little's law at the arrival rate)"
               : w.concurrency == 0 ? " (auto)"
                                    : "",
               e.max_concurrency);
  }
  if (w.arrival == Arrival::poisson) {
    fmt::print("load     {} engine profile; poisson arrivals at {:g} req/s for the deployment{} "
               "(docs/methodology.md §3.1)\n\n",
               engine_name, w.request_rate_per_s,
               w.arrival_cv != 1.0 ? fmt::format(", inter-arrival CV {:g}", w.arrival_cv) : "");
  } else {
    fmt::print("load     {} engine profile; closed loop: {} clients per replica, equal lengths "
               "(docs/methodology.md §3.1)\n\n",
               engine_name, e.concurrency);
  }
  // Which efficiency factors are the GPU's own fits and which are extrapolated (methodology §3.4).
  fmt::print("efficiency {}\n\n", efficiency_provenance(gpu, d));
  const MemoryEstimate& m = e.memory;
  fmt::print("memory per GPU (GB = 1e9 bytes)\n");
  fmt::print("  {:<26}{:>10}\n", "weights", format_gb(m.weights_bytes));
  fmt::print("  {:<26}{:>10}\n", "KV cache", format_gb(m.kv_cache_bytes));
  fmt::print("  {:<26}{:>10}\n", "activations (prefill peak)", format_gb(m.activations_bytes));
  fmt::print("  {:<26}{:>10}\n", "runtime overhead", format_gb(m.overhead_bytes));
  fmt::print("  {:<26}{:>10}  of {} usable ({} visible × {:.2f}): {}\n\n", "total",
             format_gb(m.per_gpu_bytes), format_gb(m.usable_per_gpu_bytes),
             format_gb(m.capacity_per_gpu_bytes),
             m.capacity_per_gpu_bytes > 0 ? m.usable_per_gpu_bytes / m.capacity_per_gpu_bytes : 0.0,
             m.fits ? fmt::format("fits, headroom {}", format_gb(m.headroom_bytes()))
                    : fmt::format("DOES NOT FIT, short by {}", format_gb(-m.headroom_bytes())));
  if (!verdict.feasible()) {
    // Latency and cost of a deployment that cannot run mean nothing: the verdict only.
    fmt::print("verdict: not feasible — {}\n", describe_rejection(verdict.first, e.concurrency));
    if (!verdict.precision_supported) {
      fmt::print(
          "  {} has no tensor-core support for {} GEMMs: serve a precision it runs (e.g. bf16) or pick a "
          "GPU that supports it\n",
          gpu.id, math_dtype_name(pm.math));
    } else if (!verdict.fits && e.max_concurrency >= 1 && e.concurrency > e.max_concurrency) {
      fmt::print("  at most {} sequences of {} tokens fit per replica; lower --concurrency or add GPUs\n",
                 e.max_concurrency, w.context_tokens());
    } else if (!verdict.fits) {
      fmt::print("  add GPUs (--gpus, --tp), a smaller precision, or a GPU with more memory\n");
    }
  } else {
    fmt::print("performance{}\n",
               bands.calibration != nullptr ? " (p10–p90 band from docs/accuracy.md)" : "");
    const InferenceBands ib = bands.of(e);
    const bool calibrated = bands.calibration != nullptr;
    fmt::print("  {:<26}{:>10}\n", "TTFT (mean)", format_ms_band(ib.ttft, calibrated));
    fmt::print("  {:<26}{:>10}\n", "TTFT p50 / p90 / p99",
               fmt::format("{} / {} / {}", format_ms(e.ttft.p50_s), format_ms(e.ttft.p90_s),
                           format_ms(e.ttft.p99_s)));
    print_overlay_tail(bands, FigureKind::ttft, e.ttft_s);
    fmt::print("  {:<26}{:>10}\n", "queue wait (mean)", format_ms(e.queue_wait_s));
    fmt::print("  {:<26}{:>10}\n", "TPOT (incl. prefill mix)", format_ms_band(ib.tpot, calibrated));
    fmt::print("  {:<26}{:>10}\n", "TPOT p50 / p90 / p99",
               fmt::format("{} / {} / {}", format_ms(e.tpot.p50_s), format_ms(e.tpot.p90_s),
                           format_ms(e.tpot.p99_s)));
    print_overlay_tail(bands, FigureKind::tpot, e.tpot_s);
    if (e.overloaded) {
      fmt::print(
          "  warning: the arrival rate exceeds what a replica serves (the queue grows without bound)\n");
    }
    if (e.clients_exceed_kv) {
      fmt::print("  note: {} clients per replica but the KV cache holds {}: the rest wait for a slot\n",
                 e.concurrency, e.max_concurrency);
    }
    fmt::print("  {:<26}{:>10}\n", "end-to-end per request", format_ms_band(ib.e2e, calibrated));
    const Band tput = ib.output_tokens_per_s;
    fmt::print("  {:<26}{:>10}{}\n", "output tokens/s", format_count(e.output_tokens_per_s),
               bands.calibration != nullptr && tput.high > tput.low
                   ? fmt::format(" ({}–{})", format_count(tput.low), format_count(tput.high))
                   : "");
    fmt::print("  {:<26}{:>10}\n", "requests/s", fmt::format("{:.2f}", e.requests_per_s));
    if (is_image_model(pm)) { // one request = one image (methodology §3.7)
      fmt::print("  {:<26}{:>10}\n", "seconds per image", fmt::format("{:.2f} s", e.e2e_s));
      fmt::print("  {:<26}{:>10}\n", "images/s", fmt::format("{:.3g}", e.requests_per_s));
    }
    fmt::print("  {:<26}{:>10}\n", "bound", to_string(e.bound));
    for (const auto& note : optimistic_only(bands, e, spec.sla))
      fmt::print("  caution: {}\n", note);
    if (!e.link_known) {
      fmt::print(
          "  warning: the catalog gives no link bandwidth between {} GPUs; communication is left out\n",
          gpu.id);
    }
    if (!e.precision_supported)
      fmt::print("  warning: {} has no tensor-core support for {}\n", gpu.id, math_dtype_name(pm.math));
    fmt::print("\ncost ({} price: {}, {}{})\n", to_string(pricing), price.basis,
               price.known ? format_usd(price.usd_per_hour) + "/GPU-h" : "no price",
               price.date.empty() ? "" : ", " + price.date);
    fmt::print("  {:<26}{:>10}\n", "per hour", format_usd(e.usd_per_hour, price.known));
    fmt::print("  instances: {}\n", instances_text(e.bill, gpu_price(price)));
    // Open loop: the tokens are the arrival rate's, so the cost is at that load, not at capacity.
    fmt::print("  {:<26}{:>10}\n", e.open_loop ? "per 1M output tok (load)" : "per 1M output tok (cap.)",
               format_usd(e.usd_per_million_output_tokens, price.known));
    if (!e.open_loop && at_load.served_requests_per_s > 0.0 &&
        at_load.served_requests_per_s < e.requests_per_s) {
      fmt::print("  {:<26}{:>10}  at the SLA's {:.2f} req/s\n", "per 1M output tok (load)",
                 format_usd(at_load.usd_per_million_output_tokens, price.known),
                 at_load.served_requests_per_s);
    }
    fmt::print("  {:<26}{:>10}\n", e.open_loop ? "per request (load)" : "per request (capacity)",
               format_usd(e.usd_per_request, price.known));
    if (is_image_model(pm)) {
      fmt::print("  {:<26}{:>10}\n", "per 1,000 images (cap.)",
                 format_usd(e.usd_per_request * 1e3, price.known));
    }
    if (verdict.term_count > 0) {
      fmt::print("\nSLA (--confidence {}): {}\n", to_string(confidence), verdict.passes() ? "met" : "missed");
      for (std::size_t i = 0; i < verdict.term_count; ++i)
        fmt::print("  {} {}\n", verdict.terms[i].met ? "ok  " : "MISS", describe_term(verdict.terms[i]));
    }
  }
  const auto fallback = gemm_fallback(pm, e, gpu);
  if (!spec.assumptions.empty() || fallback) {
    fmt::print("\nassumptions\n");
    for (const auto& a : spec.assumptions) {
      if (w.concurrency == 0 || a.rfind("concurrency:", 0) != 0) fmt::print("  - {}\n", a);
    }
    if (fallback) fmt::print("  - {}\n", *fallback);
  }
}

int run_estimate(const EstimateOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  require_positive(o.gpus, "--gpus");
  require_positive(o.tp, "--tp");
  require_positive(o.pp, "--pp");
  require_positive(o.ep, "--ep");
  require_positive(o.attention_dp, "--attention-dp");
  const Spec spec = load_spec_file(o.spec);
  const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
  if (spec.disaggregated && o.gpu.empty() && spec.mode == WorkloadMode::inference) {
    // Separate prefill and decode pools (methodology §3.6): their layouts are the spec's.
    if (o.gpus > 0 || o.tp > 0 || o.pp > 0 || o.ep > 0) {
      const char* flag = o.gpus > 0 ? "--gpus" : o.tp > 0 ? "--tp" : o.pp > 0 ? "--pp" : "--ep";
      throw Error(ErrorKind::usage, flag, "",
                  "--gpus/--tp/--pp/--ep set an aggregated deployment; the spec's deployment has prefill "
                  "and decode pools (set their layouts there, or pass --gpu for an aggregated estimate)");
    }
    InferenceWorkload w = spec.inference;
    if (o.concurrency >= 0) {
      if (o.concurrency < 1 || o.concurrency > 1'000'000) {
        throw Error(ErrorKind::usage, "--concurrency", "",
                    fmt::format("expected 1 to 1000000, got {}", o.concurrency));
      }
      w.concurrency = o.concurrency;
    }
    return run_disagg_deployment(spec, catalog, engine_config(o.engine, spec.engine), w,
                                 confidence_of(o.judging), format, false, engine_name(o.engine, spec.engine));
  }
  std::string gpu_id = o.gpu;
  if (gpu_id.empty() && spec.deployment) gpu_id = spec.deployment->gpu;
  if (gpu_id.empty())
    throw Error(ErrorKind::usage, "--gpu", "",
                "estimate needs a GPU: pass --gpu ID (see 'rightsize catalog list')");
  const Gpu& gpu = require_gpu(catalog.catalog, gpu_id, "--gpu");
  const ResolvedPrice& price = price_of(catalog, gpu);
  const EngineConfig engine = engine_config(o.engine, spec.engine);
  warn_overlay_engine(catalog, gpu.id, engine_name(o.engine, spec.engine));
  int gpus = o.gpus > 0 ? o.gpus : (spec.deployment && o.gpu.empty() ? spec.deployment->gpus : 0);
  if (gpus == 0) gpus = std::max(1, o.tp) * std::max(1, o.pp);
  const PreparedModel pm = prepare_model(spec.model, spec.precision);
  BandContext bands;
  bands.calibration = catalog.calibrated ? &catalog.calibration : nullptr;
  bands.gpu_id = gpu.id;
  bands.model_class = model_class_of(spec.model);

  if (spec.mode == WorkloadMode::training) {
    LayoutPins pins;
    pins.tp = o.tp;
    pins.pp = o.pp;
    pins.ep = o.ep;
    const TrainingEstimate t =
        search_training_layout(pm, spec.training, gpu, gpus, pins, TrainingConfig{}, gpu_price(price));
    if (format == Format::json) {
      nlohmann::json doc = training_json(pm, gpu.id, gpu_price(price), t, price.known);
      add_training_bands(doc, bands, t);
      doc["schema_version"] = k_output_schema_version;
      doc["assumptions"] = assumptions_json(spec.assumptions);
      if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
      fmt::print("{}\n", doc.dump(2));
    } else {
      print_training_table(spec, pm, gpu, t, price);
      if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
    }
    return 0;
  }

  InferenceWorkload w = spec.inference;
  if (o.concurrency >= 0) {
    if (o.concurrency < 1 || o.concurrency > 1'000'000) {
      throw Error(ErrorKind::usage, "--concurrency", "",
                  fmt::format("expected 1 to 1000000, got {}", o.concurrency));
    }
    w.concurrency = o.concurrency;
  }
  LayoutRequest request;
  request.gpus = gpus;
  request.tp = o.tp;
  request.pp = o.pp;
  request.ep = o.ep;
  request.attention_dp = o.attention_dp;
  // The spec's deployment block pins the layout when the flags do not name another GPU.
  if (spec.deployment && o.gpu.empty() && o.tp == 0 && o.pp == 0 && o.ep == 0 && o.attention_dp == 0) {
    request.tp = spec.deployment->tp;
    request.pp = spec.deployment->pp;
    request.ep = spec.deployment->ep;
    request.attention_dp = spec.deployment->attention_dp;
  }
  const LayoutChoice choice = fit_layout(pm, w, gpu, request, engine);
  const Deployment d = choice.deployment;
  if (choice.issue == LayoutIssue::gpus_not_divisible) {
    throw Error(ErrorKind::usage, "--gpus", "",
                fmt::format("{} GPUs cannot hold whole replicas of {} ({} GPUs each)", gpus, layout_label(d),
                            d.gpus_per_replica()));
  }
  if (choice.issue == LayoutIssue::heads_not_divisible) {
    throw Error(ErrorKind::usage, "--tp", "",
                fmt::format("TP {} does not divide the model's {} attention heads", d.tp, pm.model.heads));
  }
  const Confidence confidence = confidence_of(o.judging);
  // An "auto" concurrency meets the latency SLA at the judged end of its band (core::judge).
  const BandFactors factors =
      band_factors(band_calibration(catalog), confidence, gpu.id, model_class_of(spec.model));
  const Sla auto_sla = auto_concurrency_sla(spec.sla, factors); // judged end of the band
  const Sla* sla = w.concurrency == 0 ? &auto_sla : nullptr;
  // A --concurrency flag replaces the spec's "auto" and the assumption that came with it.
  std::vector<std::string> assumptions;
  for (const auto& a : spec.assumptions) {
    if (o.concurrency < 0 || a.rfind("concurrency:", 0) != 0) assumptions.push_back(a);
  }
  const InferenceEstimate e = estimate_inference(pm, w, gpu, d, engine, sla, gpu_price(price));
  if (auto line = gemm_fallback(pm, e, gpu)) assumptions.push_back(*line);
  JudgeRules rules;
  rules.bands = factors;
  rules.price_known = price.known;
  const Verdict verdict = judge(e, spec.sla, rules);
  const CostAtLoad at_load = cost_at_load(e, spec.sla, w);
  if (format == Format::json) {
    nlohmann::json doc = estimate_json(pm, gpu.id, d, e, price.known);
    doc["instances"] = instances_json(e.bill, gpu_price(price));
    doc["deployment"]["efficiency_provenance"] = efficiency_provenance(gpu, d);
    doc["load"] = load_json(w, engine_name(o.engine, spec.engine));
    if (verdict.feasible()) {
      add_inference_bands(doc, bands, e);
      doc["sla_optimistic_only"] = optimistic_only(bands, e, spec.sla);
      doc["cost"]["pricing"] = to_string(catalog.pricing);
      doc["cost"]["price_basis"] = price.basis;
      doc["cost"]["price_date"] = price.date;
      add_cost_at_load(doc["cost"], at_load, price.known);
    } else {
      doc["inference"] = nullptr; // not feasible: no performance or cost (docs/output-schema.md)
      doc["cost"] = nullptr;
      doc["instances"] = nullptr;
    }
    doc["judgement"] = verdict_json(verdict, confidence, e.concurrency);
    doc["schema_version"] = k_output_schema_version;
    doc["assumptions"] = assumptions_json(assumptions);
    if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
    fmt::print("{}\n", doc.dump(2));
  } else {
    print_inference_table(spec, w, pm, gpu, d, e, price, catalog.pricing, bands, verdict, at_load, confidence,
                          engine_name(o.engine, spec.engine));
    if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
  }
  return verdict.feasible() ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_estimate(CLI::App& app, Action& action) {
  auto options = std::make_shared<EstimateOptions>();
  auto* command =
      app.add_subcommand("estimate", "estimate memory, latency, throughput and cost of one deployment");
  command->add_option("spec", options->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--gpu", options->gpu, "GPU id or alias from the catalog, e.g. H100-SXM, l40s");
  command->add_option("--gpus", options->gpus,
                      "GPUs in the deployment (replicas = gpus / (tp × pp × attention-dp))");
  command->add_option("--tp", options->tp, "tensor-parallel degree (default: smallest that fits)");
  command->add_option("--pp", options->pp, "pipeline-parallel degree");
  command->add_option("--ep", options->ep, "expert groups the MoE experts are split over");
  command->add_option("--attention-dp", options->attention_dp,
                      "attention data-parallel ranks per replica (MoE; replica = tp × pp × ranks GPUs)");
  command->add_option("--concurrency", options->concurrency,
                      "in-flight requests per replica (default: the spec's)");
  command->add_option("--format", options->format, "output: table or json")->default_str("table");
  add_catalog_options(command, options->catalog);
  add_engine_options(command, options->engine);
  add_judge_options(command, options->judging);
  command->callback([options, &action] { action = [options] { return run_estimate(*options); }; });
}

} // namespace rightsize::cli
