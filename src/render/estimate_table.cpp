// `estimate`'s text table (render/estimate_table.hpp), one function per section.
#include "render/estimate_table.hpp"

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/image_render.hpp"
#include "render/instances_render.hpp"
#include "render/lora_render.hpp"
#include "render/prefix_cache_render.hpp"
#include "render/render.hpp"
#include "render/speculative_render.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

// A request length: the mean, and its spread when lengths vary (methodology §3.1 "Request lengths").
std::string length_text(std::int64_t mean_tokens, const LengthSpread& spread) {
  if (!spread.varies()) return fmt::format("{}", mean_tokens);
  const bool named = spread.shape != LengthShape::percentiles;
  return fmt::format("{} mean{}{} (p50 {:.0f}, p99 {:.0f})", mean_tokens, named ? ", " : "",
                     named ? to_string(spread.shape) : "", spread.p50_tokens, spread.p99_tokens);
}

// The title, the model's weights and, for a vision-language model, its tower.
void print_identity(const app::EstimateResult& result) {
  const PreparedModel& pm = result.model;
  const Gpu& gpu = result.gpu;
  const Deployment& d = result.deployment;
  const InferenceWorkload& w = result.workload;
  const bool image = is_image_model(pm); // one request = one image (methodology §3.7)
  fmt::print("{} on {} × {} ({}, {} replica{})\n", pm.model.name, d.gpus, gpu.id, layout_label(d),
             d.replicas(), d.replicas() == 1 ? "" : "s");
  // An image model keeps no KV cache between requests: its line names the weights only.
  // An image pipeline's text encoder stays resident beside the denoiser: the memory table counts both.
  const std::string encoder =
      pm.image_encoder_weight_bytes > 0.0
          ? fmt::format(" (the denoiser; {} with the resident text encoder)",
                        format_gb(pm.weight_bytes_total + pm.image_encoder_weight_bytes))
          : std::string();
  fmt::print("params {} total, {} active; weights {} in {}{}{}\n",
             format_params(static_cast<double>(pm.params.total)),
             format_params(static_cast<double>(pm.params.active)), format_gb(pm.weight_bytes_total),
             format_info(pm.precision.weights).name, encoder,
             image ? "" : fmt::format("; KV cache in {}", format_info(pm.precision.kv_cache).name));
  if (pm.model.vision.layers > 0) {
    // Vision-language model (methodology §1.6): the tower's weights and the request's image tokens.
    const VisionTowerSpec& v = pm.model.vision;
    const VisionRequest r = vision_request(v);
    const std::string images =
        v.images_per_request == 0
            ? std::string("no images per request (workload.images_per_request)")
            : fmt::format("{} image(s) per request = {} image tokens of the {} input tokens, {:.3g} TFLOP to "
                          "encode in prefill",
                          v.images_per_request, r.image_tokens, w.input_tokens, r.encoder_flops / 1e12);
    fmt::print("vision   tower {} params, {} (16-bit, in the weights); {}\n",
               format_params(static_cast<double>(pm.params.vision)), format_gb(pm.vision_weight_bytes),
               images);
  }
}

// The workload, the load and engine profile, the serving features, the efficiency factors and an
// overlay's residual.
void print_workload(const app::EstimateResult& result, const std::string& engine_name) {
  const PreparedModel& pm = result.model;
  const Gpu& gpu = result.gpu;
  const Deployment& d = result.deployment;
  const InferenceEstimate& e = result.estimate;
  const InferenceWorkload& w = result.workload;
  const bool image = is_image_model(pm); // one request = one image (methodology §3.7)
  if (image) {
    fmt::print("workload one image per request: {}; batch {} per replica{} (fits up to {})\n\n",
               image_workload_line(pm.model), e.concurrency, w.concurrency == 0 ? " (auto)" : "",
               e.max_concurrency);
  } else {
    fmt::print("workload {} input / {} output tokens, {} {} per replica{} (fits up to {})\n\n",
               length_text(w.input_tokens, w.input_spread), length_text(w.output_tokens, w.output_spread),
               e.open_loop ? "in flight" : "concurrency", e.concurrency,
               e.overloaded         ? " (a full KV cache: the arrivals exceed what it serves)"
               : e.open_loop        ? " (Little's law at the arrival rate)"
               : w.concurrency == 0 ? " (auto)"
                                    : "",
               e.max_concurrency);
  }
  // An image pipeline is not served by an LLM engine: its load line names no engine profile.
  // TensorRT-LLM's capacity scheduler decides what an admitted request holds in the KV cache.
  const std::string policy = result.capacity_policy
                                 ? fmt::format(" (capacity scheduler {})", to_string(*result.capacity_policy))
                                 : "";
  const std::string engine_part = image ? std::string() : engine_name + " engine profile" + policy + "; ";
  if (w.arrival == Arrival::poisson) {
    fmt::print("load     {}poisson arrivals at {:g} req/s for the deployment{} "
               "(docs/methodology.md §3.1)\n\n",
               engine_part, w.request_rate_per_s,
               w.arrival_cv != 1.0 ? fmt::format(", inter-arrival CV {:g}", w.arrival_cv) : "");
  } else {
    fmt::print("load     {}closed loop: {} clients per replica, equal lengths "
               "(docs/methodology.md §3.1)\n\n",
               engine_part, e.concurrency);
  }
  if (const std::string spec = speculative_line(w.speculative); !spec.empty())
    fmt::print("decoding {}\n\n", spec);
  if (const auto cache = prefix_cache_lines(w, e, d.gpus_per_replica()); !cache.empty())
    fmt::print("{}\n\n", fmt::join(cache, "\n"));
  if (const std::string lora = lora_line(w.lora, e); !lora.empty()) fmt::print("{}\n\n", lora);
  // Which efficiency factors are the GPU's own fits and which are extrapolated (methodology §3.4).
  fmt::print("efficiency {}\n", efficiency_provenance(gpu, d, pm.model));
  // A calibrate overlay's residual for this stack (docs/calibration.md "Residuals").
  if (e.residual.applied) {
    fmt::print("residual   TTFT x{:.3f}, TPOT x{:.3f}: your runs of this stack (--calibration overlay)\n",
               e.residual.ttft, e.residual.tpot);
  } else if (e.residual.outside_range) {
    fmt::print("residual   none: this load or prompt is beyond x{:g} of the overlay's runs of this stack\n",
               k_residual_reach);
  }
  fmt::print("\n");
}

// The memory table per GPU (GB = 1e9 bytes) and whether it fits.
void print_memory(const MemoryEstimate& m) {
  fmt::print("memory per GPU (GB = 1e9 bytes)\n");
  fmt::print("  {:<26}{:>10}\n", "weights", format_gb(m.weights_bytes));
  fmt::print("  {:<26}{:>10}\n", "KV cache", format_gb(m.kv_cache_bytes));
  fmt::print("  {:<26}{:>10}\n", "activations (prefill peak)", format_gb(m.activations_bytes));
  fmt::print("  {:<26}{:>10}\n", "runtime overhead", format_gb(m.overhead_bytes));
  // u of the whole GPU, or (TensorRT-LLM) of what is free once weights, activations and reserve are in.
  const std::string usable_basis =
      m.usable_fraction_of_free
          ? fmt::format("{} visible, {:.2f} of the {} free after loading",
                        format_gb(m.capacity_per_gpu_bytes), m.usable_fraction,
                        format_gb(std::max(0.0, m.capacity_per_gpu_bytes - m.non_kv_bytes())))
          : fmt::format("{} visible × {:.2f}", format_gb(m.capacity_per_gpu_bytes),
                        m.capacity_per_gpu_bytes > 0 ? m.usable_per_gpu_bytes / m.capacity_per_gpu_bytes
                                                     : 0.0);
  fmt::print("  {:<26}{:>10}  of {} usable ({}): {}\n\n", "total", format_gb(m.per_gpu_bytes),
             format_gb(m.usable_per_gpu_bytes), usable_basis,
             m.fits ? fmt::format("fits, {} free", format_gb(m.headroom_bytes()))
                    : fmt::format("DOES NOT FIT, short by {}", format_gb(-m.headroom_bytes())));
}

// A deployment that cannot run: the verdict and what would make it run, nothing else.
void print_infeasible(const app::EstimateResult& result, const std::string& engine_name) {
  const PreparedModel& pm = result.model;
  const Gpu& gpu = result.gpu;
  const InferenceEstimate& e = result.estimate;
  const InferenceWorkload& w = result.workload;
  const Verdict& verdict = result.verdict;
  // Latency and cost of a deployment that cannot run mean nothing: the verdict only.
  fmt::print("verdict: not feasible — {}\n", describe_rejection(verdict.first, e.concurrency));
  if (!verdict.engine_runs) {
    fmt::print(
        "  the {} engine has no build for {} GPUs: serve {} with an engine data/engines.json lists for "
        "{} (--engine) or pick another GPU\n",
        engine_name, gpu.vendor, gpu.id, gpu.vendor);
  } else if (!verdict.precision_supported) {
    fmt::print("  the catalog gives {} no {} tensor-core rate (the GPU does not run it, or no figure is "
               "published): serve a precision it lists (catalog show) or pick another GPU\n",
               gpu.id, math_dtype_name(pm.math));
  } else if (!verdict.fits && e.max_concurrency >= 1 && e.concurrency > e.max_concurrency) {
    fmt::print("  at most {} sequences of {} tokens fit per replica; lower --concurrency or add GPUs\n",
               e.max_concurrency, w.context_tokens());
  } else if (!verdict.fits) {
    fmt::print("  add GPUs (--gpus, --tp), a smaller precision, or a GPU with more memory\n");
  }
}

// TTFT (or seconds per image), the queue wait and TPOT, with their bands and percentiles.
void print_latencies(const InferenceEstimate& e, const app::EstimateBands& bands, bool image) {
  const InferenceBands& ib = bands.inference;
  const bool calibrated = bands.calibrated;
  if (image) {
    // Images have no first token and no token stream: the image latency and rate only.
    fmt::print("  {:<26}{:>10}\n", "seconds per image", format_ms_band(ib.e2e, calibrated));
    fmt::print(
        "  {:<26}{:>10}\n", "image p50 / p90 / p99",
        fmt::format("{} / {} / {}", format_ms(e.e2e.p50_s), format_ms(e.e2e.p90_s), format_ms(e.e2e.p99_s)));
    fmt::print("  {:<26}{:>10}\n", "queue wait (mean)", format_ms(e.queue_wait_s));
  } else if (e.overloaded) {
    // Past what the deployment serves the queue grows without end: no time stands for TTFT.
    fmt::print("  {:<26}{:>10}\n", "TTFT", "unbounded (the queue grows without end)");
  } else {
    fmt::print("  {:<26}{:>10}\n", "TTFT (mean)", format_ms_band(ib.ttft, calibrated));
    fmt::print("  {:<26}{:>10}\n", "TTFT p50 / p90 / p99",
               fmt::format("{} / {} / {}", format_ms(e.ttft.p50_s), format_ms(e.ttft.p90_s),
                           format_ms(e.ttft.p99_s)));
    print_overlay_tail(FigureKind::ttft, bands.ttft_tail);
    fmt::print("  {:<26}{:>10}\n", "queue wait (mean)", format_ms(e.queue_wait_s));
  }
  if (!image) {
    fmt::print("  {:<26}{:>10}\n", "TPOT (incl. prefill mix)", format_ms_band(ib.tpot, calibrated));
    fmt::print("  {:<26}{:>10}\n", "TPOT p50 / p90 / p99",
               fmt::format("{} / {} / {}", format_ms(e.tpot.p50_s), format_ms(e.tpot.p90_s),
                           format_ms(e.tpot.p99_s)));
    print_overlay_tail(FigureKind::tpot, bands.tpot_tail);
  }
}

// Cautions on the bands' reach and warnings on what the catalog lacks.
void print_cautions(const app::EstimateResult& result) {
  const app::EstimateBands& bands = result.bands;
  const InferenceEstimate& e = result.estimate;
  const Gpu& gpu = result.gpu;
  const PreparedModel& pm = result.model;
  for (const auto& note : optimistic_only(bands))
    fmt::print("  caution: {}\n", note);
  if (const std::string unseen = unseen_class_note(bands); !unseen.empty())
    fmt::print("  caution: {}\n", unseen);
  if (const std::string reach = reach_note(bands, gpu.id, pm.model.name); !reach.empty())
    fmt::print("  caution: {}\n", reach);
  if (!e.link_known) {
    fmt::print("  warning: the catalog gives no link bandwidth between {} GPUs; communication is left out\n",
               gpu.id);
  }
  if (!e.precision_supported)
    fmt::print("  warning: the catalog gives {} no {} tensor-core rate\n", gpu.id, math_dtype_name(pm.math));
}

// Latency, throughput and the bound with their bands (methodology §3.5), then the cautions.
void print_performance(const app::EstimateResult& result) {
  const PreparedModel& pm = result.model;
  const InferenceEstimate& e = result.estimate;
  const app::EstimateBands& bands = result.bands;
  const InferenceBands& ib = bands.inference;
  const bool calibrated = bands.calibrated;
  const bool image = is_image_model(pm); // one request = one image (methodology §3.7)
  // Every estimate names how far it reaches beyond measured serving runs (methodology §3.5).
  fmt::print("performance{}\n",
             bands.calibrated
                 ? fmt::format(" (p10–p90 band from docs/accuracy.md; reach: {})", to_string(bands.reach))
                 : std::string());
  print_latencies(e, bands, image);
  if (e.overloaded) {
    fmt::print("  warning: the arrival rate exceeds what a replica serves (the queue grows without bound)\n");
  } else if (bands.slow_end_requests_per_s > 0.0) {
    // The band's slow end: the same deployment at the rate × the TPOT band's ratio (methodology §3.5).
    fmt::print(
        "  note: the latency bands' highs are this deployment at {:.3g} req/s (the rate × {:.2f}, the TPOT "
        "band's ratio){} (methodology §3.5)\n",
        bands.slow_end_requests_per_s,
        e.requests_per_s > 0.0 ? bands.slow_end_requests_per_s / e.requests_per_s : 1.0,
        bands.slow_end_overloaded ? ": past what it serves, so unbounded" : "");
  }
  if (e.clients_exceed_kv) {
    fmt::print("  note: {} clients per replica but the KV cache holds {}: the rest wait for a slot\n",
               e.concurrency, e.max_concurrency);
  }
  if (image) {
    fmt::print("  {:<26}{:>10}\n", "images/s", fmt::format("{:.3g}", e.requests_per_s));
  } else {
    fmt::print("  {:<26}{:>10}\n", "end-to-end per request",
               e.overloaded ? std::string("unbounded") : format_ms_band(ib.e2e, calibrated));
    const Band tput = ib.output_tokens_per_s;
    fmt::print("  {:<26}{:>10}{}\n", "output tokens/s", format_count(e.output_tokens_per_s),
               calibrated && tput.high > tput.low && !e.overloaded
                   ? fmt::format(" ({}–{})", format_count(tput.low), format_count(tput.high))
                   : "");
    fmt::print("  {:<26}{:>10}\n", "requests/s", fmt::format("{:.2f}", e.requests_per_s));
    // What an open-loop deployment is judged and sized by (methodology §6 "Load served").
    if (e.open_loop && e.capacity_requests_per_s > 0.0) {
      fmt::print("  {:<26}{:>10}\n", "capacity requests/s", fmt::format("{:.2f}", e.capacity_requests_per_s));
    }
  }
  fmt::print("  {:<26}{:>10}\n", "bound", to_string(e.bound));
  print_cautions(result);
}

// The price and the costs at capacity and at the load.
void print_cost(const app::EstimateResult& result, PricingModel pricing) {
  const PreparedModel& pm = result.model;
  const InferenceEstimate& e = result.estimate;
  const ResolvedPrice& price = result.price;
  const CostAtLoad& at_load = result.at_load;
  const bool image = is_image_model(pm); // one request = one image (methodology §3.7)
  fmt::print("\ncost ({} price: {}, {}{})\n", to_string(pricing), price.basis,
             price.known ? format_usd(price.usd_per_hour) + "/GPU-h" : "no price",
             price.date.empty() ? "" : ", " + price.date);
  fmt::print("  {:<26}{:>10}\n", "per hour", format_usd(e.usd_per_hour, price.known));
  fmt::print("  instances: {}\n", instances_text(e.bill, gpu_price(price)));
  if (image) {
    fmt::print("  {:<26}{:>10}\n", e.open_loop ? "per 1,000 images (load)" : "per 1,000 images (cap.)",
               format_usd(e.usd_per_request * 1e3, price.known));
    if (!e.open_loop && at_load.served_requests_per_s > 0.0 &&
        at_load.served_requests_per_s < e.requests_per_s) {
      fmt::print("  {:<26}{:>10}  at the SLA's {:.3g} images/s\n", "per 1,000 images (load)",
                 format_usd(at_load.usd_per_request * 1e3, price.known), at_load.served_requests_per_s);
    }
  } else {
    for (const CostLine& line : cost_per_million_lines(e, at_load, price.known))
      fmt::print("  {:<26}{:>10}{}{}\n", line.label, line.value, line.note.empty() ? "" : "  ", line.note);
    fmt::print("  {:<26}{:>10}\n", "per request (capacity)", format_usd(e.usd_per_request, price.known));
  }
}

// Each SLA term judged at the confidence, and goodput.
void print_sla(const app::EstimateResult& result, Confidence confidence) {
  const PreparedModel& pm = result.model;
  const Verdict& verdict = result.verdict;
  const bool image = is_image_model(pm); // one request = one image (methodology §3.7)
  if (verdict.term_count > 0) {
    fmt::print("\nSLA (--confidence {}): {}\n", to_string(confidence), verdict.passes() ? "met" : "missed");
    for (std::size_t i = 0; i < verdict.term_count; ++i)
      fmt::print("  {} {}\n", verdict.terms[i].met ? "ok  " : "MISS",
                 describe_term(verdict.terms[i], image ? vocabulary_of(pm.model.kind) : Vocabulary{}));
    if (result.goodput.has_targets && !image && verdict.feasible())
      fmt::print("  {}\n", goodput_line(result.goodput));
  }
}

} // namespace

void print_inference_table(const app::EstimateResult& result, PricingModel pricing, Confidence confidence,
                           const std::string& engine_name) {
  print_identity(result);
  print_workload(result, engine_name);
  print_memory(result.estimate.memory);
  if (!result.verdict.feasible()) {
    // Latency and cost of a deployment that cannot run mean nothing: the verdict only.
    print_infeasible(result, engine_name);
  } else {
    print_performance(result);
    print_cost(result, pricing);
    print_sla(result, confidence);
  }
  if (!result.assumptions.empty()) {
    fmt::print("\nassumptions\n");
    for (const auto& a : result.assumptions)
      fmt::print("  - {}\n", a);
  }
}

} // namespace rightsize::cli
