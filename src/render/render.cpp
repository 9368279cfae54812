#include "render/render.hpp"

#include <cmath>
#include <cstdlib>
#include <tuple>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rightsize/stack_calibration.hpp"
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

const char* stat_suffix(Statistic statistic) {
  switch (statistic) {
  case Statistic::mean: return "";
  case Statistic::p50: return " p50";
  case Statistic::p90: return " p90";
  case Statistic::p99: return " p99";
  }
  return "";
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

std::string format_wait(const InferenceEstimate& e, double seconds) {
  return e.overloaded ? std::string("unbounded") : format_ms(seconds);
}

std::string format_usd(double usd, bool known) {
  if (!known) return "n/a";
  if (usd >= 100.0) return fmt::format("${:.0f}", usd);
  if (usd >= 1.0) return fmt::format("${:.2f}", usd);
  if (usd >= 0.01) return fmt::format("${:.3f}", usd);
  return fmt::format("${:.2e}", usd);
}

std::string format_pct(double pct) {
  const double a = std::fabs(pct);
  std::string text = fmt::format("{:.0f}%", a);
  if (text != "0%") return text;
  text = fmt::format("{:.1f}%", a);
  if (text != "0.0%") return text;
  return a > 0.0 ? "<0.1%" : "0%";
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

nlohmann::json json_bytes(double bytes) {
  if (std::fabs(bytes) < 9.2e18) return static_cast<std::int64_t>(std::llround(bytes));
  if (!std::isfinite(bytes)) return nullptr;
  return std::round(bytes);
}

std::string text_bytes(double bytes) {
  if (std::fabs(bytes) < 9.2e18) return std::to_string(static_cast<std::int64_t>(std::llround(bytes)));
  if (!std::isfinite(bytes)) return "null";
  return fmt::format("{}", std::round(bytes));
}

std::string format_params(double params) {
  if (params >= 1e9) return fmt::format("{:.2f} B", params / 1e9);
  return fmt::format("{:.1f} M", params / 1e6);
}

void append_rejection(fmt::memory_buffer& out, const TermCheck& r, std::int64_t concurrency,
                      const Vocabulary& words) {
  append_term(out, r, {TermForm::rejection, concurrency, words, false});
}

void append_training_rejection(fmt::memory_buffer& out, const TermCheck& r) {
  TermWording how;
  how.cost_per_run = true;
  append_term(out, r, how);
}

std::string describe_rejection(const TermCheck& r, std::int64_t concurrency, const Vocabulary& words) {
  return describe(r, {TermForm::rejection, concurrency, words, false});
}

std::string describe_rejection(const Candidate& c, const Vocabulary& words) {
  return describe_rejection(c.rejection, c.estimate.concurrency, words);
}

nlohmann::json verdict_json(const Verdict& v, Confidence confidence, std::int64_t concurrency) {
  nlohmann::json terms = nlohmann::json::array();
  for (std::size_t i = 0; i < v.term_count; ++i) {
    const TermCheck& t = v.terms[i];
    terms.push_back({{"term", to_string(t.term)},
                     {"statistic", to_string(t.stat)},
                     {"value", round_sig(t.value)},
                     {"point_value", round_sig(t.point_value)},
                     {"limit", round_sig(t.limit)},
                     {"met", t.met},
                     {"margin", round_sig(t.margin(), 4)}});
    if (t.is_load()) {
      terms.back()["headroom"] = round_sig(t.headroom, 4);
      terms.back()["capacity"] = t.capacity;
    }
    // The latency of an overloaded open loop is unbounded: no number stands for it.
    if (t.overloaded) terms.back()["overloaded"] = true;
    if (t.overloaded && !t.is_load()) {
      terms.back()["value"] = nullptr;
      terms.back()["point_value"] = nullptr;
      terms.back()["margin"] = nullptr;
    }
    // A budget without a price, a cap without a TDP: no figure to show, nothing to beat the limit by.
    if (t.unknown) {
      terms.back()["value"] = nullptr;
      terms.back()["point_value"] = nullptr;
      terms.back()["margin"] = nullptr;
    }
    // Served at the point, overloaded at the band's slow end (methodology §3.5): the judged value is
    // unbounded.
    if (t.overloaded_at_band) {
      terms.back()["overloaded_at_band"] = true;
      terms.back()["value"] = nullptr;
      terms.back()["margin"] = nullptr;
    }
  }
  return {{"passes", v.passes()},
          {"feasible", v.feasible()},
          {"precision_supported", v.precision_supported},
          {"link_known", v.link_known},
          {"fits", v.fits},
          {"memory_needed_bytes", json_bytes(v.memory_needed_bytes)},
          {"memory_usable_bytes", json_bytes(v.memory_usable_bytes)},
          {"confidence", to_string(confidence)},
          {"terms", terms},
          {"reason", reason_code(v.first.term)},
          {"message", describe_rejection(v.first, concurrency)}};
}

std::string describe_term(const TermCheck& t, const Vocabulary& words) {
  return describe(t, {TermForm::check, 0, words, false});
}

namespace {
using nlohmann::json;
json percentiles(const Percentiles& p) {
  return json{{"p50", round_sig(p.p50_s)}, {"p90", round_sig(p.p90_s)}, {"p99", round_sig(p.p99_s)}};
}
} // namespace

nlohmann::json load_json(const InferenceWorkload& w, const std::string& engine_name) {
  nlohmann::json out = {{"engine", engine_name}, {"arrival", to_string(w.arrival)}};
  if (w.arrival == Arrival::poisson) {
    out["request_rate_per_s"] = round_sig(w.request_rate_per_s);
    out["arrival_cv"] = round_sig(w.arrival_cv);
  }
  // Request lengths that vary (methodology §3.1 "Request lengths"): their p50 and p99.
  for (const auto& [key, spread] :
       {std::pair{"input_spread", &w.input_spread}, std::pair{"output_spread", &w.output_spread}}) {
    if (spread->varies())
      out[key] = {{"p50_tokens", round_sig(spread->p50_tokens)},
                  {"p99_tokens", round_sig(spread->p99_tokens)},
                  {"given_as", to_string(spread->shape)}};
  }
  if (w.speculative.method != SpeculativeMethod::none) {
    out["speculative"] = {{"method", to_string(w.speculative.method)},
                          {"draft_tokens", w.speculative.draft_tokens},
                          {"acceptance_rate", round_sig(w.speculative.acceptance_rate)},
                          {"tokens_per_step", round_sig(w.speculative.tokens_per_step())}};
    if (!w.speculative.acceptance_by_position.empty())
      out["speculative"]["acceptance_by_position"] = std::vector<double>(
          w.speculative.acceptance_by_position.begin(), w.speculative.acceptance_by_position.end());
  }
  return out;
}

nlohmann::json estimate_json(const PreparedModel& model, const std::string& gpu_id, const Deployment& d,
                             const InferenceEstimate& e, bool price_known) {
  using nlohmann::json;
  auto bytes = [](double b) { return json_bytes(b); };
  json doc;
  doc["model"] = {{"name", model.model.name},
                  {"params", model.params.total},
                  {"active_params", model.params.active},
                  {"weight_bytes_total", bytes(model.weight_bytes_total)}};
  if (model.model.vision.layers > 0) {
    // Vision-language model (methodology §1.6): the tower and what the request's images add.
    const VisionTowerSpec& v = model.model.vision;
    const VisionRequest r = vision_request(v);
    doc["model"]["vision"] = {{"params", model.params.vision},
                              {"weight_bytes", bytes(model.vision_weight_bytes)},
                              {"images_per_request", v.images_per_request},
                              {"image_tokens_per_request", r.image_tokens},
                              {"encoder_flops_per_request", round_sig(r.encoder_flops)}};
  }
  doc["deployment"] = {{"gpu", gpu_id},
                       {"gpus", d.gpus},
                       {"tp", d.tp},
                       {"pp", d.pp},
                       {"ep", d.ep},
                       {"attention_dp", d.attention_dp},
                       {"replicas", d.replicas()}};
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
                      {"ttft_percentiles_s", percentiles(e.ttft)},
                      {"tpot_percentiles_s", percentiles(e.tpot)},
                      {"e2e_percentiles_s", percentiles(e.e2e)},
                      {"queue_wait_s", round_sig(e.queue_wait_s)},
                      {"overloaded", e.overloaded},
                      {"capacity_requests_per_s",
                       e.capacity_requests_per_s > 0.0 ? json(round_sig(e.capacity_requests_per_s)) : json()},
                      {"clients_exceed_kv", e.clients_exceed_kv},
                      {"output_tokens_per_s", round_sig(e.output_tokens_per_s)},
                      {"requests_per_s", round_sig(e.requests_per_s)},
                      {"comm_s_per_token", round_sig(e.comm_s_per_token)},
                      {"bound", to_string(e.bound)},
                      {"precision_supported", e.precision_supported},
                      {"link_known", e.link_known}};
  if (e.overloaded) {
    // The queue grows without end: the waits are unbounded, not the finite stand-ins the core keeps.
    for (const char* key : {"ttft_s", "e2e_s", "ttft_percentiles_s", "e2e_percentiles_s", "queue_wait_s"})
      doc["inference"][key] = nullptr;
  }
  json cost = {{"price_known", price_known}};
  if (price_known) {
    cost["usd_per_hour"] = round_sig(e.usd_per_hour);
    cost["usd_per_million_output_tokens_at_capacity"] = round_sig(e.usd_per_million_output_tokens);
    cost["usd_per_request_at_capacity"] = round_sig(e.usd_per_request);
  } else {
    cost["usd_per_hour"] = nullptr;
    cost["usd_per_million_output_tokens_at_capacity"] = nullptr;
    cost["usd_per_request_at_capacity"] = nullptr;
  }
  doc["cost"] = cost;
  return doc;
}

void add_cost_at_load(nlohmann::json& cost, const CostAtLoad& at_load, bool price_known) {
  // A deployment that serves no load (a rejected candidate) has no served figures: null, not 0.
  const bool serves = at_load.served_requests_per_s > 0.0;
  const auto figure = [&](double v, bool known) {
    return serves && known ? nlohmann::json(round_sig(v)) : nlohmann::json();
  };
  cost["served_requests_per_s"] = figure(at_load.served_requests_per_s, true);
  cost["served_output_tokens_per_s"] = figure(at_load.served_output_tokens_per_s, true);
  cost["usd_per_million_output_tokens_at_load"] = figure(at_load.usd_per_million_output_tokens, price_known);
  cost["usd_per_request_at_load"] = figure(at_load.usd_per_request, price_known);
}

std::vector<CostLine> cost_per_million_lines(const InferenceEstimate& e, const CostAtLoad& at_load,
                                             bool price_known) {
  // At capacity (an open loop's closed-loop capacity) and at the load served: an open loop serves its
  // arrival rate (its capacity when overloaded), a closed loop the SLA's load.
  std::vector<CostLine> lines;
  lines.push_back({"per 1M output tok (cap.)", format_usd(e.usd_per_million_output_tokens, price_known), ""});
  if (at_load.served_requests_per_s > 0.0 &&
      (e.open_loop || at_load.served_requests_per_s < e.requests_per_s)) {
    lines.push_back({"per 1M output tok (load)",
                     format_usd(at_load.usd_per_million_output_tokens, price_known),
                     fmt::format("at {:.2f} req/s{}", at_load.served_requests_per_s,
                                 !e.open_loop   ? " (the SLA's)"
                                 : e.overloaded ? " (its capacity: the rest of the arrivals queue)"
                                                : " (the lower of the SLA's peak and the arrivals)")});
  }
  return lines;
}

void print_overlay_tail(FigureKind kind, const std::optional<app::OverlayTail>& tail) {
  if (!tail) return;
  fmt::print("  {:<26}{:>10}  (mean x{:.2f}: p99 / mean of your {} runs, --calibration)\n",
             kind == FigureKind::ttft ? "TTFT p99 (your runs)" : "TPOT p99 (your runs)",
             format_ms(tail->p99_s), tail->p99_over_mean, tail->runs);
}

void add_inference_bands(nlohmann::json& doc, const app::EstimateBands& bands) {
  const InferenceBands& ib = bands.inference;
  auto put = [&](const char* section, const char* key, const Band& b) {
    doc[section][std::string(key) + "_low"] = round_sig(b.low);
    doc[section][std::string(key) + "_high"] = round_sig(b.high);
  };
  put("inference", "ttft_s", ib.ttft);
  put("inference", "tpot_s", ib.tpot);
  put("inference", "e2e_s", ib.e2e);
  put("inference", "output_tokens_per_s", ib.output_tokens_per_s);
  put("inference", "requests_per_s", ib.requests_per_s);
  if (doc["inference"].value("overloaded", false)) {
    // Unbounded waits have no band; the throughput served is the capacity, not the band's figure.
    for (const char* key : {"ttft_s", "e2e_s", "output_tokens_per_s", "requests_per_s"}) {
      doc["inference"][std::string(key) + "_low"] = nullptr;
      doc["inference"][std::string(key) + "_high"] = nullptr;
    }
  }
  doc["memory"]["per_gpu_bytes_low"] = json_bytes(bands.memory_per_gpu_bytes.low);
  doc["memory"]["per_gpu_bytes_high"] = json_bytes(bands.memory_per_gpu_bytes.high);
  if (bands.ttft_tail) doc["inference"]["ttft_p99_from_overlay_s"] = round_sig(bands.ttft_tail->p99_s);
  if (bands.tpot_tail) doc["inference"]["tpot_p99_from_overlay_s"] = round_sig(bands.tpot_tail->p99_s);
  doc["bands"] = {{"calibrated", bands.calibrated},
                  {"meaning", "p10..p90 of measured/predicted on the validation set (docs/accuracy.md)"}};
  if (bands.calibrated) {
    // How far the estimate reaches beyond measured serving runs (docs/accuracy.md "Bands by reach").
    doc["bands"]["reach"] = to_string(bands.reach);
    if (!bands.reach_held_out.empty()) doc["bands"]["reach_band_from"] = bands.reach_held_out;
  }
  if (bands.slow_end_requests_per_s > 0.0) {
    // An open loop's latency highs are its slow end's (methodology §3.5).
    doc["bands"]["slow_end_requests_per_s"] = round_sig(bands.slow_end_requests_per_s);
    doc["bands"]["slow_end_overloaded"] = bands.slow_end_overloaded;
  }
}

std::string reach_note(const app::EstimateBands& bands, const std::string& gpu_id, const std::string& model) {
  if (!bands.calibrated || bands.reach == Reach::measured) return "";
  if (bands.reach == Reach::model_unmeasured) {
    // An overlay that gave no band of its own (too few runs, or too few measuring TTFT and TPOT):
    // its factors apply, its runs set no band.
    const bool few = bands.overlay_runs < k_min_band_runs;
    const std::string measured =
        bands.overlay_runs > 0
            ? fmt::format(
                  "the shipped serving runs on {} include none of {}, and the --calibration overlay's "
                  "{} run{} on it {} the {} a band of its own needs",
                  gpu_id, model, bands.overlay_runs, bands.overlay_runs == 1 ? "" : "s",
                  few ? "are fewer than" : "measure TTFT and TPOT in fewer than", k_min_band_runs)
            : fmt::format("serving runs were measured on {} but none of {}", gpu_id, model);
    return fmt::format("{} (reach: {}); its TTFT, TPOT and throughput bands are widened to those the {} "
                       "models of the serving rows showed when each was held out of the fit "
                       "(docs/accuracy.md \"Bands by reach\")",
                       measured, to_string(bands.reach), bands.reach_held_out.size());
  }
  const bool sibling = bands.reach == Reach::gpu_sibling;
  return fmt::format(
      "no serving runs were measured on {}{} (reach: {}); its TTFT, TPOT and throughput bands "
      "are widened to those of {} held out of the fit ({}; docs/accuracy.md \"Bands by reach\")",
      gpu_id, sibling ? "" : " or its family", to_string(bands.reach),
      sibling ? "GPUs of its family" : "GPUs", fmt::join(bands.reach_held_out, ", "));
}

std::string unseen_class_note(const app::EstimateBands& bands) {
  if (!bands.calibrated || bands.class_width.measured) return "";
  return fmt::format("no published measurement of the {} model class is scored (docs/accuracy.md): its "
                     "bands are widened ×{:.1f} in log ratio, as for an unseen class",
                     bands.model_class, bands.class_width.factor);
}

std::vector<std::string> optimistic_only(const app::EstimateBands& bands) {
  std::vector<std::string> out;
  // The comparison is core's (core::optimistic_only_terms, run by the use case); only the words are here.
  for (std::size_t i = 0; i < bands.optimistic_only_count; ++i) {
    std::string words = describe(bands.optimistic_only[i], {TermForm::caution, 0, {}, false});
    if (!words.empty()) out.push_back(std::move(words));
  }
  return out;
}

std::string format_ms_band(const Band& b, bool calibrated) {
  if (!calibrated || b.value <= 0.0) return format_ms(b.value);
  // An open loop overloaded at its band's slow end has no upper bound (methodology §3.5).
  const std::string high = std::isfinite(b.high) ? format_ms(b.high) : std::string("unbounded");
  return fmt::format("{} ({}–{})", format_ms(b.value), format_ms(b.low), high);
}

nlohmann::json assumptions_json(const std::vector<std::string>& assumptions) {
  return nlohmann::json(assumptions);
}

std::string calibration_table_line(const LoadedCatalog& loaded) {
  return fmt::format("calibration  {}", loaded.calibration_label);
}

// Goodput (methodology §6 "Goodput"): the requests/s within every latency target and each target's share.
std::string goodput_line(const Goodput& g) {
  std::vector<std::string> parts;
  const auto part = [&](const char* name, double limit_ms, double share) {
    if (limit_ms > 0.0) parts.push_back(fmt::format("{} ≤ {:g} ms {:.1f} %", name, limit_ms, 100.0 * share));
  };
  part("TTFT", g.ttft_limit_ms, g.ttft_share);
  part("TPOT", g.tpot_limit_ms, g.tpot_share);
  part("E2E", g.e2e_limit_ms, g.e2e_share);
  if (g.overloaded_at_band)
    return "goodput 0 req/s: no request within target, the queue grows without end at the band's slow "
           "end (methodology §3.5, §6.1)";
  return fmt::format(
      "goodput {:.3g} req/s: {:.1f} % of requests within every latency target ({}; methodology §6.1)",
      g.requests_per_s, 100.0 * g.slo_attainment, fmt::join(parts, ", "));
}

nlohmann::json goodput_json(const Goodput& g) {
  nlohmann::json out = {{"requests_per_s", round_sig(g.requests_per_s)},
                        {"slo_attainment", round_sig(g.slo_attainment)}};
  if (g.ttft_limit_ms > 0.0) out["ttft_share"] = round_sig(g.ttft_share);
  if (g.tpot_limit_ms > 0.0) out["tpot_share"] = round_sig(g.tpot_share);
  if (g.e2e_limit_ms > 0.0) out["e2e_share"] = round_sig(g.e2e_share);
  if (g.overloaded_at_band) out["overloaded_at_band"] = true;
  return out;
}

} // namespace rightsize::cli
