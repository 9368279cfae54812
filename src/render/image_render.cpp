#include "render/image_render.hpp"

#include <fmt/format.h>

#include "render/recommend_render.hpp"
#include "render/render.hpp"
#include "rightsize/image.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

std::string price_or_dash(double usd, bool known) {
  return usd > 0.0 ? format_usd(usd, known) : "-";
}

} // namespace

bool is_image_model(const PreparedModel& model) {
  return model.model.kind == ModelKind::dit;
}

std::string image_workload_line(const ModelSpec& m) {
  const ImagePipelineSpec& p = m.image;
  if (m.kind == ModelKind::vit) {
    return fmt::format("{} input tokens per item", format_count(static_cast<double>(m.tokens_per_item)));
  }
  if (p.pixels_per_token_side <= 0) {
    return fmt::format("{} tokens × {} passes per image",
                       format_count(static_cast<double>(m.tokens_per_item)), m.passes_per_item);
  }
  const ImageItem item = image_item(p);
  // Eager or compiled: the unfused elementwise traffic depends on it (methodology §3.7). A UNet's
  // text enters its cross-attention only.
  const bool unet = p.denoiser == Denoiser::unet;
  return fmt::format("{}×{} px, {} steps × {} pass{}, {} {} + {} text tokens per pass, {}{} pipeline",
                     p.width_px, p.height_px, p.steps, p.cfg_passes, p.cfg_passes == 1 ? "" : "es",
                     format_count(static_cast<double>(item.image_tokens)),
                     unet ? "latent positions" : "image", format_count(static_cast<double>(item.text_tokens)),
                     unet ? "UNet, " : "", p.fused ? "compiled" : "eager");
}

std::string describe_image_sla(const Sla& sla, ModelKind kind, double headroom) {
  const char* item = kind == ModelKind::vit ? "item" : "image";
  std::vector<std::string> parts;
  if (sla.ttft_ms) parts.push_back(fmt::format("first-result latency ≤ {:g} ms", *sla.ttft_ms));
  if (sla.e2e_ms) {
    parts.push_back(fmt::format("{} latency{} ≤ {:g} ms", item, stat_suffix(sla.e2e_stat), *sla.e2e_ms));
  }
  if (sla.requests_per_s) {
    parts.push_back(
        fmt::format("{:g} {}{}/s peak", *sla.requests_per_s, item, *sla.requests_per_s == 1.0 ? "" : "s"));
    if (headroom > 0.0) parts.back() += fmt::format(" + {:g} % headroom", headroom * 100.0);
  }
  if (sla.budget_usd) parts.push_back(fmt::format("≤ ${:g}/h", *sla.budget_usd));
  if (parts.empty()) return "none";
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

double usd_per_1k_images_at_load(const Candidate& c) {
  return c.price_known ? c.usd_per_request_at_load * 1e3 : 0.0;
}

double usd_per_million_input_tokens_at_load(const Candidate& c, const ModelSpec& m) {
  return c.price_known && m.tokens_per_item > 0
             ? c.usd_per_request_at_load / static_cast<double>(m.tokens_per_item) * 1e6
             : 0.0;
}

Table image_candidate_table(const SearchInputs& in, const std::vector<Candidate>& rows, std::size_t limit,
                            bool show_precision, bool with_reason, Statistic latency_stat) {
  const ModelSpec& m = in.models.front().model;
  const bool encoder = m.kind == ModelKind::vit;
  std::vector<Column> columns = {
      {"rank", Align::right}, {"gpu", Align::left}, {"gpus×rep", Align::right}, {"layout", Align::left}};
  if (show_precision) columns.push_back({"precision", Align::left});
  // The latency column shows the statistic the SLA judges (s/image p99 under image_latency_p99_ms).
  const std::string stat = stat_suffix(latency_stat);
  const std::vector<std::string> heads =
      encoder ? std::vector<std::string>{"batch",    "s/item" + stat, "served items/s", "input tok/s",
                                         "mem free", "$/h",           "$/1M input tok"}
              : std::vector<std::string>{"batch", "s/image" + stat, "served img/s", "mem free",
                                         "$/h",   "$/1k images"};
  for (const std::string& h : heads)
    columns.push_back({h, Align::right});
  columns.push_back({"bound", Align::left, true});
  if (with_reason) columns.push_back({"reason", Align::left, true});
  Table t(std::move(columns));
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const Candidate& c = rows[i];
    const InferenceEstimate& e = c.estimate;
    std::vector<std::string> cells = {c.rank > 0 ? std::to_string(c.rank) : "-", in.gpus[c.gpu_index].id,
                                      fmt::format("{}×{}", c.layout.tp * c.layout.pp, c.replicas),
                                      layout_label(c.layout)};
    if (show_precision) cells.emplace_back(format_info(in.precisions[c.precision_index].weights).name);
    // One load point per row (methodology §6 "Latency at the served load"): batch and latency at
    // the load each replica serves, the costs over it.
    cells.push_back(std::to_string(c.at_load.concurrency));
    const double latency_s = c.at_load.e2e_judged_s;
    cells.push_back(encoder ? format_ms(latency_s) : fmt::format("{:.2f}", latency_s));
    cells.push_back(c.served_requests_per_s <= 0.0     ? std::string("-")
                    : c.served_requests_per_s >= 100.0 ? format_count(c.served_requests_per_s)
                                                       : fmt::format("{:.3g}", c.served_requests_per_s));
    if (encoder) {
      cells.push_back(c.served_requests_per_s <= 0.0
                          ? std::string("-")
                          : format_count(c.served_requests_per_s * static_cast<double>(m.tokens_per_item)));
    }
    cells.push_back(fmt::format("{:.1f} GB", e.memory.headroom_bytes() / k_bytes_per_gb));
    cells.push_back(format_usd(e.usd_per_hour, c.price_known));
    cells.push_back(encoder ? price_or_dash(usd_per_million_input_tokens_at_load(c, m), c.price_known)
                            : price_or_dash(usd_per_1k_images_at_load(c), c.price_known));
    cells.push_back(to_string(e.bound));
    if (with_reason) cells.push_back(describe_rejection(c, vocabulary_of(m.kind)));
    t.add_row(std::move(cells));
  }
  return t;
}

std::string image_winner_reason(const Candidate& w, RankBy rank_by, const ModelSpec& m) {
  const bool encoder = m.kind == ModelKind::vit;
  switch (rank_by) {
  case RankBy::cost_per_token:
  case RankBy::cost_per_request:
  case RankBy::goodput:
    return encoder ? fmt::format("the lowest cost per 1M input tokens at the served load ({})",
                                 format_usd(usd_per_million_input_tokens_at_load(w, m), w.price_known))
                   : fmt::format("the lowest cost per 1,000 images at the served load ({})",
                                 format_usd(usd_per_1k_images_at_load(w), w.price_known));
  case RankBy::latency:
    return fmt::format("the lowest latency per {} at the served load ({:.3g} s at batch {} per replica)",
                       encoder ? "item" : "image", w.at_load.e2e_s, w.at_load.concurrency);
  case RankBy::gpus: return fmt::format("the fewest GPUs ({})", w.total_gpus());
  case RankBy::energy: return "the least GPU energy";
  }
  return "";
}

void add_image_json(nlohmann::json& j, const ModelSpec& m, const Candidate& c) {
  const InferenceEstimate& e = c.estimate;
  if (m.kind == ModelKind::vit) {
    const double tokens = static_cast<double>(m.tokens_per_item);
    j["encoder"] = {{"input_tokens_per_item", m.tokens_per_item},
                    {"batch_items", e.concurrency},
                    {"seconds_per_item", round_sig(e.e2e_s)},
                    {"items_per_s_capacity", round_sig(e.requests_per_s)},
                    {"items_per_s_served", round_sig(c.served_requests_per_s)},
                    {"input_tokens_per_s_served", round_sig(c.served_requests_per_s * tokens)},
                    {"usd_per_million_input_tokens_at_load",
                     c.price_known ? nlohmann::json(round_sig(usd_per_million_input_tokens_at_load(c, m)))
                                   : nlohmann::json()},
                    {"usd_per_million_input_tokens_at_capacity",
                     c.price_known && tokens > 0.0
                         ? nlohmann::json(round_sig(e.usd_per_request / tokens * 1e6))
                         : nlohmann::json()}};
    return;
  }
  const ImageItem item = image_item(m.image);
  nlohmann::json img = {{"tokens_per_pass", m.tokens_per_item},
                        {"passes_per_image", m.passes_per_item},
                        {"batch_images", e.concurrency},
                        {"seconds_per_image", round_sig(e.e2e_s)},
                        {"images_per_s_capacity", round_sig(e.requests_per_s)},
                        {"images_per_s_served", round_sig(c.served_requests_per_s)}};
  if (m.image.pixels_per_token_side > 0) {
    img["width_px"] = m.image.width_px;
    img["height_px"] = m.image.height_px;
    img["steps"] = m.image.steps;
    img["cfg_passes"] = m.image.cfg_passes;
    img["image_tokens"] = item.image_tokens;
    img["text_tokens"] = item.text_tokens;
  }
  img["usd_per_1k_images_at_load"] =
      c.price_known ? nlohmann::json(round_sig(usd_per_1k_images_at_load(c))) : nlohmann::json();
  img["usd_per_1k_images_at_capacity"] =
      c.price_known ? nlohmann::json(round_sig(e.usd_per_request * 1e3)) : nlohmann::json();
  j["image"] = img;
}

} // namespace rightsize::cli
