#pragma once
// Text pieces shared by `validate` and `models`: number formatting and one-line summaries.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rightsize/model.hpp"
#include "rightsize/text.hpp"

namespace rightsize::cli {

/// 8030261248 -> "8.03 B", 304326632 -> "304.3 M".
std::string short_count(std::int64_t value);
/// 1234567 -> "1,234,567".

/// "gqa: 32 heads, 8 kv heads, head_dim 128" or the MLA ranks.
std::string attention_summary(const ModelSpec& model);
/// "dense" or "8 experts, 2 per token, ...".
std::string moe_summary(const ModelSpec& model);
/// "none" or "4096 tokens on 32 of 32 layers".
std::string window_summary(const ModelSpec& model);
/// Prints label/value rows with the labels padded to one width (until the shared table renderer lands).
void print_rows(const std::vector<std::pair<std::string, std::string>>& rows);

} // namespace rightsize::cli
