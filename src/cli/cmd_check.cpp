// rightsize check SPEC --deployment 2xL40S: a CI gate. Does the deployment meet the SLA, and is it
// over-provisioned (a cheaper configuration meets it too)? Exit 0 pass, 1 fail (docs/cli.md).
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "app.hpp"
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
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
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

double parse_percent(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || v < 0.0 || v > 1000.0) {
    throw Error(ErrorKind::usage, "--max-overspend", "",
                fmt::format("expected a percentage like 20%, got \"{}\"", text));
  }
  return v / 100.0;
}

int run_check(const CheckOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const double max_overspend = parse_percent(o.max_overspend);
  const Spec spec = load_spec_file(o.spec);
  if (spec.mode == WorkloadMode::training) {
    throw Error(ErrorKind::usage, "check", "",
                "check gates inference deployments; use 'rightsize recommend' for training specs");
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
  const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints);
  const Gpu& gpu =
      require_gpu(catalog.catalog, want.gpu, o.deployment.empty() ? spec.source : "--deployment");
  SearchPolicy policy;
  policy.engine = engine_config(o.engine);
  policy.max_gpus_per_replica = std::max(want.gpus, spec.constraints.max_gpus_per_replica);
  policy.max_nodes = spec.constraints.max_nodes;

  // The current deployment: the smallest replica layout that fits within the given GPUs (or the pinned one).
  SearchInputs current_in = search_inputs(spec, catalog, {gpu.id}, "");
  const PreparedModel& pm = current_in.models.front();
  const double price = current_in.usd_per_gpu_hour.front();
  Candidate current;
  bool have_current = false;
  SearchPolicy layout_policy = policy;
  layout_policy.max_gpus_per_replica = want.gpus;
  for (Deployment layout : replica_layouts(pm.model, gpu, layout_policy)) {
    if (want.gpus % (layout.tp * layout.pp) != 0) continue;
    if (want.tp > 0 && layout.tp != want.tp) continue;
    if (want.pp > 0 && layout.pp != want.pp) continue;
    if (layout.ep > 1 && want.ep <= 1) continue;
    Sla latency_only = spec.sla;
    latency_only.requests_per_s.reset();
    latency_only.output_tokens_per_s.reset();
    latency_only.budget_usd.reset();
    Candidate c = evaluate_candidate(pm, spec.inference, latency_only, gpu, layout, price, policy);
    c.replicas = want.gpus / (layout.tp * layout.pp);
    Deployment whole = layout;
    whole.gpus = want.gpus;
    InferenceWorkload fixed = spec.inference;
    fixed.concurrency = c.estimate.concurrency;
    c.estimate = estimate_inference(pm, fixed, gpu, whole, policy.engine, &spec.sla, price);
    if (!have_current || (c.meets_sla && !current.meets_sla)) {
      current = c;
      have_current = true;
    }
    if (current.meets_sla) break;
  }
  if (!have_current) {
    throw Error(ErrorKind::usage, "--deployment", "",
                fmt::format("{} × {} cannot be split into replicas that divide the model's {} heads",
                            want.gpus, gpu.id, pm.model.heads));
  }
  // Which SLA does it miss, and by how much?
  std::vector<std::string> misses;
  const InferenceEstimate& e = current.estimate;
  if (!e.memory.fits) misses.push_back(describe_rejection(current));
  auto over = [&](const char* name, double value_ms, const std::optional<double>& limit) {
    if (limit && value_ms > *limit) {
      misses.push_back(fmt::format("{} {:.1f} ms > SLA {:g} ms ({:+.0f}%) at concurrency {}", name, value_ms,
                                   *limit, (value_ms / *limit - 1.0) * 100.0, e.concurrency));
    }
  };
  if (e.memory.fits) {
    over("TTFT", e.ttft_s * 1e3, spec.sla.ttft_ms);
    over("TPOT", e.tpot_s * 1e3, spec.sla.tpot_ms);
    over("end-to-end", e.e2e_s * 1e3, spec.sla.e2e_ms);
    if (spec.sla.requests_per_s && e.requests_per_s < *spec.sla.requests_per_s) {
      misses.push_back(fmt::format("serves {:.2f} req/s < SLA {:g} req/s ({:.1f}% short)", e.requests_per_s,
                                   *spec.sla.requests_per_s,
                                   (1.0 - e.requests_per_s / *spec.sla.requests_per_s) * 100.0));
    }
    if (spec.sla.output_tokens_per_s && e.output_tokens_per_s < *spec.sla.output_tokens_per_s) {
      misses.push_back(fmt::format("serves {:.0f} output tok/s < SLA {:g}", e.output_tokens_per_s,
                                   *spec.sla.output_tokens_per_s));
    }
  }
  const bool meets = misses.empty();

  // Is something cheaper that also meets everything?
  SearchInputs all = search_inputs(spec, catalog, {}, "");
  const Recommendation r =
      recommend(all.models, spec.inference, spec.sla, all.gpus, all.usd_per_gpu_hour, policy);
  std::optional<Candidate> cheaper;
  double saving = 0.0;
  if (!r.candidates.empty() && current.price_known && e.usd_per_hour > 0.0) {
    const Candidate& best = r.candidates.front();
    if (best.price_known && best.estimate.usd_per_hour < e.usd_per_hour) {
      cheaper = best;
      saving = 1.0 - best.estimate.usd_per_hour / e.usd_per_hour;
    }
  }
  const bool over_provisioned = meets && cheaper && saving > max_overspend;
  const bool pass = meets && !over_provisioned;

  if (format == Format::json) {
    nlohmann::json doc;
    doc["schema_version"] = k_output_schema_version;
    doc["deployment"] = {{"gpu", gpu.id},
                         {"gpus", want.gpus},
                         {"tp", current.layout.tp},
                         {"pp", current.layout.pp},
                         {"replicas", want.gpus / (current.layout.tp * current.layout.pp)}};
    doc["estimate"] = candidate_json(current_in, current);
    const BandContext bands = candidate_bands(current_in, current, catalog);
    add_inference_bands(doc["estimate"], bands, current.estimate);
    doc["sla_optimistic_only"] = optimistic_only(bands, current.estimate, spec.sla);
    doc["meets_sla"] = meets;
    doc["misses"] = misses;
    doc["over_provisioned"] = over_provisioned;
    doc["max_overspend"] = max_overspend;
    doc["saving_fraction"] = round_sig(saving, 4);
    doc["cheaper"] = cheaper ? candidate_json(all, *cheaper) : nlohmann::json();
    doc["verdict"] = pass ? "pass" : "fail";
    fmt::print("{}\n", doc.dump(2));
  } else {
    fmt::print("deployment: {} × {} ({}, {} replica{}), concurrency {} per replica\n", want.gpus, gpu.id,
               layout_label(current.layout), want.gpus / (current.layout.tp * current.layout.pp),
               want.gpus / (current.layout.tp * current.layout.pp) == 1 ? "" : "s", e.concurrency);
    fmt::print("SLA: {}\n", describe_sla(spec.sla));
    fmt::print("estimate: TTFT {}, TPOT {}, {:.1f} req/s, {}/h\n", format_ms(e.ttft_s), format_ms(e.tpot_s),
               e.requests_per_s, format_usd(e.usd_per_hour, current.price_known));
    if (meets) {
      fmt::print("meets the SLA\n");
      for (const auto& note : optimistic_only(candidate_bands(current_in, current, catalog), e, spec.sla)) {
        fmt::print("  caution: only at the optimistic end of the error band: {}\n", note);
      }
    } else {
      fmt::print("under-provisioned: misses the SLA\n");
      for (const auto& m : misses)
        fmt::print("  - {}\n", m);
    }
    if (cheaper) {
      fmt::print("{}: {} × {} ({}) meets it for {}/h, {:.0f}% less (threshold {:.0f}%)\n",
                 over_provisioned ? "over-provisioned" : "a cheaper option", cheaper->total_gpus(),
                 all.gpus[cheaper->gpu_index].id, layout_label(cheaper->layout),
                 format_usd(cheaper->estimate.usd_per_hour), saving * 100.0, max_overspend * 100.0);
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
                      "fail when a cheaper option saves more than this (default 20%)");
  command->add_option("--format", o->format, "table or json")->default_str("table");
  add_catalog_options(command, o->catalog);
  add_engine_options(command, o->engine);
  command->callback([o, &action] { action = [o] { return run_check(*o); }; });
}

} // namespace rightsize::cli
