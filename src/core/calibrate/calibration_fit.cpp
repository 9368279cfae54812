// Fitting per-GPU efficiency factors to published measurements and leave-one-out evaluation
// (methodology §4.5: "calibrated per (GPU, engine, dtype) from a few measured points", the
// aiconfigurator approach util = SOL / measured [AIC-HYB]).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "rightsize/calibration.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize {
namespace {

enum class Factor : std::uint8_t { decode, overhead, prefill, communication, training };

// A case ready to evaluate: its prepared model and a private copy of its GPU whose efficiency the
// fit overwrites.
struct Ready {
  const ValidationCase* c = nullptr;
  PreparedModel pm;
  Gpu gpu;
};

double& slot(GpuEfficiency& e, Factor f) {
  switch (f) {
  case Factor::decode: return e.decode_bandwidth;
  case Factor::prefill: return e.prefill_compute;
  case Factor::communication: return e.communication;
  case Factor::training: return e.training_mfu;
  case Factor::overhead: return e.layer_overhead;
  }
  return e.decode_bandwidth;
}

double value_of(const GpuEfficiency& e, Factor f) {
  GpuEfficiency copy = e;
  return slot(copy, f);
}

// The fitted factors `e` on a case's GPU. The GPU's per-sequence decode time is not one of them: it
// is fitted to static-batch runs of its own (bench/sequence_layer_fit.hpp, methodology §3
// "per-sequence time") and stays as the catalog GPU carries it.
void set_factors(Gpu& gpu, const GpuEfficiency& e) {
  const double t_seq = gpu.efficiency.decode_sequence_layer_s;
  gpu.efficiency = e;
  gpu.efficiency.decode_sequence_layer_s = t_seq;
}

bool inference_figure(FigureKind kind) {
  return kind != FigureKind::training_throughput && kind != FigureKind::training_memory &&
         kind != FigureKind::memory;
}

// The case's figure from its inference estimate: the mean, or the percentile the case measured.
double figure_of(const ValidationCase& c, const InferenceEstimate& e) {
  switch (c.kind) {
  case FigureKind::throughput: return e.output_tokens_per_s;
  case FigureKind::ttft: return latency_stat_s(e, 0, c.statistic);
  case FigureKind::tpot: return latency_stat_s(e, 1, c.statistic);
  case FigureKind::e2e: return latency_stat_s(e, 2, c.statistic);
  case FigureKind::image_latency: return e.e2e_s;
  default: return 0.0;
  }
}

InferenceEstimate estimate_ready(const Ready& r, const EngineConfig& engine) {
  return estimate_inference(r.pm, r.c->workload, r.gpu, r.c->deployment, case_engine(*r.c, engine), nullptr,
                            0.0);
}

double predict_ready(const Ready& r, const EngineConfig& engine) {
  const ValidationCase& c = *r.c;
  if (!inference_figure(c.kind)) return predict_case(c, r.gpu, engine);
  return figure_of(c, estimate_ready(r, engine));
}

// Σ |log(predicted / measured)| over `set`, after `set_up` has set each case's efficiency. The L1
// loss (a median-type fit) keeps one case the model cannot describe from dragging a factor for all
// others. Consecutive cases of one inputs group (one run's figures, set up alike) share one estimate.
template <class SetUp>
double log_loss(std::vector<Ready*>& set, const EngineConfig& engine, const SetUp& set_up) {
  double sum = 0.0;
  std::size_t last_group = 0;
  InferenceEstimate last;
  for (Ready* r : set) {
    set_up(*r);
    double p = 0.0;
    if (!inference_figure(r->c->kind)) {
      p = predict_ready(*r, engine);
    } else {
      if (r->c->inputs_group == 0 || r->c->inputs_group != last_group) {
        last = estimate_ready(*r, engine);
        last_group = r->c->inputs_group;
      }
      p = figure_of(*r->c, last);
    }
    sum += p > 0.0 && std::isfinite(p) ? std::fabs(std::log(p / r->c->measured)) : 10.0;
  }
  return sum;
}

// The loss with every case in `set` using efficiency `e`.
double objective(std::vector<Ready*>& set, const GpuEfficiency& e, const EngineConfig& engine) {
  return log_loss(set, engine, [&](Ready& r) { set_factors(r.gpu, e); });
}

// Elasticity d log(prediction) / d log(factor) by a finite step of ×1.25: how strongly a case
// depends on the factor at the current efficiencies.
double elasticity(Ready& r, Factor f, const GpuEfficiency& e, const EngineConfig& engine) {
  constexpr double k_step = 1.25;
  set_factors(r.gpu, e);
  const double base = predict_ready(r, engine);
  slot(r.gpu.efficiency, f) *= k_step;
  const double moved = predict_ready(r, engine);
  set_factors(r.gpu, e);
  if (base <= 0.0 || moved <= 0.0) return 0.0;
  return std::log(moved / base) / std::log(k_step);
}

// Golden-section search of the minimum of `loss` on [lo, hi] (unimodal in practice: each
// prediction is monotone in the factor). 24 iterations narrow the range by 0.618^24 ≈ 1e-5.
template <class Loss> double golden_section(double lo, double hi, const Loss& loss) {
  constexpr double k_phi = 0.6180339887498949;
  double a = lo;
  double b = hi;
  double x1 = b - k_phi * (b - a);
  double x2 = a + k_phi * (b - a);
  double f1 = loss(x1);
  double f2 = loss(x2);
  for (int i = 0; i < 24; ++i) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - k_phi * (b - a);
      f1 = loss(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + k_phi * (b - a);
      f2 = loss(x2);
    }
  }
  return (a + b) / 2.0;
}

// One factor in [lo, hi] with the others held.
double fit_one(std::vector<Ready*>& set, GpuEfficiency e, Factor f, double lo, double hi,
               const EngineConfig& engine) {
  return golden_section(lo, hi, [&](double x) {
    slot(e, f) = x;
    return objective(set, e, engine);
  });
}

// Cases that inform a factor (methodology §3.4 "Which cases"): decode bandwidth from throughput and TPOT
// (and, when FitOptions::fit_layer_overhead, the engine's per-layer time from the same figures at its own
// elasticity floor, methodology §3.4.1), prefill compute from TTFT, communication from multi-GPU inference,
// MFU from training - and of those only the cases whose prediction actually depends on the factor
// (|elasticity| ≥ min_elasticity), so an overhead-dominated 128-token TTFT does not pull the GEMM efficiency.
// An open loop's latencies inform none: its first token and step time are those of the batch its arrival rate
// settles at (§3.1), which near capacity a small service-time error moves many-fold; its throughput (the
// rate, or the capacity) does.
bool informs(Ready& r, Factor f, const GpuEfficiency& e, const EngineConfig& engine, const FitOptions& o) {
  const FigureKind k = r.c->kind;
  if (open_loop_latency(k, r.c->workload.arrival == Arrival::poisson)) return false;
  bool kind_ok = false;
  switch (f) {
  case Factor::training: kind_ok = k == FigureKind::training_throughput; break;
  case Factor::prefill: kind_ok = k == FigureKind::ttft; break;
  case Factor::communication:
    kind_ok = r.c->deployment.tp > 1 &&
              (k == FigureKind::throughput || k == FigureKind::tpot || k == FigureKind::ttft);
    break;
  case Factor::decode:
  case Factor::overhead: kind_ok = k == FigureKind::tpot || k == FigureKind::throughput; break;
  }
  const double floor = f == Factor::overhead ? o.min_overhead_elasticity : o.min_elasticity;
  return kind_ok && std::fabs(elasticity(r, f, e, engine)) >= floor;
}

struct Range {
  double lo, hi;
};

Range range_of(Factor f, const FitOptions& o) {
  switch (f) {
  case Factor::decode: return {o.bandwidth_min, o.bandwidth_max};
  case Factor::prefill: return {o.compute_min, o.compute_max};
  case Factor::communication: return {o.communication_min, o.communication_max};
  case Factor::training: return {o.mfu_min, o.mfu_max};
  case Factor::overhead: return {o.layer_overhead_min, o.layer_overhead_max};
  }
  return {0.0, 1.0};
}

std::vector<std::string>& cases_of(FittedEfficiency& fe, Factor f) {
  switch (f) {
  case Factor::decode: return fe.decode_cases;
  case Factor::prefill: return fe.prefill_cases;
  case Factor::communication: return fe.communication_cases;
  case Factor::training: return fe.training_cases;
  case Factor::overhead: return fe.layer_overhead_cases;
  }
  return fe.decode_cases;
}

std::string& source_of(FittedEfficiency& fe, Factor f) {
  switch (f) {
  case Factor::decode: return fe.decode_source;
  case Factor::prefill: return fe.prefill_source;
  case Factor::communication: return fe.communication_source;
  case Factor::training: return fe.training_source;
  case Factor::overhead: return fe.layer_overhead_source;
  }
  return fe.decode_source;
}

constexpr Factor k_fit_factors[] = {Factor::decode, Factor::overhead, Factor::prefill, Factor::communication,
                                    Factor::training};

// The per-layer time is fitted only when asked (`calibrate`): the shipped fit keeps the engines'
// per-layer times, whose worth the ablation of docs/accuracy.md measures.
bool asked(Factor f, const FitOptions& o) {
  return f != Factor::overhead || o.fit_layer_overhead;
}

// Coordinate descent over the factors for the cases in `pool`; `fallback` (the cross-GPU fit)
// supplies any factor with fewer than min_cases cases. Two passes.
FittedEfficiency fit_group(const std::string& id, std::vector<Ready*>& pool, const GpuEfficiency& start,
                           const FittedEfficiency* fallback, const EngineConfig& engine,
                           const FitOptions& o) {
  FittedEfficiency fe;
  fe.gpu_id = id;
  fe.efficiency = start;
  for (int pass = 0; pass < 2; ++pass) {
    for (Factor f : k_fit_factors) {
      if (!asked(f, o)) continue;
      std::vector<Ready*> set;
      for (Ready* r : pool) {
        if (informs(*r, f, fe.efficiency, engine, o)) set.push_back(r);
      }
      std::vector<std::string>& ids = cases_of(fe, f);
      ids.clear();
      for (Ready* r : set)
        ids.push_back(r->c->id);
      std::sort(ids.begin(), ids.end());
      if (static_cast<int>(o.distinct_runs ? runs_among(ids) : set.size()) >= o.min_cases_per_gpu) {
        const Range rg = range_of(f, o);
        slot(fe.efficiency, f) = fit_one(set, fe.efficiency, f, rg.lo, rg.hi, engine);
        source_of(fe, f) = "fitted";
      } else if (fallback != nullptr) {
        slot(fe.efficiency, f) = value_of(fallback->efficiency, f);
        source_of(fe, f) = fallback->gpu_id == "*" ? "cross_gpu" : fallback->gpu_id;
      }
    }
  }
  return fe;
}

// Each case with its own copy of its GPU (the fit sets its efficiency) and its prepared model. The
// copies leave out what no estimate reads (prices, provenance, notes): a fit over 1,000 runs made
// 10,000s of them. Consecutive cases of one inputs group share one prepared model.
std::vector<Ready> make_ready(const std::vector<ValidationCase>& cases, const std::vector<Gpu>& gpus,
                              const std::string& skip_id) {
  std::vector<Gpu> lean(gpus.begin(), gpus.end());
  for (Gpu& g : lean) {
    g.prices.clear();
    g.spec_sources.clear();
    g.notes.clear();
    g.aliases.clear();
  }
  std::vector<Ready> ready;
  for (const ValidationCase& c : cases) {
    if (!c.scored || c.id == skip_id || c.measured <= 0.0) continue;
    const auto g = std::find_if(lean.begin(), lean.end(), [&](const Gpu& x) { return x.id == c.gpu_id; });
    if (g == lean.end()) continue;
    Ready r;
    r.c = &c;
    r.gpu = *g;
    if (c.kind != FigureKind::training_throughput) {
      const bool same = !ready.empty() && c.inputs_group != 0 &&
                        ready.back().c->inputs_group == c.inputs_group &&
                        ready.back().c->kind != FigureKind::training_throughput;
      r.pm = same ? ready.back().pm : prepare_model(c.model, c.precision);
    }
    ready.push_back(std::move(r));
  }
  return ready;
}

// The UNet's GEMM fraction of η_f (methodology §3.7 "UNet rate"): one value for every GPU, fitted
// by the same L1 log objective over every scored UNet image case, each on its GPU's fitted factors
// (`fits`). A fraction of a GPU's own η_f, so a GPU without UNet cases inherits it under the
// family rule its η_f obeys (§3.4) and is never credited with a better UNet rate than a sibling.
void fit_unet_fraction(std::vector<Ready>& ready, std::vector<FittedEfficiency>& fits,
                       const EngineConfig& engine, const FitOptions& o) {
  std::vector<Ready*> set;
  for (Ready& r : ready) {
    if (r.c->kind != FigureKind::image_latency || !r.pm.unet) continue;
    for (const FittedEfficiency& f : fits) {
      if (f.gpu_id == r.gpu.id) set_factors(r.gpu, f.efficiency);
    }
    set.push_back(&r);
  }
  if (set.empty()) return;
  const auto loss = [&](double x) {
    return log_loss(set, engine, [x](Ready& r) { r.gpu.efficiency.unet_gemm_fraction = x; });
  };
  const double fraction = golden_section(o.unet_fraction_min, o.unet_fraction_max, loss);
  for (FittedEfficiency& f : fits)
    f.efficiency.unet_gemm_fraction = fraction;
  std::vector<std::string>& ids = fits.front().unet_cases;
  for (Ready* r : set)
    ids.push_back(r->c->id);
  std::sort(ids.begin(), ids.end());
}

std::vector<FittedEfficiency> fit_except(const std::vector<ValidationCase>& cases,
                                         const std::vector<Gpu>& gpus, const EngineConfig& engine,
                                         const FitOptions& o, const std::string& skip_id) {
  std::vector<Ready> ready = make_ready(cases, gpus, skip_id);
  std::vector<Ready*> all;
  all.reserve(ready.size());
  for (Ready& r : ready)
    all.push_back(&r);
  std::vector<FittedEfficiency> out;
  out.push_back(fit_group("*", all, GpuEfficiency{}, nullptr, engine, o));
  std::set<std::string> ids;
  for (const Gpu& g : gpus)
    ids.insert(g.id);
  for (const std::string& id : ids) {
    std::vector<Ready*> pool;
    for (Ready& r : ready) {
      if (r.gpu.id == id) pool.push_back(&r);
    }
    out.push_back(fit_group(id, pool, out.front().efficiency, &out.front(), engine, o));
  }
  fit_unet_fraction(ready, out, engine, o);
  return out;
}

const GpuEfficiency& efficiency_for(const std::vector<FittedEfficiency>& fits, const std::string& gpu_id) {
  for (const FittedEfficiency& f : fits) {
    if (f.gpu_id == gpu_id) return f.efficiency;
  }
  return fits.front().efficiency;
}

} // namespace

std::vector<FittedEfficiency> fit_efficiencies(const std::vector<ValidationCase>& cases,
                                               const std::vector<Gpu>& gpus, const EngineConfig& engine,
                                               const FitOptions& options) {
  return fit_except(cases, gpus, engine, options, "");
}

FittedEfficiency fit_gpu_from(const std::vector<ValidationCase>& cases, const Gpu& gpu,
                              const EngineConfig& engine, const FitOptions& options,
                              const std::string& keep_source) {
  std::vector<Ready> ready = make_ready(cases, {gpu}, "");
  std::vector<Ready*> pool;
  pool.reserve(ready.size());
  for (Ready& r : ready)
    pool.push_back(&r);
  // The start point is the GPU's current (shipped) efficiency; a factor too few cases inform keeps
  // it, its source naming where it came from.
  FittedEfficiency keep;
  keep.gpu_id = keep_source;
  keep.efficiency = gpu.efficiency;
  FittedEfficiency out = fit_group(gpu.id, pool, gpu.efficiency, &keep, engine, options);
  out.efficiency.provenance = gpu.efficiency.provenance;
  return out;
}

std::vector<CaseResult> evaluate_cases(const std::vector<ValidationCase>& cases, const std::vector<Gpu>& gpus,
                                       const EngineConfig& engine, const FitOptions& options) {
  const std::vector<FittedEfficiency> fits = fit_efficiencies(cases, gpus, engine, options);
  std::vector<CaseResult> out;
  for (const ValidationCase& c : cases) {
    const auto g = std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& x) { return x.id == c.gpu_id; });
    if (g == gpus.end()) continue;
    CaseResult r;
    r.id = c.id;
    r.kind = c.kind;
    r.gpu_id = c.gpu_id;
    r.model_class = c.model_class.empty() ? model_class_of(c.model) : c.model_class;
    r.scored = c.scored;
    r.open_loop = c.workload.arrival == Arrival::poisson;
    r.measured = c.measured;
    Gpu gpu = *g;
    set_factors(gpu, GpuEfficiency{});
    r.predicted_default = predict_case(c, gpu, engine);
    set_factors(gpu, efficiency_for(fits, c.gpu_id));
    r.predicted = predict_case(c, gpu, engine);
    // Memory (inference or training) has no fitted factor: its leave-one-out prediction is the prediction.
    if (c.scored && c.kind != FigureKind::memory && c.kind != FigureKind::training_memory) {
      set_factors(gpu, efficiency_for(fit_except(cases, gpus, engine, options, c.id), c.gpu_id));
      r.predicted_loo = predict_case(c, gpu, engine);
    } else {
      r.predicted_loo = r.predicted;
    }
    out.push_back(r);
  }
  return out;
}

std::size_t runs_among(const std::vector<std::string>& ids) {
  std::vector<std::string> runs;
  runs.reserve(ids.size());
  for (const std::string& id : ids)
    runs.push_back(id.substr(0, id.rfind(':')));
  std::sort(runs.begin(), runs.end());
  return static_cast<std::size_t>(std::unique(runs.begin(), runs.end()) - runs.begin());
}

} // namespace rightsize
