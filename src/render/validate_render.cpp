#include "render/validate_render.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/json/json_text.hpp"
#include "render/image_render.hpp"
#include "render/model_summary.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

using Resolved = app::ValidateResult;

std::string precision_text(const Precision& p) {
  return fmt::format("weights {}, activations {}, kv cache {}", format_info(p.weights).name,
                     format_info(p.activations).name, format_info(p.kv_cache).name);
}

std::string workload_text(const Spec& s) {
  if (s.mode == WorkloadMode::training) {
    const TrainingWorkload& t = s.training;
    std::string text = fmt::format("training ({}): seq_len {}, global batch {}", to_string(t.method),
                                   t.seq_len, t.global_batch);
    if (t.method != TrainingMethod::full) text += fmt::format(", lora rank {}", t.lora_rank);
    if (t.tokens > 0) text += fmt::format(", {:.3g} tokens", t.tokens);
    return text + fmt::format(", optimizer {}", to_string(t.optimizer));
  }
  const InferenceWorkload& w = s.inference;
  if (s.model.kind == ModelKind::dit) {
    return fmt::format("inference: one image per request ({}), batch {}", image_workload_line(s.model),
                       w.concurrency == 0 ? std::string("auto") : std::to_string(w.concurrency));
  }
  return fmt::format(
      "inference: {} input + {} output tokens, concurrency {}, context {}", w.input_tokens, w.output_tokens,
      w.concurrency == 0 ? std::string("auto") : std::to_string(w.concurrency), w.context_tokens());
}

std::string sla_text(const Sla& sla, ModelKind kind) {
  if (kind == ModelKind::dit) return describe_image_sla(sla);
  std::string out;
  const auto add = [&](const std::optional<double>& v, const char* unit) {
    if (v) out += fmt::format("{}{:g} {}", out.empty() ? "" : ", ", *v, unit);
  };
  add(sla.ttft_ms, "ms ttft");
  add(sla.tpot_ms, "ms tpot");
  add(sla.e2e_ms, "ms e2e");
  add(sla.requests_per_s, "requests/s peak");
  add(sla.average_requests_per_s, "requests/s average");
  add(sla.growth_factor, "x growth");
  add(sla.output_tokens_per_s, "output tokens/s");
  add(sla.deadline_hours, "h deadline");
  add(sla.budget_usd, "USD budget");
  return out.empty() ? "none" : out;
}

// The vision tower of a vision-language model (methodology §1.6): its parameters and what one image
// becomes at the workload's resolution (or the default one).
std::string vision_summary(const VisionTowerSpec& v) {
  const VisionParams p = count_vision_params(v);
  const std::int64_t side = default_image_side_px(v);
  const std::int64_t width = v.image_width_px > 0 ? v.image_width_px : side;
  const std::int64_t height = v.image_height_px > 0 ? v.image_height_px : side;
  const VisionImage img = vision_image(v, width, height);
  const char* rule = v.rule == VisionTokenRule::dynamic_resolution ? "native resolution"
                     : v.rule == VisionTokenRule::tiled            ? "tiles"
                                                                   : "fixed resolution";
  return fmt::format("{} blocks of {} ({} encoder + {} projector = {} params, kept 16-bit); a {}x{} px image "
                     "= {} LM tokens ({}{}), {:.3g} TFLOP to encode",
                     v.layers, v.hidden_size, short_count(p.encoder), short_count(p.projector),
                     short_count(p.total), width, height, img.tokens, rule,
                     img.tiles > 1 ? fmt::format(", {} tiles", img.tiles) : std::string(),
                     img.encoder_flops / 1e12);
}

void print_table(const Spec& s, const Resolved& r) {
  const ModelSpec& m = s.model;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"spec", s.name},
      {"model", m.name},
      {"kind", to_string(m.kind)},
      {"parameters",
       fmt::format("{} total ({}), {} active ({})", with_commas(r.params.total), short_count(r.params.total),
                   with_commas(r.params.active), short_count(r.params.active))},
      {"weights", fmt::format("{:.2f} GB = {:.2f} GiB ({} bytes; GB = 1e9, GiB = 2^30){}",
                              r.weight_bytes / k_bytes_per_gb, r.weight_bytes / k_bytes_per_gib,
                              with_commas(static_cast<std::int64_t>(r.weight_bytes)),
                              m.checkpoint_weight_bytes > 0 ? ", from the checkpoint" : "")},
      {"kv cache", m.kind == ModelKind::decoder
                       ? fmt::format("{} bytes per token ({:.1f} KiB) at {}",
                                     with_commas(static_cast<std::int64_t>(r.kv_bytes_per_token)),
                                     r.kv_bytes_per_token / 1024.0, format_info(s.precision.kv_cache).name)
                       : std::string("none (no KV cache)")},
      {"layers", std::to_string(m.layers)},
      {"hidden", std::to_string(m.hidden_size)},
      {"attention", attention_summary(m)},
      {"sliding window", window_summary(m)},
      {"moe", moe_summary(m)},
      {"precision", precision_text(s.precision)},
      {"workload", workload_text(s)},
      {"sla", sla_text(s.sla, s.model.kind)},
  };
  if (m.linear_attention.layers > 0) {
    rows.emplace_back("linear attention",
                      fmt::format("{} of {} layers ({}): {} bytes of state per sequence ({:.1f} MiB), "
                                  "KV only in the other {}",
                                  m.linear_attention.layers, m.layers, to_string(m.linear_attention.kind),
                                  with_commas(static_cast<std::int64_t>(r.linear_state_bytes)),
                                  r.linear_state_bytes / 1048576.0, attention_layers(m)));
  }
  if (m.vision.layers > 0) rows.emplace_back("vision tower", vision_summary(m.vision));
  if (m.mtp_layers > 0)
    rows.emplace_back(
        "mtp", fmt::format("{} multi-token-prediction module{} beside the layers, not counted in "
                           "the parameters: speculative method \"mtp\" drafts with {}",
                           m.mtp_layers, m.mtp_layers == 1 ? "" : "s", m.mtp_layers == 1 ? "it" : "them"));
  if (m.kind != ModelKind::decoder) {
    rows.emplace_back("per item", fmt::format("{} tokens x {} passes", m.tokens_per_item, m.passes_per_item));
  }
  if (s.deployment) {
    const DeploymentSpec& d = *s.deployment;
    rows.emplace_back("deployment", fmt::format("{} x {} (tp {}, pp {}, ep {}, attention_dp {})", d.gpus,
                                                d.gpu, d.tp, d.pp, d.ep, std::max(1, d.attention_dp)));
  }
  if (s.disaggregated) {
    for (const auto& [name, p] : {std::pair{"prefill pool", s.disaggregated->prefill},
                                  std::pair{"decode pool", s.disaggregated->decode}}) {
      rows.emplace_back(name, fmt::format("{} workers x {} (tp {}, pp {}, ep {}, attention_dp {})", p.workers,
                                          p.gpu, p.tp, p.pp, p.ep, std::max(1, p.attention_dp)));
    }
  }
  print_rows(rows);
  fmt::print("assumptions\n");
  if (s.assumptions.empty()) fmt::print("  (none)\n");
  for (const auto& a : s.assumptions)
    fmt::print("  - {}\n", a);
}

void print_validation_json(const Spec& s, const Resolved& r) {
  const ModelSpec& m = s.model;
  nlohmann::json model = {
      {"name", m.name},
      {"kind", to_string(m.kind)},
      {"total_params", r.params.total},
      {"active_params", r.params.active},
      {"weight_bytes", static_cast<std::int64_t>(r.weight_bytes)},
      {"weight_gb", r.weight_bytes / k_bytes_per_gb},
      {"weight_gib", r.weight_bytes / k_bytes_per_gib},
      {"kv_cache_bytes_per_token", static_cast<std::int64_t>(r.kv_bytes_per_token)},
      {"layers", m.layers},
      {"hidden_size", m.hidden_size},
      {"heads", m.heads},
      {"kv_heads", m.kv_heads},
      {"head_dim", m.head_dim},
      {"attention", to_string(m.attention.kind)},
      {"sliding_window", m.attention.sliding_window},
      {"sliding_window_layers", m.attention.sliding_window_layers},
      {"moe",
       {{"experts", m.moe.experts},
        {"experts_per_token", m.moe.experts_per_token},
        {"shared_experts", m.moe.shared_experts},
        {"dense_layers", m.moe.dense_layers}}},
  };
  if (m.mtp_layers > 0) model["mtp_layers"] = m.mtp_layers;
  if (m.linear_attention.layers > 0) {
    model["linear_attention_layers"] = m.linear_attention.layers;
    model["linear_state_bytes_per_sequence"] = static_cast<std::int64_t>(r.linear_state_bytes);
  }
  if (m.vision.layers > 0) {
    const VisionParams vp = count_vision_params(m.vision);
    const std::int64_t side = default_image_side_px(m.vision);
    const VisionImage img =
        vision_image(m.vision, m.vision.image_width_px > 0 ? m.vision.image_width_px : side,
                     m.vision.image_height_px > 0 ? m.vision.image_height_px : side);
    model["vision"] = {{"layers", m.vision.layers},
                       {"hidden_size", m.vision.hidden_size},
                       {"encoder_params", vp.encoder},
                       {"projector_params", vp.projector},
                       {"total_params", vp.total},
                       {"tokens_per_image", img.tokens},
                       {"encoder_flops_per_image", img.encoder_flops},
                       {"images_per_request", m.vision.images_per_request}};
  }
  nlohmann::json out = {
      {"schema_version", 1},
      {"spec", s.name},
      {"model", model},
      {"precision",
       {{"weights", format_info(s.precision.weights).name},
        {"activations", format_info(s.precision.activations).name},
        {"kv_cache", format_info(s.precision.kv_cache).name}}},
      {"workload", workload_text(s)},
      {"sla", sla_text(s.sla, s.model.kind)},
      {"assumptions", s.assumptions},
  };
  fmt::print("{}\n", io::json_text(out));
}

} // namespace

void render_validate(const app::ValidateOutcome& outcome, Format format) {
  if (format == Format::json) {
    print_validation_json(outcome.spec, outcome.result);
  } else {
    print_table(outcome.spec, outcome.result);
  }
}

} // namespace rightsize::cli
