#pragma once
// Rendering of image-generation (kind "dit") recommendations in images: seconds per image, images/s
// and $ per 1,000 images (methodology §3.7).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/render.hpp"
#include "render/table.hpp"
#include "rightsize/search.hpp"

namespace rightsize::cli {

/// True for an image-generation model: recommend speaks in images for it.
bool is_image_model(const PreparedModel& model);
using app::is_item_model;

/// "1024×1024 px, 28 steps × 1 pass, 4,096 image + 512 text tokens per pass"; an encoder:
/// "197 input tokens per item".
std::string image_workload_line(const ModelSpec& model);

/// The SLA in image words: "image latency ≤ 10000 ms, 1 image/s peak" ("none" when empty).
std::string describe_image_sla(const Sla& sla, ModelKind kind = ModelKind::dit, double headroom = 0.0);

/// The ranked table in images: s/image, images/s served, $ per 1,000 images.
Table image_candidate_table(const SearchInputs& in, const std::vector<Candidate>& rows, std::size_t limit,
                            bool show_precision, bool with_reason, Statistic latency_stat = Statistic::mean);

/// Why the winner won, in images.
std::string image_winner_reason(const Candidate& winner, RankBy rank_by, const ModelSpec& model);

/// $ per 1,000 images at the served load (0 when the price or the load is unknown).
double usd_per_1k_images_at_load(const Candidate& c);

/// $ per 1M input tokens of an encoder at the served load: $ per item ÷ tokens per item × 1e6.
double usd_per_million_input_tokens_at_load(const Candidate& c, const ModelSpec& model);

/// Adds the "image" object (an encoder: the "encoder" object; units in names) to a candidate's JSON.
void add_image_json(nlohmann::json& j, const ModelSpec& model, const Candidate& c);

} // namespace rightsize::cli
