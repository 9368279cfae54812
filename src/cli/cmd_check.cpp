// rightsize check SPEC --deployment 2xL40S: a CI gate. Does the deployment meet the SLA, and is it
// over-provisioned (a cheaper configuration meets it too)? Exit 0 pass, 1 fail (docs/cli.md).
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "app.hpp"
#include "diagnostics.hpp"
#include "disagg_render.hpp"
#include "emit/emit.hpp"
#include "image_render.hpp"
#include "instances_render.hpp"
#include "judge_options.hpp"
#include "recommend_render.hpp"
#include "render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"
#include "run_context.hpp"

namespace rightsize::cli {
namespace {

struct CheckOptions {
  std::string spec;
  std::string deployment;
  int tp = 0;
  int pp = 0;
  std::string max_overspend = "20%";
  std::vector<std::string> alternatives; ///< --gpu: GPUs the overspend test compares against
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
  EmitOptions emit;
};

// "2xL40S", "8 x H100-SXM", "L4" -> (count, id).
DeploymentSpec parse_deployment(const std::string& text) {
  DeploymentSpec d;
  const std::size_t x = text.find_first_of("xX×");
  std::string count = x == std::string::npos ? "" : text.substr(0, x);
  while (!count.empty() && count.back() == ' ')
    count.pop_back();
  const bool numeric = !count.empty() && count.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) {
    const long n = std::stol(count.substr(0, 6));
    if (n < 1 || n > 65536)
      throw Error(ErrorKind::usage, "--deployment", "",
                  fmt::format("expected 1 to 65536 GPUs, got {}", count));
    d.gpus = static_cast<int>(n);
    std::size_t start = x + 1;
    if (static_cast<unsigned char>(text[x]) == 0xC3) start = x + 2; // "×" is two bytes in UTF-8
    d.gpu = text.substr(start);
    while (!d.gpu.empty() && d.gpu.front() == ' ')
      d.gpu.erase(d.gpu.begin());
  } else {
    d.gpu = text;
  }
  if (d.gpu.empty())
    throw Error(ErrorKind::usage, "--deployment", "",
                fmt::format("expected COUNTxGPU like 2xL40S, got \"{}\"", text));
  return d;
}

// One rule for shares on the command line and in JSON: "20%" is a percentage, a bare number is a
// fraction (0.2 = 20%, as JSON writes it). A bare number above 10 is refused as ambiguous.
double parse_share(const std::string& text, const char* flag) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  const double share = percent ? v / 100.0 : v;
  if (t.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || share < 0.0 || share > 10.0) {
    throw Error(
        ErrorKind::usage, flag, "",
        fmt::format("expected a percentage like 20% or a fraction like 0.2 (at most 10), got \"{}\"{}", text,
                    !percent && std::isfinite(v) && v > 10.0 ? fmt::format(" (did you mean {}%?)", t) : ""));
  }
  return share;
}

struct CheckResult {
  Candidate current;                   ///< the deployment as checked (replicas of the chosen layout)
  Verdict verdict;                     ///< core::judge on it, load included
  std::optional<Candidate> cheaper;    ///< the cheapest alternative that meets everything
  double saving = 0.0;                 ///< 1 − cheaper $/h ÷ current $/h
  std::optional<Candidate> would_pass; ///< when it fails: the cheapest passing deployment of the same GPU
  std::vector<std::string> compared;   ///< GPU ids the overspend test compared against
};

// check --emit: the artifact of the deployment as judged (its layout, its replicas, its capacity
// plan through core plan_candidate_deployment, as recommend --emit), on stdout or in --out; the
// verdict goes to stderr and the exit code. A deployment that misses the SLA gets no artifact.
int emit_checked(const EmitOptions& emit, const Spec& spec, const SearchInputs& in, const CheckResult& res,
                 const SearchPolicy& policy, PricingModel pricing, bool pass) {
  if (!res.verdict.passes()) {
    std::string why;
    if (!res.verdict.feasible())
      why = describe_rejection(res.verdict.first, res.current.estimate.concurrency);
    for (std::size_t i = 0; i < res.verdict.term_count && why.empty(); ++i) {
      if (!res.verdict.terms[i].met) why = describe_term(res.verdict.terms[i]);
    }
    note("verdict: fail: the deployment misses the SLA ({}); no {} artifact written", why, emit.kind);
    return static_cast<int>(ExitCode::not_met);
  }
  emit_candidate(emit, spec, in, res.current, policy, pricing, 0);
  if (!pass)
    note("verdict: fail: over-provisioned, a cheaper option saves {:.0f}% (check without --emit names it); "
         "the artifact was written",
         res.saving * 100.0);
  return pass ? 0 : static_cast<int>(ExitCode::not_met);
}

int run_check(const CheckOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const double max_overspend = parse_share(o.max_overspend, "--max-overspend");
  const Spec spec = load_spec_file(o.spec);
  if (spec.mode == WorkloadMode::training) {
    throw Error(ErrorKind::usage, "check", "",
                "check gates inference deployments; use 'rightsize recommend' for training specs");
  }
  check_emit_options(o.emit, spec);
  const EngineOptions engine_options = emit_engine_options(o.emit, o.engine, spec);
  if (!o.emit.kind.empty() && format != Format::table)
    throw Error(ErrorKind::usage, "--format", "",
                "--emit writes the artifact instead of the verdict; leave out --format (the verdict goes "
                "to stderr and the exit code)");
  if (spec.disaggregated && o.deployment.empty()) {
    if (!o.emit.kind.empty())
      throw Error(ErrorKind::usage, "--emit", "",
                  "expected an aggregated deployment: a disaggregated one has a prefill and a decode pool, "
                  "which --emit does not write yet");
    // Separate prefill and decode pools (methodology §3.6): judged as one deployment by core::judge.
    if (o.tp > 0 || o.pp > 0) {
      throw Error(ErrorKind::usage, "--tp", "",
                  "--tp/--pp set an aggregated replica; the spec's deployment has prefill and decode pools");
    }
    const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
    return run_disagg_deployment(spec, catalog, engine_config(engine_options, spec.engine), spec.inference,
                                 confidence_of(o.judging), format, true,
                                 engine_name(engine_options, spec.engine));
  }
  DeploymentSpec want;
  if (!o.deployment.empty()) {
    want = parse_deployment(o.deployment);
  } else if (spec.deployment) {
    want = *spec.deployment;
  } else {
    throw Error(ErrorKind::usage, "--deployment", "",
                "check needs a deployment: --deployment 2xL40S or \"deployment\" in the spec");
  }
  if (o.tp > 0) want.tp = o.tp;
  if (o.pp > 0) want.pp = o.pp;
  const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
  const Gpu& gpu =
      require_gpu(catalog.catalog, want.gpu, o.deployment.empty() ? spec.source : "--deployment");
  SearchPolicy policy;
  policy.engine = engine_config(engine_options, spec.engine);
  warn_overlay_engine(catalog, gpu.id, engine_name(engine_options, spec.engine));
  policy.max_gpus_per_replica = std::max(want.gpus, spec.constraints.max_gpus_per_replica);
  policy.max_nodes = spec.constraints.max_nodes;
  policy.confidence = confidence_of(o.judging);
  policy.calibration = band_calibration(catalog);
  policy.max_power_kw = spec.constraints.max_power_kw;

  // The deployment: the one layout rule (core::fit_layout) for its GPU count and pins.
  SearchInputs current_in = search_inputs(spec, catalog, {gpu.id}, "");
  const PreparedModel& pm = current_in.models.front();
  const GpuPrice& price = current_in.gpu_prices.front();
  LayoutRequest request{want.gpus, want.tp, want.pp, want.ep};
  request.attention_dp = want.attention_dp;
  const LayoutChoice choice = fit_layout(pm, spec.inference, gpu, request, policy.engine);
  if (choice.issue != LayoutIssue::none) {
    throw Error(
        ErrorKind::usage, "--deployment", "",
        fmt::format("{} × {} cannot be split into replicas of TP{} × PP{} that divide the GPUs and the "
                    "model's {} heads",
                    want.gpus, gpu.id, choice.deployment.tp, choice.deployment.pp, pm.model.heads));
  }
  CheckResult res;
  const BandFactors bands =
      band_factors(policy.calibration, policy.confidence, gpu.id, model_class_of(pm.model));
  // The deployment as given, judged by core (load, budget and constraints.max_power_kw included).
  res.current = judge_deployment(pm, spec.inference, spec.sla, gpu, choice.deployment, price, policy, bands);
  res.verdict = res.current.verdict;
  const bool meets = res.verdict.passes();
  const InferenceEstimate& e = res.current.estimate;

  // The alternatives: --gpu, else the spec's constraints.gpus, else the whole catalog.
  std::vector<std::string> alternatives = o.alternatives;
  SearchInputs all = search_inputs(spec, catalog, alternatives, "");
  for (const Gpu& g : all.gpus)
    res.compared.push_back(g.id);
  const Recommendation r = recommend(all.models, spec.inference, spec.sla, all.gpus, all.gpu_prices, policy);
  if (!r.candidates.empty() && res.current.price_known && e.usd_per_hour > 0.0) {
    const Candidate& best = r.candidates.front();
    if (best.price_known && best.estimate.usd_per_hour < e.usd_per_hour) {
      res.cheaper = best;
      res.saving = 1.0 - best.estimate.usd_per_hour / e.usd_per_hour;
    }
  }
  if (!meets) {
    // What would pass on the same GPU type: the search restricted to it.
    const Recommendation same = recommend(current_in.models, spec.inference, spec.sla, current_in.gpus,
                                          current_in.gpu_prices, policy);
    if (!same.candidates.empty()) res.would_pass = same.candidates.front();
  }
  const bool over_provisioned = meets && res.cheaper && res.saving > max_overspend;
  const bool pass = meets && !over_provisioned;
  const int replicas = want.gpus / choice.deployment.gpus_per_replica();

  if (!o.emit.kind.empty()) {
    EmitOptions emit = o.emit;
    emit.engine = engine_name(engine_options, spec.engine); // --emit k8s runs the engine the estimate assumed
    return emit_checked(emit, spec, current_in, res, policy, catalog.pricing, pass);
  }

  auto describe = [](const SearchInputs& in, const Candidate& c) {
    return fmt::format("{} × {} ({}, {} replica{}) for {}/h", c.total_gpus(), in.gpus[c.gpu_index].id,
                       layout_label(c.layout), c.replicas, c.replicas == 1 ? "" : "s",
                       format_usd(c.estimate.usd_per_hour, c.price_known));
  };
  if (format == Format::json) {
    nlohmann::json doc;
    doc["schema_version"] = k_output_schema_version;
    doc["deployment"] = {{"gpu", gpu.id},
                         {"gpus", want.gpus},
                         {"tp", choice.deployment.tp},
                         {"pp", choice.deployment.pp},
                         {"ep", choice.deployment.ep},
                         {"attention_dp", choice.deployment.attention_dp},
                         {"replicas", replicas}};
    if (res.verdict.feasible()) {
      doc["estimate"] = candidate_json(current_in, res.current);
      add_inference_bands(doc["estimate"], candidate_bands(current_in, res.current, catalog), e);
      add_cost_at_load(doc["estimate"]["cost"], cost_at_load(e, spec.sla, spec.inference),
                       res.current.price_known);
    } else {
      doc["estimate"] = nullptr;
    }
    doc["judgement"] = verdict_json(res.verdict, policy.confidence, e.concurrency);
    doc["meets_sla"] = meets;
    std::vector<std::string> misses;
    if (!res.verdict.feasible()) misses.push_back(describe_rejection(res.verdict.first, e.concurrency));
    for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
      if (!res.verdict.terms[i].met) misses.push_back(describe_term(res.verdict.terms[i]));
    }
    doc["misses"] = misses;
    doc["over_provisioned"] = over_provisioned;
    doc["max_overspend"] = max_overspend;
    doc["saving_fraction"] = round_sig(res.saving, 4);
    doc["compared_gpus"] = res.compared;
    doc["cheaper"] = res.cheaper ? candidate_json(all, *res.cheaper) : nlohmann::json();
    doc["would_pass"] = res.would_pass ? candidate_json(current_in, *res.would_pass) : nlohmann::json();
    doc["verdict"] = pass ? "pass" : "fail";
    if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
    fmt::print("{}\n", doc.dump(2));
  } else {
    fmt::print("deployment: {} × {} ({}, {} replica{}), concurrency {} per replica\n", want.gpus, gpu.id,
               layout_label(choice.deployment), replicas, replicas == 1 ? "" : "s", e.concurrency);
    // An image or encoder model is judged in items (methodology §3.7): one request is one item.
    const bool items = spec.model.kind != ModelKind::decoder;
    const auto words = [&](std::string text) {
      return items ? image_words(std::move(text), spec.model.kind) : text;
    };
    fmt::print("SLA: {} (judged at --confidence {})\n",
               items ? describe_image_sla(spec.sla, spec.model.kind) : describe_sla(spec.sla),
               to_string(policy.confidence));
    if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
    if (res.verdict.feasible() && items) {
      fmt::print("estimate: {:.3g} s per {}, {:.3g} {}s/s, {}/h\n", e.e2e_s,
                 spec.model.kind == ModelKind::vit ? "item" : "image", e.requests_per_s,
                 spec.model.kind == ModelKind::vit ? "item" : "image",
                 format_usd(e.usd_per_hour, res.current.price_known));
    } else if (res.verdict.feasible()) {
      fmt::print("estimate: TTFT {}, TPOT {}, {:.1f} req/s, {}/h\n", format_ms(e.ttft_s), format_ms(e.tpot_s),
                 e.requests_per_s, format_usd(e.usd_per_hour, res.current.price_known));
    }
    if (res.verdict.feasible()) fmt::print("instances: {}\n", instances_text(e.bill, price));
    if (meets) {
      fmt::print("meets the SLA\n");
    } else {
      fmt::print("under-provisioned: misses the SLA\n");
      if (!res.verdict.feasible())
        fmt::print("  - {}\n", words(describe_rejection(res.verdict.first, e.concurrency)));
      for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
        if (!res.verdict.terms[i].met) fmt::print("  - {}\n", words(describe_term(res.verdict.terms[i])));
      }
      if (res.would_pass) {
        fmt::print("would pass: {}\n", describe(current_in, *res.would_pass));
      } else {
        fmt::print("would pass: no deployment of {} meets it within the search limits\n", gpu.id);
      }
    }
    if (res.cheaper) {
      fmt::print("{}: {} meets it, {:.0f}% less (threshold {:.0f}%; compared against {} GPU type{})\n",
                 over_provisioned ? "over-provisioned" : "a cheaper option", describe(all, *res.cheaper),
                 res.saving * 100.0, max_overspend * 100.0, res.compared.size(),
                 res.compared.size() == 1 ? "" : "s");
    }
    fmt::print("verdict: {}\n", pass ? "pass" : "fail");
  }
  return pass ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_check(CLI::App& app, Action& action) {
  auto o = std::make_shared<CheckOptions>();
  auto* command =
      app.add_subcommand("check", "CI gate: does a deployment meet the SLA without overspending?");
  command->add_option("spec", o->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--deployment", o->deployment,
                      "the deployment to check, e.g. 2xL40S (default: the spec's)");
  command->add_option("--tp", o->tp, "tensor-parallel degree of each replica (default: smallest that fits)");
  command->add_option("--pp", o->pp, "pipeline-parallel degree of each replica");
  command->add_option("--max-overspend", o->max_overspend,
                      "fail when a cheaper option saves more than this: 20% or 0.2 (default 20%)");
  command
      ->add_option("--gpu", o->alternatives,
                   "GPU ids to compare against for overspend (default: the spec's constraints.gpus, else "
                   "the catalog)")
      ->delimiter(',');
  command->add_option("--format", o->format, "table or json")->default_str("table");
  add_catalog_options(command, o->catalog);
  add_engine_options(command, o->engine);
  add_judge_options(command, o->judging);
  add_emit_options(command, o->emit, false);
  command->callback([o, &action] { action = [o] { return run_check(*o); }; });
}

} // namespace rightsize::cli
