// One sweep point: decode its grid index, apply the fast keys to plain structs, evaluate.
// Estimate mode is the hot path and allocates nothing (docs/sweep.md "Speed").
#include <algorithm>

#include "app/sweep.hpp"
#include "rightsize/energy.hpp"

namespace rightsize::app {
namespace {

constexpr std::size_t k_none = std::numeric_limits<std::size_t>::max();

// The point's inputs once its fast keys are applied.
struct PointInputs {
  InferenceWorkload workload;
  Sla sla;
  FixedDeployment deployment;
  std::size_t model = 0;
};

void apply(const SweepPlan& plan, PointResult& out, PointInputs& in) {
  in.workload = plan.workload;
  in.sla = plan.sla;
  in.deployment = plan.fixed;
  std::size_t model = 0;
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    const SweepAxis& axis = plan.axes[a];
    const std::size_t digit = out.digits[a];
    if (axis.key->field == SweepField::model_json) {
      model = model * axis.values.texts.size() + digit;
      continue;
    }
    const double v = axis.numbers[digit];
    const auto count = static_cast<std::int64_t>(v);
    switch (axis.key->field) {
    case SweepField::model_json: break;
    case SweepField::input_tokens: in.workload.input_tokens = count; break;
    case SweepField::output_tokens: in.workload.output_tokens = count; break;
    case SweepField::concurrency: in.workload.concurrency = count; break;
    case SweepField::max_context: in.workload.max_context = count; break;
    case SweepField::sla_ttft_ms: in.sla.ttft_ms = v; break;
    case SweepField::sla_tpot_ms: in.sla.tpot_ms = v; break;
    case SweepField::sla_e2e_ms: in.sla.e2e_ms = v; break;
    case SweepField::sla_requests_per_s:
      in.sla.requests_per_s = v;
      if (plan.rate_follows_sla) in.workload.request_rate_per_s = v;
      break;
    case SweepField::sla_output_tokens_per_s: in.sla.output_tokens_per_s = v; break;
    case SweepField::sla_budget_usd: in.sla.budget_usd = v; break;
    case SweepField::gpu: in.deployment.gpu = static_cast<std::size_t>(v); break;
    case SweepField::gpus: in.deployment.gpus = static_cast<int>(count); break;
    case SweepField::tp: in.deployment.tp = static_cast<int>(count); break;
    case SweepField::pp: in.deployment.pp = static_cast<int>(count); break;
    case SweepField::ep: in.deployment.ep = static_cast<int>(count); break;
    case SweepField::attention_dp: in.deployment.attention_dp = static_cast<int>(count); break;
    }
  }
  in.model = model;
  // A vision-language model's images stay in the prompt: an input_tokens axis gives the text tokens
  // (methodology §1.6).
  for (const SweepAxis& axis : plan.axes) {
    if (axis.key->field == SweepField::input_tokens)
      in.workload.input_tokens += plan.models[model].vision_image_tokens_per_request;
  }
}

// A fixed deployment, judged as a whole: its replicas serve the load (core::judge).
void estimate_at(const SweepPlan& plan, const PointInputs& in, const Deployment& dep, PointResult& out) {
  const GpuPrice& price = plan.prices[out.gpu];
  const BandFactors& bands = plan.bands_for(in.model, out.gpu);
  out.price_known = price.usd_per_gpu_hour > 0.0;
  out.deployment = dep;
  const Sla auto_sla = auto_concurrency_sla(in.sla, bands); // judged end of the band
  out.estimate = estimate_inference(plan.models[in.model], in.workload, plan.gpus[out.gpu], dep,
                                    plan.policy.engine, &auto_sla, price);
  JudgeRules rules;
  rules.bands = bands;
  rules.price_known = out.price_known;
  rules.load_headroom = plan.policy.throughput_headroom;
  if (plan.policy.max_power_kw > 0.0) {
    const CandidateEnergy energy =
        deployment_energy(out.estimate, dep.gpus, plan.gpus[out.gpu], in.sla, PowerModel{});
    apply_power_cap(rules, plan.policy, energy.power_watts);
  }
  out.rejection = judge(out.estimate, in.sla, rules).first;
  out.at_load = cost_at_load(out.estimate, in.sla, in.workload);
}

// No GPU count given and a load to serve: replicas sized as recommend sizes them
// (core::evaluate_candidate on the layout fit_layout chose).
void size_replicas(const SweepPlan& plan, const PointInputs& in, const Deployment& replica,
                   PointResult& out) {
  const GpuPrice& price = plan.prices[out.gpu];
  const Candidate c = evaluate_candidate(plan.models[in.model], in.workload, in.sla, plan.gpus[out.gpu],
                                         replica, price, plan.policy, plan.bands_for(in.model, out.gpu));
  out.price_known = c.price_known;
  out.deployment = c.layout;
  out.deployment.gpus = c.total_gpus();
  out.estimate = c.estimate;
  out.rejection = c.rejection;
  out.at_load = {c.served_requests_per_s, c.served_output_tokens_per_s, c.usd_per_request_at_load,
                 c.usd_per_million_output_tokens_at_load};
}

void evaluate_estimate(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  const FixedDeployment& f = in.deployment;
  if (f.gpu == k_none) {
    out.issue = PointIssue::no_gpu;
    return;
  }
  out.gpu = f.gpu;
  const PreparedModel& model = plan.models[in.model];
  // Expert parallelism and the attention DP that pairs with it need experts: estimate's and check's
  // rule (core moe_layout_on_dense), per point since the model may be an axis.
  if (moe_layout_on_dense(model.model, f.ep, f.attention_dp)) {
    out.issue = PointIssue::layout_dense;
    out.issue_value = f.ep > 1 ? f.ep : f.attention_dp;
    out.issue_limit = f.ep > 1 ? 0 : 1; // 0: ep, 1: attention_dp
    return;
  }
  // The one layout rule (core::fit_layout): pinned degrees kept, else the smallest replica that fits.
  LayoutRequest request;
  request.tp = f.tp;
  request.pp = f.pp;
  request.ep = f.ep;
  request.attention_dp = f.attention_dp;
  // No count given: one replica, the smallest that fits within the search limits.
  request.gpus = f.gpus > 0 ? f.gpus : 0;
  request.max_gpus_per_replica = plan.policy.max_gpus_per_replica;
  request.max_nodes = plan.policy.max_nodes;
  const bool size_for_load = f.gpus == 0 && (in.sla.requests_per_s || in.sla.output_tokens_per_s);
  const LayoutChoice choice = fit_layout(model, in.workload, plan.gpus[out.gpu], request, plan.policy.engine);
  if (choice.issue == LayoutIssue::gpus_not_divisible) {
    out.issue = f.tp > 0 || f.pp > 0 ? PointIssue::layout_gpus : PointIssue::no_layout;
    out.issue_value = choice.deployment.gpus_per_replica();
    out.issue_limit = request.gpus;
    return;
  }
  if (choice.issue == LayoutIssue::ep_exceeds_replica || choice.issue == LayoutIssue::ep_unplaceable) {
    out.issue = PointIssue::layout_ep;
    out.issue_value = choice.deployment.ep;
    // The pinned replica's GPUs it exceeds; 0: no replica's TP group or ranks span it.
    out.issue_limit =
        choice.issue == LayoutIssue::ep_exceeds_replica ? choice.deployment.gpus_per_replica() : 0;
    return;
  }
  if (choice.issue == LayoutIssue::runs_whole) {
    out.issue = PointIssue::layout_whole;
    out.issue_value = choice.deployment.gpus_per_replica();
    return;
  }
  if (choice.issue == LayoutIssue::heads_not_divisible) {
    out.issue = PointIssue::layout_heads;
    out.issue_value = choice.deployment.tp;
    out.issue_limit = model.model.heads;
    return;
  }
  if (size_for_load && choice.fits) {
    Deployment replica = choice.deployment;
    replica.gpus = replica.gpus_per_replica();
    size_replicas(plan, in, replica, out);
    return;
  }
  estimate_at(plan, in, choice.deployment, out);
}

void evaluate_recommend(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  // The search, restricted to the point's GPU when one is given; the best candidate, or the
  // rejected one that came closest.
  std::vector<Gpu> gpus;
  std::vector<GpuPrice> prices;
  std::vector<std::size_t> catalog_index;
  for (const std::size_t g : plan.search_gpus) {
    if (in.deployment.gpu != k_none && g != in.deployment.gpu) continue;
    gpus.push_back(plan.gpus[g]);
    prices.push_back(plan.prices[g]);
    catalog_index.push_back(g);
  }
  if (in.deployment.gpu != k_none && gpus.empty()) {
    gpus.push_back(plan.gpus[in.deployment.gpu]);
    prices.push_back(plan.prices[in.deployment.gpu]);
    catalog_index.push_back(in.deployment.gpu);
  }
  SearchPolicy policy = plan.search_policy();
  if (!plan.price_margins.empty()) {
    policy.price_margins.reserve(catalog_index.size());
    for (const std::size_t g : catalog_index)
      policy.price_margins.push_back(plan.price_margins[g]); // ranked as recommend ranks
  }
  const std::span<const PreparedModel> models(&plan.models[in.model], 1);
  const Recommendation r =
      recommend(models, in.workload, in.sla, gpus, std::span<const GpuPrice>(prices), policy);
  const Candidate* best = !r.candidates.empty() ? &r.candidates.front()
                          : !r.rejected.empty() ? &r.rejected.front()
                                                : nullptr;
  if (best == nullptr) {
    out.issue = PointIssue::no_layout;
    return;
  }
  out.gpu = catalog_index[best->gpu_index];
  out.deployment = best->layout;
  out.deployment.gpus = best->total_gpus();
  out.estimate = best->estimate;
  out.rejection = best->rejection;
  out.price_known = best->price_known;
  out.at_load = {best->served_requests_per_s, best->served_output_tokens_per_s, best->usd_per_request_at_load,
                 best->usd_per_million_output_tokens_at_load};
}

} // namespace

void evaluate_point(const SweepPlan& plan, std::uint64_t index, PointResult& out) {
  out.index = index;
  plan.grid.decode(index, out.digits);
  out.issue = PointIssue::none;
  out.rejection = {};
  out.estimate = {};
  out.at_load = {};
  out.deployment = {};
  out.price_known = false;
  out.gpu = 0;
  PointInputs in;
  apply(plan, out, in);
  out.model = in.model;
  const InferenceWorkload& w = in.workload;
  if (w.max_context > 0 && w.max_context < w.input_tokens + w.output_tokens) {
    out.issue = PointIssue::max_context;
    out.issue_value = w.max_context;
    out.issue_limit = w.input_tokens + w.output_tokens;
    return;
  }
  // The spec reader's rule (io reject_beyond_context_window): no engine serves past the window.
  const std::int64_t window = plan.models[in.model].model.max_position;
  if (window > 0 && w.context_tokens() > window) {
    out.issue = PointIssue::context_window;
    out.issue_value = w.context_tokens();
    out.issue_limit = window;
    return;
  }
  if (plan.mode == SweepMode::estimate) {
    evaluate_estimate(plan, in, out);
  } else {
    evaluate_recommend(plan, in, out);
  }
}

void finish_plan(SweepPlan& plan) {
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> model_sizes;
  plan.model_axes.clear();
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    sizes.push_back(plan.axes[a].values.texts.size());
    if (plan.axes[a].key->field == SweepField::model_json) {
      plan.model_axes.push_back(a);
      model_sizes.push_back(sizes.back());
    }
  }
  plan.grid = GridShape(sizes);
  plan.model_grid = GridShape(model_sizes);
  if (plan.search_gpus.empty()) {
    // The whole catalog, as recommend searches it: consumer parts only when named (docs/catalog.md).
    for (std::size_t g = 0; g < plan.gpus.size(); ++g)
      if (searched_by_default(plan.gpus[g].gpu_class, false)) plan.search_gpus.push_back(g);
  }
  plan.layouts.clear();
  plan.bands.clear();
  for (const PreparedModel& model : plan.models) {
    const std::string model_class = model_class_of(model.model);
    for (const Gpu& gpu : plan.gpus) {
      plan.bands.push_back(band_factors(plan.calibrated ? &plan.calibration : nullptr, plan.policy.confidence,
                                        gpu.id, model_class, gpu.reach));
      plan.layouts.push_back(plan.mode == SweepMode::estimate ? replica_layouts(model.model, gpu, plan.policy)
                                                              : std::vector<Deployment>{});
    }
  }
}

} // namespace rightsize::app
