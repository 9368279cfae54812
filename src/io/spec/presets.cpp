// Model presets: the `model` object of a spec plus provenance (docs/model-spec.md, "presets").
#include "io/spec/presets.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/spec/model_io.hpp"
#include "rightsize/preset_names.hpp"

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

// "owner/name" as Hugging Face spells a repository: two non-empty parts of letters, digits, '-',
// '_' and '.'.
std::string hf_repository_id(const JsonReader& v) {
  std::string id = v.as_string();
  const auto slash = id.find('/');
  const bool shaped = slash != std::string::npos && slash > 0 && slash + 1 < id.size() &&
                      id.find('/', slash + 1) == std::string::npos &&
                      std::all_of(id.begin(), id.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' ||
                               c == '.' || c == '/';
                      });
  if (!shaped) v.fail(fmt::format("expected a Hugging Face repository id \"owner/name\", got \"{}\"", id));
  return id;
}

// Each preset's id and Hugging Face id, for suggestions. A preset file that cannot be read gives
// its id alone here: its own error comes when it is loaded.
std::vector<PresetName> preset_names(const std::vector<std::string>& ids, const std::string& models_dir) {
  namespace fs = std::filesystem;
  std::vector<PresetName> names;
  names.reserve(ids.size());
  for (const auto& id : ids) {
    PresetName name{id, ""};
    try {
      const nlohmann::json doc = read_json_file((fs::path(models_dir) / (id + ".json")).string());
      if (doc.is_object() && doc.contains("hf_id") && doc["hf_id"].is_string())
        name.hf_id = doc["hf_id"].get<std::string>();
    } catch (const Error&) {
      name.hf_id.clear(); // suggestions only: the load reports the file's own error
    }
    names.push_back(name);
  }
  return names;
}

// "; did you mean \"a\"?" or "; did you mean \"a\" or \"b\"?".
std::string quoted_alternatives(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out += i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ";
    out += "\"" + ids[i] + "\"";
  }
  return out;
}

} // namespace

Preset parse_preset(const nlohmann::json& document, const std::string& source,
                    const std::string& models_dir) {
  const JsonReader root(document, source);
  root.expect_keys({"schema_version", "id", "display_name", "source", "hf_id", "published_params",
                    "published_active_params", "published_active_excludes_embedding", "published_source",
                    "precision", "model", "notes"});
  if (auto v = root.find("schema_version"); v && v->as_int(1, 1) != 1) v->fail("expected 1");
  Preset p;
  p.id = root.at("id").as_string();
  p.display_name = root.find("display_name") ? root.at("display_name").as_string() : p.id;
  p.source = root.at("source").as_string();
  if (auto v = root.find("hf_id")) p.hf_id = hf_repository_id(*v);
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
  p.model.hf_id = p.hf_id;
  p.precision = root.find("precision") ? parse_precision(root.at("precision"), Precision{}) : Precision{};
  return p;
}

Preset find_preset(const std::string& id, const std::string& models_dir, const JsonReader& at) {
  namespace fs = std::filesystem;
  const std::vector<std::string> ids = preset_ids(models_dir);
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    const std::vector<std::string> hints = suggest_presets(id, preset_names(ids, models_dir));
    // A Hugging Face id is not a preset name, but it names the preset of its checkpoint.
    const char* why = id.find('/') != std::string::npos ? " (presets are named by rightsize id)" : "";
    if (!hints.empty())
      at.fail(fmt::format("unknown preset \"{}\"; did you mean {}?{}", id, quoted_alternatives(hints), why));
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
