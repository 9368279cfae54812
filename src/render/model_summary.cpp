#include "render/model_summary.hpp"

#include <fmt/format.h>

namespace rightsize::cli {

std::string short_count(std::int64_t value) {
  const double v = static_cast<double>(value);
  if (v >= 1e9) return fmt::format("{:.2f} B", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.1f} M", v / 1e6);
  return with_commas(value);
}

std::string attention_summary(const ModelSpec& m) {
  if (m.attention.kind == AttentionKind::mla) {
    return fmt::format("mla: {} heads, kv_lora_rank {}, rope_head_dim {}, q_lora_rank {}", m.heads,
                       m.attention.kv_lora_rank, m.attention.rope_head_dim, m.attention.q_lora_rank);
  }
  return fmt::format("{}: {} heads, {} kv heads, head_dim {}", to_string(m.attention.kind), m.heads,
                     m.kv_heads, m.head_dim);
}

std::string moe_summary(const ModelSpec& m) {
  if (m.moe.experts == 0) return "dense";
  std::string s = fmt::format("{} experts, {} per token, expert ffn {}", m.moe.experts,
                              m.moe.experts_per_token, m.moe.expert_ffn_size);
  if (m.moe.shared_experts > 0) s += fmt::format(", {} shared", m.moe.shared_experts);
  if (m.moe.dense_layers > 0) s += fmt::format(", {} dense layers", m.moe.dense_layers);
  return s;
}

std::string window_summary(const ModelSpec& m) {
  if (m.attention.sliding_window == 0 || m.attention.sliding_window_layers == 0) return "none";
  return fmt::format("{} tokens on {} of {} layers", m.attention.sliding_window,
                     m.attention.sliding_window_layers, m.layers);
}

void print_rows(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::size_t width = 0;
  for (const auto& row : rows)
    width = std::max(width, row.first.size());
  for (const auto& row : rows)
    fmt::print("{:<{}}  {}\n", row.first, width, row.second);
}

} // namespace rightsize::cli
