// Measured disaggregated serving runs (docs/accuracy.md "disagg"): a CSV row's two pools as a
// DisaggDeployment through estimate_disagg (methodology §3.6). Pure.
#include <algorithm>
#include <cmath>

#include "rightsize/calibration.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize {
namespace {

PoolDeployment pool_of(const Gpu& gpu, const ServingPool& p) {
  PoolDeployment out;
  out.gpu = &gpu;
  out.layout.tp = p.tp;
  out.layout.pp = p.pp;
  out.layout.attention_dp = std::max(1, p.attention_dp);
  out.layout.gpus = out.layout.gpus_per_replica();
  // As deployment_of: the experts are distributed over moe_ep groups (methodology §5.5).
  out.layout.ep = p.moe_ep > 1 ? p.moe_ep : 1;
  out.workers = std::max(1, p.workers);
  return out;
}

} // namespace

ServingPrediction predict_serving_disagg(const PreparedModel& model, const Gpu& gpu, const ServingRun& run,
                                         const Calibration& calibration, const EngineConfig& engine) {
  ServingPrediction out;
  const auto kind = parse_engine_kind(run.engine);
  if (!kind) {
    out.reason = "unknown engine";
    return out;
  }
  if (run.concurrency <= 0) {
    out.reason = "disaggregated run without a concurrency";
    return out;
  }
  const InferenceWorkload w = workload_of(run);
  DisaggDeployment dep;
  dep.prefill = pool_of(gpu, run.prefill);
  dep.decode = pool_of(gpu, run.decode);
  // Worker counts not given (most upstream rows): the benchmark's clients all hold a decode slot,
  // D = ceil(N / slots of one decode worker); one prefill worker (docs/accuracy.md "disagg").
  if (run.decode.workers <= 0) {
    InferenceWorkload one = w;
    one.concurrency = 1;
    const DisaggEstimate probe = estimate_disagg(model, one, dep, engine, nullptr);
    const double slots = std::max<double>(1.0, static_cast<double>(probe.decode.max_concurrency));
    dep.decode.workers =
        std::max(1, static_cast<int>(std::ceil(static_cast<double>(run.concurrency) / slots)));
  }
  const DisaggEstimate e = estimate_disagg(model, w, dep, engine, nullptr);
  out.fits = e.combined.memory.fits;
  out.weights_exceed_memory = e.prefill.memory.weights_bytes > e.prefill.memory.capacity_per_gpu_bytes ||
                              e.decode.memory.weights_bytes > e.decode.memory.capacity_per_gpu_bytes;
  out.prefill_s = e.prefill_service_s;
  out.decode_step_s = e.combined.decode_step_s;
  const InferenceBands bands = inference_bands(calibration, gpu.id, model_class_of(model.model),
                                               serving_reach(&calibration, gpu, model.model), e.combined);
  out.ttft = bands.ttft;
  out.tpot = bands.tpot;
  return out;
}

} // namespace rightsize
