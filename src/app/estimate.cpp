#include "app/estimate.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "rightsize/energy.hpp"
#include "rightsize/error.hpp"
#include "rightsize/search.hpp"

namespace rightsize::app {
namespace {

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

// The layout `estimate` judges: the flags' pins, else the spec's deployment block's (when the flags
// name no other GPU), fitted by core::fit_layout; a layout that cannot be formed is a usage Error
// naming the flag.
Deployment estimate_layout(const Spec& spec, const PreparedModel& pm, const InferenceWorkload& w,
                           const Gpu& gpu, const EstimateSettings& request, int gpus) {
  const bool spec_pins = spec.deployment && !request.gpu_from_flag;
  LayoutRequest layout;
  layout.gpus = gpus;
  layout.tp = request.tp;
  layout.pp = request.pp;
  layout.ep = request.ep;
  layout.attention_dp = request.attention_dp;
  // The spec's deployment block pins the layout when the flags do not name another GPU.
  if (spec_pins && request.tp == 0 && request.pp == 0 && request.ep == 0 && request.attention_dp == 0) {
    layout.tp = spec.deployment->tp;
    layout.pp = spec.deployment->pp;
    layout.ep = spec.deployment->ep;
    layout.attention_dp = spec.deployment->attention_dp;
  }
  const LayoutChoice choice = fit_layout(pm, w, gpu, layout, request.engine);
  const Deployment& d = choice.deployment;
  if (choice.issue == LayoutIssue::gpus_not_divisible) {
    throw Error(ErrorKind::usage, "--gpus", "",
                fmt::format("{} GPUs cannot hold whole replicas of {} ({} GPUs each)", gpus, layout_label(d),
                            d.gpus_per_replica()));
  }
  reject_ep_layout(choice, gpu, EpOrigin{request.ep == 0 && layout.ep > 0, spec.source});
  if (choice.issue == LayoutIssue::runs_whole) {
    throw Error(
        ErrorKind::usage, "--tp", "",
        fmt::format("{} is a UNet, served whole on one GPU per replica (methodology §3.7): expected no "
                    "--tp, --pp or --attention-dp above 1, got {}",
                    pm.model.name, layout_label(d)));
  }
  if (choice.issue == LayoutIssue::heads_not_divisible) {
    throw Error(ErrorKind::usage, "--tp", "",
                fmt::format("TP {} does not divide the model's {} attention heads", d.tp, pm.model.heads));
  }
  return d;
}

} // namespace

InferenceWorkload with_concurrency(const InferenceWorkload& workload, std::int64_t concurrency) {
  InferenceWorkload w = workload;
  if (concurrency >= 0) {
    if (concurrency < 1 || concurrency > 1'000'000) {
      throw Error(ErrorKind::usage, "--concurrency", "",
                  fmt::format("expected 1 to 1000000, got {}", concurrency));
    }
    w.concurrency = concurrency;
  }
  return w;
}

EstimateResult run_estimate(const Spec& spec, const LoadedCatalog& catalog, const EstimateSettings& request) {
  EstimateResult res;
  const Gpu& gpu = require_gpu(catalog.catalog, request.gpu, "--gpu");
  res.gpu = gpu;
  res.price = price_of(catalog, gpu);
  const bool spec_pins = spec.deployment && !request.gpu_from_flag;
  int gpus = request.gpus > 0 ? request.gpus : (spec_pins ? spec.deployment->gpus : 0);
  if (gpus == 0) gpus = std::max(1, request.tp) * std::max(1, request.pp);
  res.model = prepare_model(spec.model, spec.precision);
  const PreparedModel& pm = res.model;
  reject_moe_layout_on_dense(pm.model, request.ep, request.attention_dp);

  if (spec.mode == WorkloadMode::training) {
    reject_attention_dp_for_training(request.attention_dp);
    LayoutPins pins;
    pins.tp = request.tp;
    pins.pp = request.pp;
    pins.ep = request.ep;
    res.training =
        search_training_layout(pm, spec.training, gpu, gpus, pins, TrainingConfig{}, gpu_price(res.price));
    res.training_bands = training_bands(training_band_source(catalog, gpu, spec.model), *res.training);
    res.assumptions = spec.assumptions;
    return res;
  }

  res.workload = with_concurrency(spec.inference, request.concurrency);
  res.capacity_policy = capacity_policy_of(request.engine);
  const InferenceWorkload& w = res.workload;
  const Deployment d = estimate_layout(spec, pm, w, gpu, request, gpus);
  res.deployment = d;
  // An "auto" concurrency meets the latency SLA at the judged end of its band (core::judge).
  const BandSource source = band_source(catalog, gpu, spec.model);
  const BandFactors factors =
      band_factors(source.calibration, request.confidence, source.gpu_id, source.model_class, source.reach);
  const Sla auto_sla = auto_concurrency_sla(spec.sla, factors); // judged end of the band
  const Sla* sla = w.concurrency == 0 ? &auto_sla : nullptr;
  // A --concurrency flag replaces the spec's "auto" and the assumption that came with it.
  for (const auto& a : spec.assumptions) {
    if (request.concurrency < 0 || a.rfind("concurrency:", 0) != 0) res.assumptions.push_back(a);
  }
  res.estimate = estimate_inference(pm, w, gpu, d, request.engine, sla, gpu_price(res.price));
  res.gemm_fallback = gemm_fallback(pm, res.estimate, gpu);
  if (res.gemm_fallback) res.assumptions.push_back(*res.gemm_fallback);
  JudgeRules rules;
  rules.bands = factors;
  rules.price_known = res.price.known;
  rules.load_headroom = throughput_headroom(request.headroom);
  // The power cap is one more term of the one verdict, as recommend, check and sweep judge it.
  if (spec.constraints.max_power_kw > 0.0) {
    SearchPolicy capped;
    capped.max_power_kw = spec.constraints.max_power_kw;
    apply_power_cap(rules, capped,
                    deployment_energy(res.estimate, d.gpus, gpu, spec.sla, PowerModel{}).power_watts);
  }
  // An open loop's latencies at its band's slow end (methodology §3.5), as the bands show them.
  const auto slow = slow_end_estimate(res.estimate, pm, w, gpu, d, request.engine, factors.tpot_high);
  rules.slow_end = slow ? &*slow : nullptr;
  res.verdict = judge(res.estimate, spec.sla, rules);
  res.goodput = goodput(res.estimate, spec.sla, factors, rules.slow_end); // at the verdict's end of the band
  res.at_load = cost_at_load(res.estimate, spec.sla, w);
  const OpenLoopInputs open{pm, w, gpu, d, request.engine};
  res.bands = estimate_bands(source, res.estimate, spec.sla, &open);
  return res;
}

namespace {

// Separate prefill and decode pools (methodology §3.6): their layouts are the spec's.
void estimate_pools(EstimateOutcome& out, const EstimateRequest& request) {
  const Spec& spec = out.spec;
  const EstimateSettings& pins = request.settings;
  if (pins.gpus > 0 || pins.tp > 0 || pins.pp > 0 || pins.ep > 0 || pins.attention_dp > 0) {
    const char* flag = pins.gpus > 0 ? "--gpus"
                       : pins.tp > 0 ? "--tp"
                       : pins.pp > 0 ? "--pp"
                       : pins.ep > 0 ? "--ep"
                                     : "--attention-dp";
    throw Error(ErrorKind::usage, flag, "",
                "--gpus/--tp/--pp/--ep/--attention-dp set an aggregated deployment; the spec's deployment "
                "has prefill and decode pools (set their layouts there, or pass --gpu for an aggregated "
                "estimate)");
  }
  const InferenceWorkload w = with_concurrency(spec.inference, pins.concurrency);
  const EngineConfig engine = engine_config(request.inputs.engine, spec.engine, out.catalog.engines);
  out.confidence = request.confidence.get();
  out.feasible = out.estimated
                     .emplace<DisaggDeploymentResult>(
                         run_disagg_deployment(spec, out.catalog, engine, w, out.confidence, pins.headroom))
                     .verdict.feasible();
}

} // namespace

EstimateOutcome run_estimate(const EstimateRequest& request, Diagnostics& diagnostics) {
  EstimateOutcome out;
  out.spec = load_spec(request.inputs, diagnostics);
  const Spec& spec = out.spec;
  warn_unused_headroom(request.settings.headroom, spec, diagnostics);
  warn_unused_engine_flags(request.inputs.engine, spec, diagnostics);
  if (request.settings.concurrency >= 0 && spec.mode == WorkloadMode::inference &&
      spec.inference.arrival == Arrival::poisson)
    diagnostics.warn(
        "--concurrency: an open loop's requests in flight follow from its arrival rate (Little's "
        "law); it changes nothing");
  out.catalog = load_catalog(request.inputs, spec, diagnostics);
  out.engine_name = engine_name(request.inputs.engine, spec.engine);
  if (spec.disaggregated && request.gpu.empty() && spec.mode == WorkloadMode::inference) {
    estimate_pools(out, request);
    return out;
  }
  std::string gpu_id = request.gpu;
  if (gpu_id.empty() && spec.deployment) gpu_id = spec.deployment->gpu;
  if (gpu_id.empty())
    throw Error(ErrorKind::usage, "--gpu", "",
                "estimate needs a GPU: pass --gpu ID (see 'rightsize catalog list')");
  const Gpu& gpu = request.gpu.empty()
                       ? require_gpu(out.catalog.catalog, gpu_id, spec.source, "/deployment/gpu")
                       : require_gpu(out.catalog.catalog, gpu_id, "--gpu");
  EstimateSettings settings = request.settings;
  settings.gpu = gpu.id;
  settings.gpu_from_flag = !request.gpu.empty();
  settings.engine = engine_config(request.inputs.engine, spec.engine, out.catalog.engines);
  warn_overlay_engine(out.catalog, gpu.id, out.engine_name, diagnostics);
  if (spec.mode != WorkloadMode::training) settings.confidence = request.confidence.get();
  out.confidence = settings.confidence;
  const EstimateResult& result =
      out.estimated.emplace<EstimateResult>(run_estimate(spec, out.catalog, settings));
  // A training layout that does not fit cannot run, as a serving one (exit 1, docs/cli.md).
  out.feasible = result.training ? result.training->memory.fits : result.verdict.feasible();
  // One replica was judged: say so where it misses the load that more replicas would serve.
  if (!result.training && settings.gpus == 0 && !(spec.deployment && !settings.gpu_from_flag) &&
      result.verdict.first.is_load())
    diagnostics.note(fmt::format("--gpus not given: one replica ({} GPU{}) was judged; recommend, or sweep "
                                 "without gpus, sizes the replicas the load needs (give --gpus for more)",
                                 result.deployment.gpus, result.deployment.gpus == 1 ? "" : "s"));
  return out;
}

} // namespace rightsize::app
