#include "render.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rightsize/text.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {

double round_sig(double value, int digits) {
  if (value == 0.0 || !std::isfinite(value)) return std::isfinite(value) ? 0.0 : value;
  const double magnitude = std::ceil(std::log10(std::fabs(value)));
  const double scale = std::pow(10.0, static_cast<double>(digits) - magnitude);
  if (!std::isfinite(scale) || !std::isfinite(value * scale)) {
    // Below ~1e-302 the scale overflows (round_sig gave NaN): go through decimal text instead.
    return std::strtod(fmt::format("{:.{}g}", value, digits).c_str(), nullptr);
  }
  return std::round(value * scale) / scale;
}

std::string format_gb(double bytes) {
  return fmt::format("{:.2f} GB", bytes / k_bytes_per_gb);
}

std::string format_ms(double seconds) {
  if (seconds <= 0.0) return "-";
  const double ms = seconds * 1e3;
  if (seconds >= 1000.0) return fmt::format("{:.0f} s", seconds);
  if (seconds >= 10.0) return fmt::format("{:.1f} s", seconds);
  if (seconds >= 1.0) return fmt::format("{:.2f} s", seconds);
  if (ms >= 100.0) return fmt::format("{:.0f} ms", ms);
  if (ms >= 10.0) return fmt::format("{:.1f} ms", ms);
  return fmt::format("{:.2f} ms", ms);
}

std::string format_usd(double usd, bool known) {
  if (!known) return "n/a";
  if (usd >= 100.0) return fmt::format("${:.0f}", usd);
  if (usd >= 1.0) return fmt::format("${:.2f}", usd);
  if (usd >= 0.01) return fmt::format("${:.3f}", usd);
  return fmt::format("${:.2e}", usd);
}

std::string format_usd_total(double usd) {
  if (usd >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (usd >= 1e4) return fmt::format("${:.1f}k", usd / 1e3);
  return format_usd(usd);
}

std::string format_count(double value) {
  // llround is unspecified past the long long range (and for NaN): print those in exponent form.
  if (!(std::fabs(value) < 9e18)) return fmt::format("{:.3g}", value);
  return with_commas(static_cast<std::int64_t>(std::llround(value)));
}

std::string format_params(double params) {
  if (params >= 1e9) return fmt::format("{:.2f} B", params / 1e9);
  return fmt::format("{:.1f} M", params / 1e6);
}

std::string layout_label(const Deployment& layout) {
  std::string out = fmt::format("TP{}", layout.tp);
  if (layout.pp > 1) out += fmt::format("·PP{}", layout.pp);
  if (layout.ep > 1) out += fmt::format(" EP{}", layout.ep);
  return out;
}

std::string describe_rejection(const Candidate& c) {
  const Rejection& r = c.rejection;
  const auto conc = c.estimate.concurrency;
  switch (r.reason) {
  case RejectReason::none: return "meets every requirement";
  case RejectReason::precision_unsupported: return "the GPU has no tensor-core support for this precision";
  case RejectReason::layout: return "the catalog gives no link bandwidth between these GPUs";
  case RejectReason::does_not_fit:
    return fmt::format("needs {:.1f} GB per GPU, has {:.1f} GB usable", r.value / k_bytes_per_gb,
                       r.limit / k_bytes_per_gb);
  case RejectReason::ttft:
    return fmt::format("TTFT {:.0f} ms > SLA {:g} ms at concurrency {}", r.value, r.limit, conc);
  case RejectReason::tpot:
    return fmt::format("TPOT {:.1f} ms > SLA {:g} ms at concurrency {}", r.value, r.limit, conc);
  case RejectReason::e2e:
    return fmt::format("end-to-end {:.0f} ms > SLA {:g} ms at concurrency {}", r.value, r.limit, conc);
  case RejectReason::throughput:
    return fmt::format("at most {:.1f}/s with 100,000 replicas, SLA needs {:g}/s", r.value, r.limit);
  case RejectReason::budget: return fmt::format("costs ${:.2f}/h > budget ${:g}/h", r.value, r.limit);
  case RejectReason::no_price: return "no price known for this GPU";
  case RejectReason::deadline: return fmt::format("takes {:.1f} h > deadline {:g} h", r.value, r.limit);
  case RejectReason::power:
    return r.value > 0.0 ? fmt::format("draws {:.2f} kW at peak load > cap {:g} kW", r.value, r.limit)
                         : fmt::format("TDP unknown: cannot check the {:g} kW power cap", r.limit);
  }
  return "rejected";
}

nlohmann::json estimate_json(const PreparedModel& model, const std::string& gpu_id, const Deployment& d,
                             const InferenceEstimate& e, bool price_known) {
  using nlohmann::json;
  auto bytes = [](double b) { return static_cast<std::int64_t>(std::llround(b)); };
  json doc;
  doc["model"] = {{"name", model.model.name},
                  {"params", model.params.total},
                  {"active_params", model.params.active},
                  {"weight_bytes_total", bytes(model.weight_bytes_total)}};
  doc["deployment"] = {{"gpu", gpu_id}, {"gpus", d.gpus}, {"tp", d.tp},
                       {"pp", d.pp},    {"ep", d.ep},     {"replicas", d.replicas()}};
  const MemoryEstimate& m = e.memory;
  doc["memory"] = {{"per_gpu_bytes", bytes(m.per_gpu_bytes)},
                   {"capacity_per_gpu_bytes", bytes(m.capacity_per_gpu_bytes)},
                   {"usable_per_gpu_bytes", bytes(m.usable_per_gpu_bytes)},
                   {"weights_bytes", bytes(m.weights_bytes)},
                   {"kv_cache_bytes", bytes(m.kv_cache_bytes)},
                   {"activations_bytes", bytes(m.activations_bytes)},
                   {"overhead_bytes", bytes(m.overhead_bytes)},
                   {"headroom_bytes", bytes(m.headroom_bytes())},
                   {"fits", m.fits}};
  doc["inference"] = {{"concurrency", e.concurrency},
                      {"max_concurrency", e.max_concurrency},
                      {"prefill_s", round_sig(e.prefill_s)},
                      {"decode_step_s", round_sig(e.decode_step_s)},
                      {"ttft_s", round_sig(e.ttft_s)},
                      {"tpot_s", round_sig(e.tpot_s)},
                      {"e2e_s", round_sig(e.e2e_s)},
                      {"output_tokens_per_s", round_sig(e.output_tokens_per_s)},
                      {"requests_per_s", round_sig(e.requests_per_s)},
                      {"comm_s_per_token", round_sig(e.comm_s_per_token)},
                      {"bound", to_string(e.bound)},
                      {"precision_supported", e.precision_supported},
                      {"link_known", e.link_known}};
  json cost = {{"price_known", price_known}};
  if (price_known) {
    cost["usd_per_hour"] = round_sig(e.usd_per_hour);
    cost["usd_per_million_output_tokens"] = round_sig(e.usd_per_million_output_tokens);
    cost["usd_per_request"] = round_sig(e.usd_per_request);
  } else {
    cost["usd_per_hour"] = nullptr;
    cost["usd_per_million_output_tokens"] = nullptr;
    cost["usd_per_request"] = nullptr;
  }
  doc["cost"] = cost;
  return doc;
}

Band BandContext::band(FigureKind kind, double value) const {
  if (calibration == nullptr) return Band{value, value, value};
  return band_for(*calibration, kind, gpu_id, value, model_class);
}

void add_inference_bands(nlohmann::json& doc, const BandContext& bands, const InferenceEstimate& e) {
  auto put = [&](const char* section, const char* key, FigureKind kind, double value) {
    const Band b = bands.band(kind, value);
    doc[section][std::string(key) + "_low"] = round_sig(b.low);
    doc[section][std::string(key) + "_high"] = round_sig(b.high);
  };
  put("inference", "ttft_s", FigureKind::ttft, e.ttft_s);
  put("inference", "tpot_s", FigureKind::tpot, e.tpot_s);
  put("inference", "e2e_s", FigureKind::e2e, e.e2e_s);
  put("inference", "output_tokens_per_s", FigureKind::throughput, e.output_tokens_per_s);
  put("inference", "requests_per_s", FigureKind::throughput, e.requests_per_s);
  const Band m = bands.band(FigureKind::memory, e.memory.per_gpu_bytes);
  doc["memory"]["per_gpu_bytes_low"] = static_cast<std::int64_t>(std::llround(m.low));
  doc["memory"]["per_gpu_bytes_high"] = static_cast<std::int64_t>(std::llround(m.high));
  doc["bands"] = {{"calibrated", bands.calibration != nullptr},
                  {"meaning", "p10..p90 of measured/predicted on the validation set (docs/accuracy.md)"}};
}

std::vector<std::string> optimistic_only(const BandContext& bands, const InferenceEstimate& e,
                                         const Sla& sla) {
  std::vector<std::string> out;
  auto check = [&](const char* name, FigureKind kind, double seconds, const std::optional<double>& limit_ms) {
    if (!limit_ms || seconds * 1e3 > *limit_ms) return;
    const double high_ms = bands.band(kind, seconds).high * 1e3;
    if (high_ms > *limit_ms) {
      out.push_back(fmt::format("{} {:.1f} ms meets {:g} ms, but its p90 is {:.1f} ms", name, seconds * 1e3,
                                *limit_ms, high_ms));
    }
  };
  check("TTFT", FigureKind::ttft, e.ttft_s, sla.ttft_ms);
  check("TPOT", FigureKind::tpot, e.tpot_s, sla.tpot_ms);
  check("end-to-end", FigureKind::e2e, e.e2e_s, sla.e2e_ms);
  if (sla.requests_per_s && e.requests_per_s >= *sla.requests_per_s) {
    const double low = bands.band(FigureKind::throughput, e.requests_per_s).low;
    if (low < *sla.requests_per_s) {
      out.push_back(fmt::format("{:.1f} req/s meets {:g} req/s, but its p10 is {:.1f}", e.requests_per_s,
                                *sla.requests_per_s, low));
    }
  }
  return out;
}

std::string format_ms_band(const BandContext& bands, FigureKind kind, double seconds) {
  if (bands.calibration == nullptr || seconds <= 0.0) return format_ms(seconds);
  const Band b = bands.band(kind, seconds);
  return fmt::format("{} ({}–{})", format_ms(seconds), format_ms(b.low), format_ms(b.high));
}

nlohmann::json assumptions_json(const std::vector<std::string>& assumptions) {
  return nlohmann::json(assumptions);
}

} // namespace rightsize::cli
