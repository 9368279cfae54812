// Error bands of an estimate (app/bands.hpp, docs/accuracy.md "Error bands").
#include "app/bands.hpp"

namespace rightsize::app {
namespace {

Band band_of(const BandSource& source, FigureKind kind, double value) {
  if (source.calibration == nullptr) return Band{value, value, value};
  return band_for(*source.calibration, kind, source.gpu_id, value, source.model_class);
}

std::optional<OverlayTail> tail_of(const BandSource& source, FigureKind kind, double mean_s) {
  const TailEntry* t =
      source.calibration != nullptr ? tail_for(*source.calibration, kind, source.gpu_id) : nullptr;
  if (t == nullptr) return std::nullopt;
  return OverlayTail{mean_s * t->p99_over_mean, t->p99_over_mean, t->runs};
}

} // namespace

BandSource band_source(const LoadedCatalog& catalog, const Gpu& gpu, const ModelSpec& model) {
  const Calibration* calibration = band_calibration(catalog);
  const auto stack = catalog.overlay_stacks.find(gpu.id);
  return {calibration, gpu.id, model_class_of(model), serving_reach(calibration, gpu, model),
          stack == catalog.overlay_stacks.end() ? 0 : stack->second.runs};
}

BandSource training_band_source(const LoadedCatalog& catalog, const Gpu& gpu, const ModelSpec& model) {
  return {band_calibration(catalog), gpu.id, model_class_of(model), gpu.training_reach};
}

EstimateBands estimate_bands(const BandSource& source, const InferenceEstimate& e, const Sla& sla,
                             const OpenLoopInputs* open) {
  EstimateBands out;
  out.calibrated = source.calibration != nullptr;
  out.memory_per_gpu_bytes = band_of(source, FigureKind::memory, e.memory.per_gpu_bytes);
  if (source.calibration == nullptr) {
    out.inference = InferenceBands{Band{e.ttft_s, e.ttft_s, e.ttft_s}, Band{e.tpot_s, e.tpot_s, e.tpot_s},
                                   Band{e.e2e_s, e.e2e_s, e.e2e_s},
                                   Band{e.output_tokens_per_s, e.output_tokens_per_s, e.output_tokens_per_s},
                                   Band{e.requests_per_s, e.requests_per_s, e.requests_per_s}};
    return out;
  }
  out.inference = inference_bands(*source.calibration, source.gpu_id, source.model_class, source.reach, e);
  out.model_class = source.model_class;
  out.reach = source.reach;
  out.overlay_runs = source.overlay_runs;
  if (const auto r = reach_band(*source.calibration, FigureKind::tpot, source.reach))
    out.reach_held_out = r->held_out;
  out.class_width = class_width(*source.calibration, source.model_class);
  out.ttft_tail = tail_of(source, FigureKind::ttft, e.ttft_s);
  out.tpot_tail = tail_of(source, FigureKind::tpot, e.tpot_s);
  const BandFactors factors =
      band_factors(source.calibration, Confidence::p90, source.gpu_id, source.model_class, source.reach);
  // An open loop: the pessimistic end is the slow end's queue (methodology §3.5), as judged.
  std::optional<InferenceEstimate> slow;
  if (open != nullptr)
    slow = slow_end_estimate(e, open->model, open->workload, open->gpu, open->deployment, open->engine,
                             factors.tpot_high);
  const InferenceEstimate* slow_end = slow ? &*slow : nullptr;
  if (slow) {
    out.slow_end_requests_per_s = open->workload.request_rate_per_s * factors.tpot_high;
    out.slow_end_overloaded = slow->overloaded;
  }
  band_through_queue(out.inference, e, slow_end);
  out.optimistic_only_count = optimistic_only_terms(e, sla, factors, out.optimistic_only, slow_end);
  return out;
}

TrainingBands training_bands(const BandSource& source, const TrainingEstimate& t) {
  TrainingBands out;
  out.calibrated = source.calibration != nullptr;
  // Throughput at the GPU's training reach (the union with its reach band), as the judge takes it.
  out.tokens_per_s = source.calibration != nullptr
                         ? band_for(*source.calibration, FigureKind::training_throughput, source.gpu_id,
                                    t.tokens_per_s, source.model_class, source.reach)
                         : Band{t.tokens_per_s, t.tokens_per_s, t.tokens_per_s};
  if (out.calibrated) out.reach = source.reach;
  // Reserved memory against the training-memory cases (measured / predicted), when calibrated.
  out.memory_reserved_bytes = band_of(source, FigureKind::training_memory, t.memory_reserved_bytes);
  // measured/predicted ratios of throughput; time and cost scale with its inverse.
  const double lo = t.tokens_per_s > 0.0 ? out.tokens_per_s.low / t.tokens_per_s : 1.0;
  const double hi = t.tokens_per_s > 0.0 ? out.tokens_per_s.high / t.tokens_per_s : 1.0;
  out.step_time_s = {t.step_time_s / hi, t.step_time_s, t.step_time_s / lo};
  out.time_to_train_s = {t.time_to_train_s / hi, t.time_to_train_s, t.time_to_train_s / lo};
  out.usd_total = {t.usd_total / hi, t.usd_total, t.usd_total / lo};
  return out;
}

EstimateBands candidate_bands(const LoadedCatalog& catalog, const SearchInputs& in, const Candidate& c,
                              const Sla& sla, const InferenceWorkload& workload, const EngineConfig& engine) {
  const PreparedModel& model = in.models[c.precision_index];
  const Gpu& gpu = in.gpus[c.gpu_index];
  const InferenceWorkload arrivals = deployment_arrivals(workload, sla); // as core's search takes them
  Deployment whole = c.layout;
  whole.gpus = c.total_gpus();
  const OpenLoopInputs open{model, arrivals, gpu, whole, engine};
  return estimate_bands(band_source(catalog, gpu, model.model), c.estimate, sla, &open);
}

TrainingBands candidate_bands(const LoadedCatalog& catalog, const SearchInputs& in,
                              const TrainingCandidate& c) {
  return training_bands(training_band_source(catalog, in.gpus[c.gpu_index], in.models.front().model),
                        c.estimate);
}

} // namespace rightsize::app
