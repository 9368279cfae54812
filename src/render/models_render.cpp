#include "render/models_render.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/json/json_text.hpp"
#include "render/model_summary.hpp"

namespace rightsize::cli {

void render_models(const std::vector<app::ModelRow>& rows, Format format) {
  if (format == Format::json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [p, c] : rows) {
      list.push_back({{"id", p.id},
                      {"name", p.display_name},
                      {"kind", to_string(p.model.kind)},
                      {"total_params", c.total},
                      {"active_params", c.active},
                      {"published_params", p.published_params},
                      {"layers", p.model.layers},
                      {"attention", to_string(p.model.attention.kind)},
                      {"native_precision", format_info(p.precision.weights).name},
                      {"source", p.source}});
    }
    fmt::print("{}\n", io::json_text(nlohmann::json{{"schema_version", 1}, {"models", list}}));
    return;
  }
  fmt::print("{:<16} {:>10} {:>10} {:>6} {:<9} {:<7} {}\n", "ID", "PARAMS", "ACTIVE", "LAYERS", "ATTENTION",
             "NATIVE", "SOURCE");
  for (const auto& [p, c] : rows) {
    fmt::print("{:<16} {:>10} {:>10} {:>6} {:<9} {:<7} {}\n", p.id, short_count(c.total),
               short_count(c.active), p.model.layers, to_string(p.model.attention.kind),
               format_info(p.precision.weights).name, p.source);
  }
}

} // namespace rightsize::cli
