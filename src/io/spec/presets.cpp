// Model presets: the `model` object of a spec plus provenance (docs/model-spec.md, "presets").
#include "io/spec/presets.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/spec/model_io.hpp"

namespace rightsize::io {
namespace {

std::vector<std::string> preset_ids(const std::string& models_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(models_dir, ec)) {
    if (entry.path().extension() == ".json") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

} // namespace

Preset parse_preset(const nlohmann::json& document, const std::string& source,
                    const std::string& models_dir) {
  const JsonReader root(document, source);
  root.expect_keys({"schema_version", "id", "display_name", "source", "published_params",
                    "published_active_params", "published_active_excludes_embedding", "published_source",
                    "precision", "model", "notes"});
  if (auto v = root.find("schema_version"); v && v->as_int(1, 1) != 1) v->fail("expected 1");
  Preset p;
  p.id = root.at("id").as_string();
  p.display_name = root.find("display_name") ? root.at("display_name").as_string() : p.id;
  p.source = root.at("source").as_string();
  p.published_params = positive_count(root.at("published_params"), 10'000'000'000'000, "parameters");
  p.published_active_params =
      root.find("published_active_params")
          ? positive_count(root.at("published_active_params"), p.published_params, "parameters")
          : p.published_params;
  if (auto v = root.find("published_active_excludes_embedding"))
    p.published_active_excludes_embedding = v->as_bool();
  p.published_source = root.find("published_source") ? root.at("published_source").as_string() : p.source;
  ModelContext context{"", models_dir, false};
  ResolvedModel resolved = resolve_model(root.at("model"), context);
  p.model = resolved.model;
  p.model.name = p.id;
  p.precision = root.find("precision") ? parse_precision(root.at("precision"), Precision{}) : Precision{};
  return p;
}

Preset find_preset(const std::string& id, const std::string& models_dir, const JsonReader& at) {
  namespace fs = std::filesystem;
  const std::vector<std::string> ids = preset_ids(models_dir);
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    const std::string hint = did_you_mean(id, ids);
    if (!hint.empty()) at.fail(fmt::format("unknown preset \"{}\"; did you mean \"{}\"?", id, hint));
    at.fail(fmt::format("unknown preset \"{}\" (run 'rightsize models' for the list)", id));
  }
  const std::string path = (fs::path(models_dir) / (id + ".json")).string();
  return parse_preset(read_json_file(path), path, models_dir);
}

std::vector<Preset> load_presets(const std::string& models_dir) {
  namespace fs = std::filesystem;
  std::vector<Preset> presets;
  for (const auto& id : preset_ids(models_dir)) {
    const std::string path = (fs::path(models_dir) / (id + ".json")).string();
    Preset p = parse_preset(read_json_file(path), path, models_dir);
    if (p.id != id) {
      JsonReader(nlohmann::json(p.id), path, "/id")
          .fail(fmt::format("expected the file name \"{}\", got \"{}\"", id, p.id));
    }
    presets.push_back(std::move(p));
  }
  if (presets.empty()) throw Error(ErrorKind::input, models_dir, "", "no model presets found");
  return presets;
}

} // namespace rightsize::io
