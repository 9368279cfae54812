#include "app/models.hpp"

namespace rightsize::app {

std::vector<ModelRow> list_models(const std::string& models_dir) {
  std::vector<ModelRow> rows;
  for (auto& preset : io::load_presets(models_dir)) {
    const ParamCounts params = count_params(preset.model);
    rows.push_back({std::move(preset), params});
  }
  return rows;
}

std::vector<ModelRow> run_models(const ModelsRequest& request) {
  return list_models(request.environment.models_dir());
}

} // namespace rightsize::app
