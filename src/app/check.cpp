#include "app/check.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::app {

namespace {

bool check_pins_layout(const DeploymentSpec& want) {
  return want.tp > 0 || want.pp > 0 || want.ep > 0 || want.attention_dp > 0;
}

// The deployment's replica layout: the pins kept by the one layout rule (core::fit_layout), else the
// layout recommend's search restricted to the GPU type ranks best on its GPU count
// (core::layout_for_count over `same`). A layout that cannot be formed is a usage error.
LayoutChoice check_layout_choice(CheckResult& res, const Spec& spec, const CheckSettings& request,
                                 const Recommendation& same) {
  const DeploymentSpec& want = request.deployment;
  const Gpu& gpu = res.current_in.gpus.front();
  const PreparedModel& pm = res.current_in.models.front();
  LayoutChoice choice;
  if (check_pins_layout(want)) {
    reject_moe_layout_on_dense(pm.model, want.ep, want.attention_dp);
    LayoutRequest layout_request{want.gpus, want.tp, want.pp, want.ep};
    layout_request.attention_dp = want.attention_dp;
    choice = fit_layout(pm, spec.inference, gpu, layout_request, res.policy.engine);
  } else {
    const CountLayout counted =
        layout_for_count(same, pm, spec.inference, spec.sla, gpu, res.current_in.gpu_prices.front(),
                         res.same_policy, want.gpus);
    choice = counted.choice;
    res.layout_basis = counted.basis;
    res.layout_rank = counted.rank;
  }
  if (choice.issue == LayoutIssue::runs_whole) {
    throw Error(ErrorKind::usage, "--deployment", "",
                fmt::format("{} is a UNet, served whole on one GPU per replica (methodology §3.7): expected "
                            "TP1 replicas, got TP{} × PP{}",
                            pm.model.name, choice.deployment.tp, choice.deployment.pp));
  }
  reject_ep_layout(choice, gpu, EpOrigin{request.ep_from_spec, spec.source});
  if (choice.issue != LayoutIssue::none) {
    throw Error(
        ErrorKind::usage, "--deployment", "",
        fmt::format("{} × {} cannot be split into replicas of TP{} × PP{} that divide the GPUs and the "
                    "model's {} heads",
                    want.gpus, gpu.id, choice.deployment.tp, choice.deployment.pp, pm.model.heads));
  }
  return choice;
}

// Cost in what recommend ranks by (core::rank_key): per 1M output tokens served, per item for an item
// model; the deployment's own over its whole load (current_at_load).
double check_reference_cost(const CheckResult& res, RankBy by) {
  if (res.meets && res.current.price_known) {
    return by == RankBy::cost_per_request ? res.current_at_load.usd_per_request
                                          : res.current_at_load.usd_per_million_output_tokens;
  }
  if (!res.meets && res.would_pass) return rank_key(*res.would_pass, by);
  return 0.0;
}

// The saving of `option` over `reference_cost` when it is cheaper (under half a percent is the same
// cost: the two estimates round differently); 0 otherwise.
double check_saving(const Candidate& option, double reference_cost, RankBy by) {
  if (reference_cost <= 0.0 || !std::isfinite(reference_cost)) return 0.0;
  const double cost = rank_key(option, by);
  return cost < 0.995 * reference_cost ? 1.0 - cost / reference_cost : 0.0;
}

// The cheaper options and the over-provisioning verdict. Cheaper in what recommend ranks by, against
// the deployment as given when it meets the SLA, else against what would pass on its GPU type (two
// deployments that both serve the load): with an SLA load both serve it and the ratio is that of $/h;
// without one each serves its capacity, and a second replica at the same cost per token saves nothing.
// Over-provisioned is judged within the deployment's GPU type, the one thing --deployment fixes: a
// cheaper deployment of it meets the same SLA, saving more than --max-overspend per token and per hour
// (without an SLA load a smaller, less efficient one is cheaper per hour and is only shown). A cheaper
// GPU type is a note, not a failure.
void check_cheaper_options(CheckResult& res, const Recommendation& same, const Recommendation& all,
                           const CheckSettings& request, const LoadedCatalog& catalog,
                           const std::vector<double>& margins) {
  const RankBy by = effective_rank_by(RankBy::cost_per_token, res.current_in.models.front().model.kind);
  const double reference_cost = check_reference_cost(res, by);
  if (res.meets && !same.candidates.empty()) {
    const Candidate& best = same.candidates.front();
    res.same_gpu_saving = check_saving(best, reference_cost, by);
    if (res.same_gpu_saving > 0.0) res.cheaper_same_gpu = best;
  }
  if (!all.candidates.empty()) {
    // `all` was ranked as recommend ranks (each cost charged its price's margin): the alternative is
    // cheaper when it stays so with both prices charged theirs; the saving shown is on quoted prices.
    const Candidate& best = all.candidates.front();
    const double best_margin = margins.empty() ? 0.0 : margins[best.gpu_index];
    const std::vector<double> own =
        price_margins(catalog, res.current_in.gpus, request.confidence, request.today_days);
    const double own_margin = own.empty() ? 0.0 : own.front();
    const bool ranked_cheaper =
        check_saving(best, reference_cost * (1.0 + own_margin) / (1.0 + best_margin), by) > 0.0;
    res.saving = ranked_cheaper ? check_saving(best, reference_cost, by) : 0.0;
    if (res.saving > 0.0 || (!res.meets && !res.would_pass)) res.cheaper = best; // nothing of its type passes
    res.cheaper_price_margin = best_margin;
    res.cheaper_price_age_days = price_age_days(res.compared_in.prices[best.gpu_index], request.today_days);
  }
  const std::string& gpu_id = res.current_in.gpus.front().id;
  res.cheaper_other_gpu =
      res.meets && res.cheaper && res.compared_in.gpus[res.cheaper->gpu_index].id != gpu_id;
  res.over_provisioned = res.meets && res.cheaper_same_gpu && res.same_gpu_saving > request.max_overspend &&
                         res.cheaper_same_gpu->estimate.usd_per_hour < res.current.estimate.usd_per_hour;
  res.pass = res.meets && !res.over_provisioned;
}

} // namespace

CheckResult run_check(const Spec& spec, const LoadedCatalog& catalog, const CheckSettings& request) {
  const DeploymentSpec& want = request.deployment;
  CheckResult res;
  SearchPolicy& policy = res.policy;
  policy.engine = request.engine;
  policy.max_gpus_per_replica = std::max(want.gpus, spec.constraints.max_gpus_per_replica);
  policy.max_nodes = spec.constraints.max_nodes;
  policy.confidence = request.confidence;
  policy.calibration = band_calibration(catalog);
  policy.max_power_kw = spec.constraints.max_power_kw;
  policy.throughput_headroom = throughput_headroom(request.headroom);

  res.current_in = search_inputs(spec, catalog, {want.gpu}, "");
  const Gpu& gpu = res.current_in.gpus.front();
  const PreparedModel& pm = res.current_in.models.front();
  const GpuPrice& price = res.current_in.gpu_prices.front();
  // recommend's search restricted to the deployment's GPU type, under recommend's limits: the layout
  // of an unpinned GPU count, what would pass, the cheapest of the type. An unpriced GPU has no
  // cheapest deployment: the fewest GPUs rank first instead (a cost ranking without prices has no
  // winner, core::recommend).
  res.same_policy = policy;
  res.same_policy.max_gpus_per_replica = spec.constraints.max_gpus_per_replica;
  if (price.usd_per_gpu_hour <= 0.0) res.same_policy.rank_by = RankBy::gpus;
  const SearchInputs& same_in = res.current_in;
  const Recommendation same =
      recommend(same_in.models, spec.inference, spec.sla, same_in.gpus, same_in.gpu_prices, res.same_policy);

  res.same_gpu_passes = !same.candidates.empty();
  const LayoutChoice choice = check_layout_choice(res, spec, request, same);
  res.layout = choice.deployment;
  res.gpus = want.gpus;
  res.replicas = want.gpus / choice.deployment.gpus_per_replica();
  const BandFactors bands =
      band_factors(policy.calibration, policy.confidence, gpu.id, model_class_of(pm.model),
                   serving_reach(policy.calibration, gpu, pm.model));
  // The deployment as given, judged by core (load, budget and constraints.max_power_kw included).
  res.current = judge_deployment(pm, spec.inference, spec.sla, gpu, choice.deployment, price, policy, bands);
  res.verdict = res.current.verdict;
  res.meets = res.verdict.passes();
  res.current_at_load = cost_at_load(res.current.estimate, spec.sla, spec.inference);
  res.current_bands =
      candidate_bands(catalog, res.current_in, res.current, spec.sla, spec.inference, policy.engine);
  if (res.verdict.feasible()) {
    // As estimate's: at the verdict's end of the band, an open loop's slow end (methodology §3.5).
    const auto slow =
        slow_end_estimate(res.current.estimate, pm, deployment_arrivals(spec.inference, spec.sla), gpu,
                          choice.deployment, policy.engine, bands.tpot_high);
    res.goodput = goodput(res.current.estimate, spec.sla, bands, slow ? &*slow : nullptr);
  }
  if (!res.meets && !same.candidates.empty()) res.would_pass = same.candidates.front();

  // The alternatives: --gpu, else the spec's constraints.gpus, else the whole catalog.
  res.compared_in = search_inputs(spec, catalog, request.alternatives, "");
  for (const Gpu& g : res.compared_in.gpus)
    res.compared.push_back(g.id);
  const SearchInputs& all = res.compared_in;
  SearchPolicy ranked = policy; // the alternatives ranked as recommend ranks them (methodology §5.2)
  ranked.price_margins = price_margins(catalog, all.gpus, policy.confidence, request.today_days);
  const Recommendation r = recommend(all.models, spec.inference, spec.sla, all.gpus, all.gpu_prices, ranked);
  check_cheaper_options(res, same, r, request, catalog, ranked.price_margins);
  if (request.artifact && res.meets)
    res.artifact = plan_artifact(*request.artifact, spec, res.current_in, res.current, res.policy,
                                 catalog.pricing, catalog.engines, 0);
  return res;
}

namespace {

// The deployment to check: --deployment, else the spec's, with the layout flags over it.
DeploymentSpec wanted_deployment(const CheckRequest& request, const Spec& spec) {
  DeploymentSpec want;
  if (request.deployment) {
    want = *request.deployment;
  } else if (spec.deployment) {
    want = *spec.deployment;
  } else {
    throw Error(ErrorKind::usage, "--deployment", "",
                "check needs a deployment: --deployment 2xL40S or \"deployment\" in the spec");
  }
  if (request.tp > 0) want.tp = request.tp;
  if (request.pp > 0) want.pp = request.pp;
  if (request.ep > 0) want.ep = request.ep;
  if (request.attention_dp > 0) want.attention_dp = request.attention_dp;
  return want;
}

// Separate prefill and decode pools (methodology §3.6): judged as one deployment by core::judge.
void check_pools(CheckOutcome& out, const CheckRequest& request, const EngineSetup& engine,
                 Diagnostics& diagnostics) {
  const Spec& spec = out.spec;
  if (request.settings.artifact)
    throw Error(ErrorKind::usage, "--emit", "",
                "expected an aggregated deployment: a disaggregated one has a prefill and a decode pool, "
                "which --emit does not write yet");
  if (request.tp > 0 || request.pp > 0 || request.ep > 0 || request.attention_dp > 0) {
    const char* flag = request.tp > 0   ? "--tp"
                       : request.pp > 0 ? "--pp"
                       : request.ep > 0 ? "--ep"
                                        : "--attention-dp";
    throw Error(ErrorKind::usage, flag, "",
                "--tp/--pp/--ep/--attention-dp set an aggregated replica; the spec's deployment has "
                "prefill and decode pools");
  }
  out.catalog = load_catalog(request.inputs, spec, diagnostics);
  auto& pools = out.checked.emplace<DisaggDeploymentResult>(
      run_disagg_deployment(spec, out.catalog, engine_config(engine, spec.engine, out.catalog.engines),
                            spec.inference, request.settings.confidence, request.settings.headroom));
  out.pass = pools.verdict.passes();
}

// A training run (issue 43 item 6): its GPU type and count with the layout flags over them.
void check_training(CheckOutcome& out, const CheckRequest& request, Diagnostics& diagnostics) {
  const Spec& spec = out.spec;
  if (request.settings.artifact)
    throw Error(ErrorKind::usage, "--emit", "",
                "expected an inference spec: check --emit writes serving artifacts; for a training run use "
                "'rightsize recommend SPEC --emit torchrun'");
  if (!request.settings.alternatives.empty())
    throw Error(ErrorKind::usage, "--gpu", "",
                "expected no --gpu for a training spec: its check compares runs of the deployment's own GPU "
                "type only (rightsize recommend SPEC --gpu A,B compares GPU types)");
  DeploymentSpec want = wanted_deployment(request, spec);
  out.catalog = load_catalog(request.inputs, spec, diagnostics);
  const Gpu& gpu = request.deployment
                       ? require_gpu(out.catalog.catalog, want.gpu, "--deployment")
                       : require_gpu(out.catalog.catalog, want.gpu, spec.source, "/deployment/gpu");
  want.gpu = gpu.id;
  warn_unused_headroom(request.settings.headroom, spec, diagnostics);
  warn_unused_engine_flags(request.inputs.engine, spec, diagnostics);
  out.max_overspend = request.settings.max_overspend;
  out.pass = out.checked
                 .emplace<TrainingCheckResult>(run_training_check(
                     spec, out.catalog, want, request.settings.confidence, request.settings.max_overspend))
                 .pass;
}

} // namespace

CheckOutcome run_check(const CheckRequest& request, Diagnostics& diagnostics) {
  CheckOutcome out;
  out.spec = load_spec(request.inputs, diagnostics);
  const Spec& spec = out.spec;
  if (spec.mode == WorkloadMode::training) {
    check_training(out, request, diagnostics);
    return out;
  }
  CheckSettings settings = request.settings;
  settings.today_days = request.inputs.environment.today.get();
  check_artifact_mode(settings.artifact, spec);
  const EngineSetup engine =
      emit_engine_setup(settings.artifact ? settings.artifact->kind : "", request.inputs.engine, spec);
  out.engine_name = engine_name(engine, spec.engine);
  out.confidence = settings.confidence;
  out.max_overspend = settings.max_overspend;
  if (spec.disaggregated && !request.deployment) {
    check_pools(out, request, engine, diagnostics);
    return out;
  }
  settings.deployment = wanted_deployment(request, spec);
  out.catalog = load_catalog(request.inputs, spec, diagnostics);
  const Gpu& gpu =
      request.deployment
          ? require_gpu(out.catalog.catalog, settings.deployment.gpu, "--deployment")
          : require_gpu(out.catalog.catalog, settings.deployment.gpu, spec.source, "/deployment/gpu");
  settings.ep_from_spec = !request.deployment && request.ep == 0 && settings.deployment.ep > 0;
  settings.deployment.gpu = gpu.id;
  settings.engine = engine_config(engine, spec.engine, out.catalog.engines);
  warn_overlay_engine(out.catalog, gpu.id, out.engine_name, diagnostics);
  if (settings.artifact) settings.artifact->engine = out.engine_name; // --emit k8s runs the engine assumed
  out.pass = out.checked.emplace<CheckResult>(run_check(spec, out.catalog, settings)).pass;
  return out;
}

} // namespace rightsize::app
