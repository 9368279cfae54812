// One sweep point: decode its grid index, apply the fast keys to plain structs, evaluate.
// Estimate mode is the hot path and allocates nothing (docs/sweep.md "Speed").
#include <algorithm>

#include "sweep_plan.hpp"

namespace rightsize::cli {
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
    case SweepField::sla_requests_per_s: in.sla.requests_per_s = v; break;
    case SweepField::sla_output_tokens_per_s: in.sla.output_tokens_per_s = v; break;
    case SweepField::sla_budget_usd: in.sla.budget_usd = v; break;
    case SweepField::gpu: in.deployment.gpu = static_cast<std::size_t>(v); break;
    case SweepField::gpus: in.deployment.gpus = static_cast<int>(count); break;
    case SweepField::tp: in.deployment.tp = static_cast<int>(count); break;
    case SweepField::pp: in.deployment.pp = static_cast<int>(count); break;
    case SweepField::ep: in.deployment.ep = static_cast<int>(count); break;
    }
  }
  in.model = model;
}

// The same filters, in the same order, as evaluate_candidate (src/core/search.cpp), for a fixed
// deployment: throughput SLAs are checked against what it serves instead of sizing replicas.
Rejection judge(const InferenceEstimate& e, const Sla& sla, bool price_known) {
  if (!e.precision_supported) return {RejectReason::precision_unsupported, 0.0, 0.0};
  if (!e.memory.fits)
    return {RejectReason::does_not_fit, e.memory.per_gpu_bytes, e.memory.usable_per_gpu_bytes};
  if (sla.ttft_ms && e.ttft_s * 1e3 > *sla.ttft_ms) return {RejectReason::ttft, e.ttft_s * 1e3, *sla.ttft_ms};
  if (sla.tpot_ms && e.tpot_s * 1e3 > *sla.tpot_ms) return {RejectReason::tpot, e.tpot_s * 1e3, *sla.tpot_ms};
  if (sla.e2e_ms && e.e2e_s * 1e3 > *sla.e2e_ms) return {RejectReason::e2e, e.e2e_s * 1e3, *sla.e2e_ms};
  if (sla.requests_per_s && e.requests_per_s < *sla.requests_per_s) {
    return {RejectReason::throughput, e.requests_per_s, *sla.requests_per_s};
  }
  if (sla.output_tokens_per_s && e.output_tokens_per_s < *sla.output_tokens_per_s) {
    return {RejectReason::throughput, e.output_tokens_per_s, *sla.output_tokens_per_s};
  }
  if (sla.budget_usd && price_known && e.usd_per_hour > *sla.budget_usd) {
    return {RejectReason::budget, e.usd_per_hour, *sla.budget_usd};
  }
  return {};
}

void estimate_at(const SweepPlan& plan, const PointInputs& in, const Deployment& dep, PointResult& out) {
  const double price = plan.prices[out.gpu];
  out.price_known = price > 0.0;
  out.deployment = dep;
  out.estimate = estimate_inference(plan.models[in.model], in.workload, plan.gpus[out.gpu], dep,
                                    plan.policy.engine, &in.sla, out.price_known ? price : 0.0);
  out.rejection = judge(out.estimate, in.sla, out.price_known);
}

void evaluate_estimate(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  const FixedDeployment& f = in.deployment;
  if (f.gpu == k_none) {
    out.issue = PointIssue::no_gpu;
    return;
  }
  out.gpu = f.gpu;
  const ModelSpec& model = plan.models[in.model].model;
  if (f.tp > 0 || f.pp > 0) {
    Deployment dep;
    dep.tp = std::max(1, f.tp);
    dep.pp = std::max(1, f.pp);
    dep.ep = std::max(1, f.ep);
    dep.gpus = f.gpus > 0 ? f.gpus : dep.tp * dep.pp;
    if (dep.gpus % (dep.tp * dep.pp) != 0) {
      out.issue = PointIssue::layout_gpus;
      out.issue_value = dep.tp * dep.pp;
      out.issue_limit = dep.gpus;
      return;
    }
    if (model.heads > 0 && model.heads % dep.tp != 0) {
      out.issue = PointIssue::layout_heads;
      out.issue_value = dep.tp;
      out.issue_limit = model.heads;
      return;
    }
    estimate_at(plan, in, dep, out);
    return;
  }
  // No TP/PP given: the smallest replica layout that fits (and divides --gpus when given).
  bool tried = false;
  for (const Deployment& layout : plan.layouts_for(in.model, out.gpu)) {
    const int per_replica = layout.tp * layout.pp;
    if (f.gpus > 0 && f.gpus % per_replica != 0) continue;
    if (f.ep > 0 && layout.ep != f.ep) continue;
    Deployment dep = layout;
    dep.gpus = f.gpus > 0 ? f.gpus : per_replica;
    estimate_at(plan, in, dep, out);
    tried = true;
    // More GPUs cannot help a precision the GPU lacks: report it at the smallest layout.
    if (!out.estimate.precision_supported || out.estimate.memory.fits) return;
  }
  if (!tried) {
    out.issue = PointIssue::no_layout;
    out.issue_limit = f.gpus;
  }
}

void evaluate_recommend(const SweepPlan& plan, const PointInputs& in, PointResult& out) {
  // The search, restricted to the point's GPU when one is given; the best candidate, or the
  // rejected one that came closest.
  std::vector<Gpu> gpus;
  std::vector<double> prices;
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
  const std::span<const PreparedModel> models(&plan.models[in.model], 1);
  const Recommendation r = recommend(models, in.workload, in.sla, gpus, prices, plan.policy);
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
}

} // namespace

void evaluate_point(const SweepPlan& plan, std::uint64_t index, PointResult& out) {
  out.index = index;
  plan.grid.decode(index, out.digits);
  out.issue = PointIssue::none;
  out.rejection = {};
  out.estimate = {};
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
  if (plan.mode == SweepMode::estimate) {
    evaluate_estimate(plan, in, out);
  } else {
    evaluate_recommend(plan, in, out);
  }
}

} // namespace rightsize::cli
