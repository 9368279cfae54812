#pragma once
// The shipped serving-engine profiles (data/engines.json) for unit tests.
#include <string>

#include "io/catalog/engines_io.hpp"
#include "rightsize/engine_profile.hpp"

namespace rightsize::test {

/// The profiles of data/engines.json, loaded once.
inline const EngineProfiles& shipped_engines() {
  static const EngineProfiles profiles = io::load_engines(std::string(RIGHTSIZE_DATA_DIR) + "/engines.json");
  return profiles;
}

/// One engine's shipped profile.
inline EngineConfig shipped_engine(EngineKind kind) {
  return shipped_engines().of(kind);
}

} // namespace rightsize::test
