// Validation metrics, per-case prediction and error bands (methodology §4.5, §7.3). The fit itself
// lives in calibration_fit.cpp.
#include "rightsize/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "core/numeric.hpp"
#include "rightsize/training.hpp"

namespace rightsize {
namespace {

using core::d;

// Band widening rule (tests/validation/README.md): below this many leave-one-out residuals a
// band borrows from the pooled one and its log-ratios are stretched by 10 % per missing case
// (log space keeps a tight memory band tight and a loose TTFT band proportionally looser).
constexpr int k_band_min_cases = 5;
constexpr double k_band_widen_per_missing_case = 0.10;
constexpr double k_band_no_data_widen = 1.5;
constexpr double k_default_ratio_low = 0.5;
constexpr double k_default_ratio_high = 2.0;

} // namespace

const char* to_string(FigureKind kind) {
  switch (kind) {
  case FigureKind::throughput: return "throughput";
  case FigureKind::ttft: return "ttft";
  case FigureKind::tpot: return "tpot";
  case FigureKind::e2e: return "e2e";
  case FigureKind::image_latency: return "image_latency";
  case FigureKind::memory: return "memory";
  case FigureKind::training_throughput: return "training_throughput";
  case FigureKind::training_memory: return "training_memory";
  }
  return "throughput";
}

std::optional<FigureKind> parse_figure_kind(std::string_view name) {
  if (name == "throughput" || name == "inference_throughput") return FigureKind::throughput;
  if (name == "ttft") return FigureKind::ttft;
  if (name == "tpot") return FigureKind::tpot;
  if (name == "e2e") return FigureKind::e2e;
  if (name == "image_latency") return FigureKind::image_latency;
  if (name == "memory") return FigureKind::memory;
  if (name == "training_throughput") return FigureKind::training_throughput;
  if (name == "training_memory") return FigureKind::training_memory;
  return std::nullopt;
}

std::string model_class_of(const ModelSpec& model) {
  // Image generation is its own class: its bands come from the image_latency cases (methodology §3.7).
  // A UNet (SDXL) is a class of its own: its rate is a fitted fraction of η_f and its errors are its
  // own, so its image_latency bands come from the UNet cases only (build_calibration).
  if (model.kind == ModelKind::dit) return model.image.denoiser == Denoiser::unet ? "image-unet" : "image";
  if (model.moe.experts > 0) return "moe";
  return count_params(model).total >= 20'000'000'000 ? "dense-large" : "dense-small";
}

bool is_image_class(std::string_view model_class) {
  return model_class == "image" || model_class == "image-unet";
}

double training_tokens_per_s_6nd(const ModelSpec& model, std::int64_t seq_len, int gpus, double peak_tflops,
                                 double mfu) {
  // Methodology §4.2: C_train per token = 6·N_mm_active + 6·L·n_h·d_h·s (causal attention; MFU
  // counts model FLOPs, so no recompute term). Time = C / (gpus · F · MFU).
  const ParamCounts p = count_params(model);
  const double per_token =
      6.0 * d(p.mm_active) + 6.0 * d(model.layers) * d(model.heads) * d(model.head_dim) * d(seq_len);
  if (per_token <= 0.0) return 0.0;
  return static_cast<double>(gpus) * peak_tflops * 1e12 * mfu / per_token;
}

EngineConfig case_engine(const ValidationCase& c, EngineConfig engine) {
  if (c.engine_max_num_seqs > 0) engine.max_num_seqs = c.engine_max_num_seqs;
  if (c.engine_capacity_policy)
    engine.kv_reserved_output_share = reserved_output_share(*c.engine_capacity_policy);
  return engine;
}

double predict_case(const ValidationCase& c, const Gpu& gpu, const EngineConfig& engine) {
  if (c.kind == FigureKind::training_throughput || c.kind == FigureKind::training_memory) {
    // The training estimator with the published layout: TP/PP and recompute as run; DP, ZeRO stage
    // and micro-batch searched; a global batch of max(1024, GPUs) sequences (the cases do not state
    // theirs; Megatron and MosaicML runs use 512–3072).
    const PreparedModel pm = prepare_model(c.model, c.precision);
    TrainingWorkload w;
    w.seq_len = c.training_seq_len;
    w.global_batch = c.training_global_batch > 0 ? c.training_global_batch
                                                 : std::max<std::int64_t>(1024, c.deployment.gpus);
    w.recompute = c.training_recompute;
    w.micro_batch = c.training_micro_batch;
    w.zero_stage = c.training_zero_stage;
    w.framework = c.training_framework;
    w.attention_kernel = c.training_attention_kernel;
    w.tp_comm_overlap = c.training_tp_overlap;
    LayoutPins pins;
    pins.tp = c.deployment.tp;
    pins.pp = c.deployment.pp;
    pins.cp = std::max(1, c.training_cp);
    pins.vp = std::max(1, c.training_vp);
    const TrainingEstimate t =
        search_training_layout(pm, w, gpu, c.deployment.gpus, pins, TrainingConfig{}, 0.0);
    if (c.kind == FigureKind::training_throughput) return t.tokens_per_s;
    // Memory as the framework reports it (docs/training.md §1): allocated or the allocator's reserve.
    return c.memory_scope == MemoryScope::peak_allocated ? t.memory_allocated_bytes : t.memory_reserved_bytes;
  }
  const PreparedModel pm = prepare_model(c.model, c.precision);
  if (c.kind == FigureKind::memory && c.memory_scope == MemoryScope::peak_allocated) {
    // A framework without engine reserves (Hugging Face generate): weights + the KV of the
    // sequences' full context (methodology §2.2, §2.3); activations of a 20-token prompt are noise.
    const double tokens = d(c.workload.input_tokens + c.workload.output_tokens) *
                          d(std::max<std::int64_t>(1, c.workload.concurrency));
    return pm.weight_bytes_total + kv_cache_bytes_per_token(c.model, pm.kv_bytes_per_element) * tokens;
  }
  const InferenceEstimate e =
      estimate_inference(pm, c.workload, gpu, c.deployment, case_engine(c, engine), nullptr, 0.0);
  switch (c.kind) {
  case FigureKind::throughput: return e.output_tokens_per_s;
  case FigureKind::ttft: return e.ttft_s;
  case FigureKind::tpot: return e.tpot_s;
  case FigureKind::e2e:
  case FigureKind::image_latency: return e.e2e_s; // one image = one request (methodology §3.7)
  case FigureKind::memory: return e.memory.weights_bytes;
  case FigureKind::training_throughput:
  case FigureKind::training_memory: break;
  }
  return 0.0;
}

LayoutFamily layout_family(const Deployment& dep) {
  if (dep.attention_dp > 1) return LayoutFamily::adp;
  if (dep.ep > 1) return LayoutFamily::ep;
  if (dep.pp > 1) return LayoutFamily::tp_pp;
  return LayoutFamily::tp;
}

std::string efficiency_provenance(const Gpu& gpu, const Deployment& dep, const ModelSpec& model) {
  const LayoutFamily family = layout_family(dep);
  const GpuEfficiency& e = efficiency_for(gpu, family);
  // The expert-read fraction only moves a model with routed experts (methodology §3.3).
  std::string text = model.moe.experts > 0 ? e.provenance_with_expert_reads() : e.provenance;
  if (&e != &gpu.efficiency || gpu.layout_efficiency.empty()) return text;
  return text + "; layout " + to_string(family) + ": no factors of its own, the GPU's apply";
}

const TailEntry* tail_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id) {
  for (const TailEntry& t : calibration.tails)
    if (t.kind == kind && t.gpu_id == gpu_id) return &t;
  return nullptr;
}

double signed_error_pct(double predicted, double measured) {
  return measured == 0.0 ? 0.0 : (predicted - measured) / measured * 100.0;
}

double ape_pct(double predicted, double measured) {
  return std::fabs(signed_error_pct(predicted, measured));
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  // Type-7 quantile (Hyndman & Fan 1996; numpy's default): h = (n − 1)·q, interpolate.
  const double h = static_cast<double>(values.size() - 1) * std::clamp(q, 0.0, 1.0);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

namespace {

// Ratio band from n residual ratios, with the pooled band to borrow from (rule in the README).
BandEntry band_from(FigureKind kind, const std::string& gpu, const std::vector<double>& ratios,
                    const BandEntry* pooled) {
  BandEntry b;
  b.kind = kind;
  b.gpu_id = gpu;
  b.cases = static_cast<int>(ratios.size());
  const int n = b.cases;
  if (n >= k_band_min_cases) {
    b.ratio_low = quantile(ratios, 0.10);
    b.ratio_high = quantile(ratios, 0.90);
    b.rule = "own";
  } else if (n >= 2 || (n == 1 && pooled != nullptr)) {
    const double widen = 1.0 + k_band_widen_per_missing_case * static_cast<double>(k_band_min_cases - n);
    const auto [mn, mx] = std::minmax_element(ratios.begin(), ratios.end());
    b.ratio_low = *mn;
    b.ratio_high = *mx;
    if (pooled != nullptr) {
      b.ratio_low = std::min(b.ratio_low, pooled->ratio_low);
      b.ratio_high = std::max(b.ratio_high, pooled->ratio_high);
    }
    b.ratio_low = std::pow(std::min(b.ratio_low, 1.0), widen);
    b.ratio_high = std::pow(std::max(b.ratio_high, 1.0), widen);
    b.rule = pooled != nullptr ? "own+pooled widened" : "own widened";
  } else if (pooled != nullptr) {
    b.ratio_low = std::pow(pooled->ratio_low, k_band_no_data_widen);
    b.ratio_high = std::pow(pooled->ratio_high, k_band_no_data_widen);
    b.rule = "pooled widened";
  } else {
    b.ratio_low = k_default_ratio_low;
    b.ratio_high = k_default_ratio_high;
    b.rule = "default";
  }
  // A band always contains its point estimate.
  b.ratio_low = std::min(b.ratio_low, 1.0);
  b.ratio_high = std::max(b.ratio_high, 1.0);
  return b;
}

} // namespace

bool open_loop_latency(FigureKind kind, bool open_loop) {
  // Near capacity a small service-time error moves such a latency many-fold (methodology §3.1);
  // its throughput (the rate, or the capacity) informs as any does.
  return open_loop && kind != FigureKind::throughput;
}

Calibration build_calibration(const std::vector<FittedEfficiency>& fits,
                              const std::vector<CaseResult>& results) {
  Calibration cal;
  cal.gpus = fits;
  std::sort(cal.gpus.begin(), cal.gpus.end(),
            [](const auto& a, const auto& b) { return a.gpu_id < b.gpu_id; });
  // Image latency is banded per image class (a DiT's and a UNet's residuals differ in kind,
  // methodology §3.7 "Bands"); every other kind pools its classes (class key "").
  using Key = std::pair<int, std::string>;
  std::map<std::pair<Key, std::string>, std::vector<double>> by_kind_gpu;
  std::map<Key, std::vector<double>> by_kind;
  std::map<std::string, int> by_class;
  for (const CaseResult& r : results) {
    if (!r.scored || r.predicted_loo <= 0.0 || r.measured <= 0.0) continue;
    if (open_loop_latency(r.kind, r.open_loop)) continue;
    const double ratio = r.measured / r.predicted_loo;
    const Key key{static_cast<int>(r.kind), r.kind == FigureKind::image_latency ? r.model_class : ""};
    by_kind_gpu[{key, r.gpu_id}].push_back(ratio);
    by_kind[key].push_back(ratio);
    ++by_class[r.model_class];
  }
  for (std::size_t k = 0; k < k_figure_kind_count; ++k) {
    const auto kind = static_cast<FigureKind>(k);
    std::vector<std::string> classes;
    for (const auto& [key, ratios] : by_kind)
      if (key.first == static_cast<int>(k)) classes.push_back(key.second);
    if (classes.empty()) classes.emplace_back(); // no case: the class-less default band
    for (const std::string& cls : classes) {
      const auto it = by_kind.find({static_cast<int>(k), cls});
      BandEntry pooled =
          band_from(kind, "*", it == by_kind.end() ? std::vector<double>{} : it->second, nullptr);
      pooled.model_class = cls;
      cal.bands.push_back(pooled);
      for (const auto& [key, ratios] : by_kind_gpu) {
        if (key.first != Key{static_cast<int>(k), cls}) continue;
        cal.bands.push_back(band_from(kind, key.second, ratios, &pooled));
        cal.bands.back().model_class = cls;
      }
    }
  }
  for (const auto& [cls, n] : by_class) {
    const double factor =
        1.0 + k_band_widen_per_missing_case * static_cast<double>(std::max(0, k_band_min_cases - n));
    cal.classes.push_back(ClassWidening{cls, n, factor});
  }
  return cal;
}

namespace {

// The band of a kind on a GPU from the entries of one class key: the GPU's, else the pooled one.
const BandEntry* band_entry(const Calibration& calibration, FigureKind kind, const std::string& gpu_id,
                            std::string_view model_class) {
  const BandEntry* pooled = nullptr;
  for (const BandEntry& b : calibration.bands) {
    if (b.kind != kind || b.model_class != model_class) continue;
    if (b.gpu_id == gpu_id) return &b;
    if (b.gpu_id == "*") pooled = &b;
  }
  return pooled;
}

// The entry a figure's band comes from: a class's own entries (image latency per image class, a
// GPU's serving rows of one class), else the entries every class shares; nullptr = the default.
const BandEntry* entry_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id,
                           std::string_view model_class) {
  const BandEntry* b = band_entry(calibration, kind, gpu_id, model_class);
  if (b == nullptr && !model_class.empty()) b = band_entry(calibration, kind, gpu_id, "");
  return b;
}

Band band_of(const BandEntry* b, double value) {
  if (b != nullptr) return Band{value * b->ratio_low, value, value * b->ratio_high};
  return Band{value * k_default_ratio_low, value, value * k_default_ratio_high};
}

} // namespace

Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value) {
  return band_of(entry_for(calibration, kind, gpu_id, ""), value);
}

ClassWidth class_width(const Calibration& calibration, std::string_view model_class) {
  for (const ClassWidening& c : calibration.classes) {
    if (c.model_class == model_class) return {c.factor, true};
  }
  return {1.0 + k_band_widen_per_missing_case * k_band_min_cases, false}; // unseen class
}

Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value,
              std::string_view model_class) {
  const BandEntry* entry = entry_for(calibration, kind, gpu_id, model_class);
  Band b = band_of(entry, value);
  // A band fitted on the GPU's measured serving rows of this very class already holds the class's
  // spread (bench/serving_score.hpp add_serving_bands): no class widening on top of it.
  const bool from_rows = entry != nullptr && entry->rule == "serving rows" && entry->gpu_id == gpu_id &&
                         !model_class.empty() && entry->model_class == model_class;
  const double factor = from_rows ? 1.0 : class_width(calibration, model_class).factor;
  // Stretch the log-ratios (same rule as the per-GPU widening).
  if (value > 0.0) {
    b.low = value * std::pow(b.low / value, factor);
    b.high = value * std::pow(b.high / value, factor);
  }
  return b;
}

Band band_for(const Calibration& calibration, FigureKind kind, const std::string& gpu_id, double value,
              std::string_view model_class, Reach reach) {
  Band b = band_for(calibration, kind, gpu_id, value, model_class);
  if (const auto r = reach_band(calibration, kind, reach)) {
    // The union: the GPU's own (case-based) band, or the reach band the held-out GPUs showed.
    b.low = std::min(b.low, value * r->ratio_low);
    b.high = std::max(b.high, value * r->ratio_high);
  }
  return b;
}

InferenceBands inference_bands(const Calibration& calibration, const std::string& gpu_id,
                               std::string_view model_class, Reach reach, const InferenceEstimate& e) {
  InferenceBands out;
  const auto clamp_low = [](Band b, double floor_s) {
    b.low = std::min(b.value, std::max(b.low, floor_s));
    return b;
  };
  out.ttft = clamp_low(band_for(calibration, FigureKind::ttft, gpu_id, e.ttft_s, model_class, reach),
                       e.ttft_floor_s);
  out.tpot = clamp_low(band_for(calibration, FigureKind::tpot, gpu_id, e.tpot_s, model_class, reach),
                       e.tpot_floor_s);
  // E2E = TTFT + (OSL − 1)·TPOT, so its band is built from theirs (methodology §3.5).
  const double steps = e.tpot_s > 0.0 ? std::max(0.0, (e.e2e_s - e.ttft_s) / e.tpot_s) : 0.0;
  out.e2e = Band{out.ttft.low + steps * out.tpot.low, e.e2e_s, out.ttft.high + steps * out.tpot.high};
  if (e.tpot_s <= 0.0) out.e2e = band_for(calibration, FigureKind::e2e, gpu_id, e.e2e_s, model_class);
  out.output_tokens_per_s =
      band_for(calibration, FigureKind::throughput, gpu_id, e.output_tokens_per_s, model_class, reach);
  out.requests_per_s =
      band_for(calibration, FigureKind::throughput, gpu_id, e.requests_per_s, model_class, reach);
  if (e.open_loop && !e.overloaded) {
    // Open loop serves its arrival rate by construction: no band on what it serves.
    out.output_tokens_per_s = Band{e.output_tokens_per_s, e.output_tokens_per_s, e.output_tokens_per_s};
    out.requests_per_s = Band{e.requests_per_s, e.requests_per_s, e.requests_per_s};
  } else if (e.tpot_floor_s > 0.0 && e.tpot_s > 0.0) {
    // Tokens/s at the same concurrency cannot beat the decode step at the peaks.
    const double cap = e.tpot_s / e.tpot_floor_s;
    out.output_tokens_per_s.high =
        std::max(e.output_tokens_per_s, std::min(out.output_tokens_per_s.high, e.output_tokens_per_s * cap));
    out.requests_per_s.high =
        std::max(e.requests_per_s, std::min(out.requests_per_s.high, e.requests_per_s * cap));
  }
  if (is_image_class(model_class)) {
    // One request is one image: latency and images/s take the image-latency cases' band
    // (methodology §3.7); images/s = batch / latency, so its ends are the latency band's inverted.
    out.ttft = band_for(calibration, FigureKind::image_latency, gpu_id, e.ttft_s, model_class);
    out.e2e = band_for(calibration, FigureKind::image_latency, gpu_id, e.e2e_s, model_class);
    if (e.e2e_s > 0.0 && out.e2e.low > 0.0 && !(e.open_loop && !e.overloaded)) {
      out.requests_per_s = Band{e.requests_per_s * e.e2e_s / out.e2e.high, e.requests_per_s,
                                e.requests_per_s * e.e2e_s / out.e2e.low};
    }
  }
  return out;
}

std::vector<ErrorSummary> summarize(const std::vector<CaseResult>& results, bool per_gpu) {
  struct Acc {
    std::vector<double> fit, loo, def;
  };
  std::map<std::string, Acc> groups;
  for (const CaseResult& r : results) {
    if (!r.scored) continue;
    std::string key = to_string(r.kind);
    if (per_gpu) key += "/" + r.gpu_id;
    Acc& a = groups[key];
    a.fit.push_back(ape_pct(r.predicted, r.measured));
    a.loo.push_back(ape_pct(r.predicted_loo, r.measured));
    a.def.push_back(ape_pct(r.predicted_default, r.measured));
  }
  std::vector<ErrorSummary> out;
  for (const auto& [key, a] : groups) {
    ErrorSummary s;
    s.group = key;
    s.cases = static_cast<int>(a.fit.size());
    s.median_ape_pct = median(a.fit);
    s.mean_ape_pct = mean(a.fit);
    s.median_ape_loo_pct = median(a.loo);
    s.mean_ape_loo_pct = mean(a.loo);
    s.median_ape_default_pct = median(a.def);
    out.push_back(s);
  }
  return out;
}

} // namespace rightsize
