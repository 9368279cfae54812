#pragma once
// data/engines.json <-> the serving-engine profiles (docs/engines.md, methodology §3.2). Every value
// in the file carries its basis and source; the loader checks them and fills one EngineConfig per
// engine, field by field, so no shipped value comes from a C++ initialiser.
#include <string>

#include <nlohmann/json.hpp>

#include "rightsize/engine_profile.hpp"

namespace rightsize::io {

/// Loads and validates an engines file. Errors (exit 3) name the file and the JSON pointer.
EngineProfiles load_engines(const std::string& path);

/// Validates an already-parsed engines document named `source` (tests, fuzzing).
EngineProfiles parse_engines(const nlohmann::json& document, const std::string& source);

} // namespace rightsize::io
