// One sweep point: decode its grid index, apply the fast keys to plain structs, evaluate.
// Estimate mode is the hot path and allocates nothing (docs/sweep.md "Speed").
#include <algorithm>
#include <cmath>

#include "app/sweep.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/energy.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::app {
namespace {

constexpr std::size_t k_none = std::numeric_limits<std::size_t>::max();

// The point's inputs once its fast keys are applied.
struct PointInputs {
  InferenceWorkload workload;
  TrainingWorkload training;
  Sla sla;
  FixedDeployment deployment;
  std::size_t model = 0;
};

// Scales a length spread from the spec's mean to `mean` (the same lognormal shape).
void scale_spread(LengthSpread& spread, std::int64_t mean, std::int64_t spec_mean) {
  if (!spread.varies() || spec_mean <= 0) return;
  const double k = static_cast<double>(mean) / static_cast<double>(spec_mean);
  spread.p50_tokens *= k;
  spread.p99_tokens *= k;
}

void apply(const SweepPlan& plan, PointResult& out, PointInputs& in) {
  in.workload = plan.workload;
  in.training = plan.training_workload;
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
    case SweepField::input_tokens:
      // A spread keeps its shape around the new mean (methodology §3.1 "Request lengths").
      scale_spread(in.workload.input_spread, count, plan.workload.input_tokens);
      in.workload.input_tokens = count;
      break;
    case SweepField::output_tokens:
      scale_spread(in.workload.output_spread, count, plan.workload.output_tokens);
      in.workload.output_tokens = count;
      break;
    case SweepField::request_rate_per_s:
      in.workload.request_rate_per_s = v;
      if (plan.rate_follows_sla) in.sla.requests_per_s = v; // one figure, as the spec loader made it
      break;
    case SweepField::burstiness: in.workload.arrival_cv = 1.0 / std::sqrt(v); break;
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
    case SweepField::seq_len: in.training.seq_len = count; break;
    case SweepField::global_batch: in.training.global_batch = count; break;
    case SweepField::training_tokens: in.training.tokens = v; break;
    case SweepField::micro_batch: in.training.micro_batch = count; break;
    case SweepField::sla_deadline_hours: in.sla.deadline_hours = v; break;
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

// Goodput (methodology §6.1) at the band the point is judged at, an open loop at its band's slow
// end (`slow_end`, methodology §3.5): a column of every inference row.
void take_goodput(const SweepPlan& plan, const PointInputs& in, const InferenceEstimate* slow_end,
                  PointResult& out) {
  const Goodput g = goodput(out.estimate, in.sla, plan.bands_for(in.model, out.gpu), slow_end);
  out.has_goodput = g.has_targets;
  out.slo_attainment = g.slo_attainment;
  out.goodput_requests_per_s = g.requests_per_s;
}

// The same for a search's deployment, whose slow end the search did not keep: estimated at the
// deployment's arrivals, as the search judged it.
void take_goodput(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  const auto slow = slow_end_estimate(
      out.estimate, plan.models[in.model], deployment_arrivals(in.workload, in.sla), plan.gpus[out.gpu],
      out.deployment, plan.policy.engine, plan.bands_for(in.model, out.gpu).tpot_high);
  take_goodput(plan, in, slow ? &*slow : nullptr, out);
}

// A fixed deployment, judged as a whole: its replicas serve the load (core::judge).
// `made`: the layout search's estimate of `dep` when check_fit made it (a given concurrency, where
// the SLA picks no batch: the same estimate).
void estimate_at(const SweepPlan& plan, const PointInputs& in, const Deployment& dep,
                 const std::optional<InferenceEstimate>& made, PointResult& out) {
  const GpuPrice& price = plan.prices[out.gpu];
  const BandFactors& bands = plan.bands_for(in.model, out.gpu);
  out.price_known = price.usd_per_gpu_hour > 0.0;
  out.deployment = dep;
  if (made) {
    out.estimate = *made;
  } else {
    const Sla auto_sla = auto_concurrency_sla(in.sla, bands); // judged end of the band
    out.estimate = estimate_inference(plan.models[in.model], in.workload, plan.gpus[out.gpu], dep,
                                      plan.policy.engine, &auto_sla, price);
  }
  JudgeRules rules;
  rules.bands = bands;
  rules.price_known = out.price_known;
  rules.load_headroom = plan.policy.throughput_headroom;
  if (plan.policy.max_power_kw > 0.0) {
    const CandidateEnergy energy =
        deployment_energy(out.estimate, dep.gpus, plan.gpus[out.gpu], in.sla, PowerModel{});
    apply_power_cap(rules, plan.policy, energy.power_watts);
  }
  // An open loop's latencies at its band's slow end (methodology §3.5).
  const auto slow = slow_end_estimate(out.estimate, plan.models[in.model], in.workload, plan.gpus[out.gpu],
                                      dep, plan.policy.engine, bands.tpot_high);
  rules.slow_end = slow ? &*slow : nullptr;
  out.rejection = judge(out.estimate, in.sla, rules).first;
  out.at_load = cost_at_load(out.estimate, in.sla, in.workload);
  take_goodput(plan, in, rules.slow_end, out); // the slow end judged above, not estimated again
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
  take_goodput(plan, in, out);
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
  // Estimated next unless sized for the load: the search keeps its estimate of the layout it returns.
  const LayoutChoice choice = fit_layout(model, in.workload, plan.gpus[out.gpu], request, plan.policy.engine,
                                         size_for_load ? nullptr : &plan.prices[out.gpu]);
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
  estimate_at(plan, in, choice.deployment, choice.estimate, out);
}

// The GPU types one recommend-mode point searches: the plan's search GPUs, restricted to the point's
// GPU when it has one (that GPU alone when the search list lacks it), with their prices and the
// policy charging each its price margin as recommend ranks (methodology §5.2).
struct PointSearch {
  std::vector<Gpu> gpus;
  std::vector<GpuPrice> prices;
  std::vector<std::size_t> catalog_index;
  SearchPolicy policy;
};

PointSearch point_search(const SweepPlan& plan, std::size_t gpu) {
  PointSearch s;
  for (const std::size_t g : plan.search_gpus) {
    if (gpu != k_none && g != gpu) continue;
    s.catalog_index.push_back(g);
  }
  if (gpu != k_none && s.catalog_index.empty()) s.catalog_index.push_back(gpu);
  s.policy = plan.search_policy();
  for (const std::size_t g : s.catalog_index) {
    s.gpus.push_back(plan.gpus[g]);
    s.prices.push_back(plan.prices[g]);
    if (!plan.price_margins.empty()) s.policy.price_margins.push_back(plan.price_margins[g]);
  }
  return s;
}

// A search's winner, else its closest miss; none (the point's issue no_layout) when it tried nothing.
template <typename Result> auto best_or_closest(const Result& r, PointResult& out) {
  const auto* best = !r.candidates.empty() ? &r.candidates.front()
                     : !r.rejected.empty() ? &r.rejected.front()
                                           : nullptr;
  if (best == nullptr) out.issue = PointIssue::no_layout;
  return best;
}

void evaluate_recommend(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  // The search, restricted to the point's GPU when one is given; the best candidate, or the
  // rejected one that came closest.
  const PointSearch search = point_search(plan, in.deployment.gpu);
  const std::vector<std::size_t>& catalog_index = search.catalog_index;
  const std::span<const PreparedModel> models(&plan.models[in.model], 1);
  const Recommendation r = recommend(models, in.workload, in.sla, search.gpus,
                                     std::span<const GpuPrice>(search.prices), search.policy);
  const Candidate* best = best_or_closest(r, out);
  if (best == nullptr) return;
  out.gpu = catalog_index[best->gpu_index];
  out.deployment = best->layout;
  out.deployment.gpus = best->total_gpus();
  out.estimate = best->estimate;
  out.rejection = best->rejection;
  out.price_known = best->price_known;
  out.at_load = {best->served_requests_per_s, best->served_output_tokens_per_s, best->usd_per_request_at_load,
                 best->usd_per_million_output_tokens_at_load};
  take_goodput(plan, in, out);
}

// A training run's figures into the point: its GPUs and layout degrees as the deployment too, which
// the mode-independent readers (the deployment.gpus figure) take.
void take_training(const TrainingCandidate& c, std::size_t gpu, PointResult& out) {
  out.gpu = gpu;
  out.training = c.estimate;
  out.throughput_low = c.throughput_low;
  out.rejection = c.rejection;
  out.price_known = c.price_known;
  out.deployment.gpus = c.estimate.gpus;
  out.deployment.tp = c.estimate.layout.tp;
  out.deployment.pp = c.estimate.layout.pp;
  out.deployment.ep = c.estimate.layout.ep;
}

// A training spec's point (docs/sweep.md "Training specs"): estimate mode runs the layout search of
// check and recommend on the point's GPU count (pinned degrees kept); recommend mode the training
// search over the point's GPU types, keeping the winner or the closest miss. Judged as they judge it.
void evaluate_training_point(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  const PreparedModel& model = plan.models[in.model];
  const FixedDeployment& f = in.deployment;
  // The spec loader's rule (io parse_training): a micro-batch holds at most the global batch.
  if (in.training.micro_batch > in.training.global_batch) {
    out.issue = PointIssue::micro_batch;
    out.issue_value = in.training.micro_batch;
    out.issue_limit = in.training.global_batch;
    return;
  }
  if (moe_layout_on_dense(model.model, f.ep, 0)) { // estimate's and check's rule
    out.issue = PointIssue::layout_dense;
    out.issue_value = f.ep;
    out.issue_limit = 0; // 0: ep (the point result is reused: say it)
    return;
  }
  if (plan.mode == SweepMode::estimate) {
    if (f.gpu == k_none) {
      out.issue = PointIssue::no_gpu;
      return;
    }
    LayoutPins pins;
    pins.tp = f.tp;
    pins.pp = f.pp;
    pins.ep = f.ep;
    TrainingCandidate c;
    c.price_known = plan.prices[f.gpu].usd_per_gpu_hour > 0.0;
    c.estimate = search_training_layout(model, in.training, plan.gpus[f.gpu], f.gpus, pins, TrainingConfig{},
                                        plan.prices[f.gpu]);
    c.throughput_low = plan.training_low_for(in.model, f.gpu);
    c.rejection = judge(c.estimate, in.sla, c.price_known, c.throughput_low).first;
    take_training(c, f.gpu, out);
    return;
  }
  const PointSearch search = point_search(plan, f.gpu);
  const TrainingRecommendation r = recommend_training(model, in.training, in.sla, search.gpus, search.prices,
                                                      search.policy, TrainingConfig{});
  const TrainingCandidate* best = best_or_closest(r, out);
  if (best == nullptr) return;
  take_training(*best, search.catalog_index[best->gpu_index], out);
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
  if (plan.training) {
    out.training = {}; // only a training plan's points carry one (the serving hot path skips it)
    out.throughput_low = 1.0;
    evaluate_training_point(plan, in, out);
    return;
  }
  // The spec reader's rules (io reject_beyond_context): max_context and the model's window hold the
  // longest request the point describes (its p99 lengths where they vary); no engine serves past them.
  const InferenceWorkload& w = in.workload;
  const std::int64_t longest = w.longest_request().tokens();
  if (w.max_context > 0 && w.max_context < longest) {
    out.issue = PointIssue::max_context;
    out.issue_value = w.max_context;
    out.issue_limit = longest;
    return;
  }
  const std::int64_t window = plan.models[in.model].model.max_position;
  if (window > 0 && std::max(w.context_tokens(), longest) > window) {
    out.issue = PointIssue::context_window;
    out.issue_value = std::max(w.context_tokens(), longest);
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
  plan.training_lows.clear();
  const Calibration* calibration = plan.calibrated ? &plan.calibration : nullptr;
  for (const PreparedModel& model : plan.models) {
    const std::string model_class = model_class_of(model.model);
    for (const Gpu& gpu : plan.gpus) {
      // A serving plan's points read the band factors, a training plan's the throughput lows.
      plan.bands.push_back(plan.training
                               ? BandFactors{}
                               : band_factors(calibration, plan.policy.confidence, gpu.id, model_class,
                                              serving_reach(calibration, gpu, model.model)));
      plan.training_lows.push_back(plan.training
                                       ? training_throughput_low(calibration, plan.policy.confidence, gpu.id,
                                                                 model_class, gpu.training_reach)
                                       : 1.0);
      const bool layouts = plan.mode == SweepMode::estimate && !plan.training;
      plan.layouts.push_back(layouts ? replica_layouts(model.model, gpu, plan.policy)
                                     : std::vector<Deployment>{});
    }
  }
}

} // namespace rightsize::app
