#pragma once
// Shipped model presets (data/models/<id>.json). Private to rightsize_io.
#include <string>

#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"

namespace rightsize::io {

/// Parses one preset document; `source` names the file in messages.
Preset parse_preset(const nlohmann::json& document, const std::string& source, const std::string& models_dir);

/// Loads preset `id` from `models_dir`; an unknown id fails at `at` with did-you-mean.
Preset find_preset(const std::string& id, const std::string& models_dir, const JsonReader& at);

} // namespace rightsize::io
