#include "app/disagg_deployment.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::app {
namespace {

struct ResolvedPool {
  PoolDeployment pool;
  bool price_known = false;
};

ResolvedPool resolve_pool(const Spec& spec, const LoadedCatalog& catalog, const PoolSpec& p,
                          const char* name) {
  const std::string where = fmt::format("/deployment/{}", name);
  const Gpu& gpu = require_gpu(catalog.catalog, p.gpu, spec.source, where + "/gpu");
  if (p.tp > 1 && spec.model.heads > 0 && spec.model.heads % p.tp != 0) {
    throw Error(ErrorKind::input, spec.source, where + "/tp",
                fmt::format("expected a TP degree dividing the model's {} attention heads, got {}",
                            spec.model.heads, p.tp));
  }
  ResolvedPool r;
  r.pool.gpu = &gpu;
  r.pool.layout.tp = p.tp;
  r.pool.layout.pp = p.pp;
  r.pool.layout.ep = p.ep;
  r.pool.layout.attention_dp = p.attention_dp;
  r.pool.layout.gpus = r.pool.layout.gpus_per_replica();
  r.pool.workers = p.workers;
  const ResolvedPrice& price = price_of(catalog, gpu);
  r.price_known = price.known;
  r.pool.price = gpu_price(price);
  if (!price.known) r.pool.price.usd_per_gpu_hour = 0.0;
  return r;
}

} // namespace

DisaggDeploymentResult run_disagg_deployment(const Spec& spec, const LoadedCatalog& catalog,
                                             const EngineConfig& engine, const InferenceWorkload& workload,
                                             Confidence confidence, double headroom) {
  DisaggDeploymentResult res;
  const DisaggSpec& ds = *spec.disaggregated;
  const ResolvedPool rp = resolve_pool(spec, catalog, ds.prefill, "prefill");
  const ResolvedPool rd = resolve_pool(spec, catalog, ds.decode, "decode");
  res.deployment = DisaggDeployment{rp.pool, rd.pool};
  const DisaggDeployment& dep = res.deployment;
  res.price_known = rp.price_known && rd.price_known;
  res.workload = workload;
  const InferenceWorkload& w = res.workload;
  const PreparedModel pm = prepare_model(spec.model, spec.precision);
  // TTFT is the prefill pool's figure, TPOT the decode pool's: each judged with its GPU's band.
  const std::string cls = model_class_of(spec.model);
  const Calibration* cal = band_calibration(catalog);
  const BandFactors bp = band_factors(cal, confidence, dep.prefill.gpu->id, cls, dep.prefill.gpu->reach);
  const BandFactors bd = band_factors(cal, confidence, dep.decode.gpu->id, cls, dep.decode.gpu->reach);
  BandFactors factors{bp.ttft_high, bd.tpot_high, std::min(bp.throughput_low, bd.throughput_low)};
  const Sla auto_sla = auto_concurrency_sla(spec.sla, factors);
  res.estimate = estimate_disagg(pm, w, dep, engine, w.concurrency == 0 ? &auto_sla : nullptr);
  JudgeRules rules;
  rules.bands = factors;
  rules.price_known = res.price_known;
  rules.load_headroom = throughput_headroom(headroom);
  // An open loop's latencies at its band's slow end, each pool at its own k (methodology §3.5).
  const auto slow = disagg_slow_end(res.estimate, pm, w, dep, engine, {bp.tpot_high, bd.tpot_high});
  rules.slow_end = slow ? &*slow : nullptr;
  res.verdict = judge(res.estimate.combined, spec.sla, rules);
  res.at_load = cost_at_load(res.estimate.combined, spec.sla, w);
  for (const auto& a : spec.assumptions) {
    if (w.concurrency == 0 || a.rfind("concurrency:", 0) != 0) res.assumptions.push_back(a);
  }
  return res;
}

} // namespace rightsize::app
