// libFuzzer target: `--catalog-add` overlays. Bytes (mostly mutated valid overlays) as an overlay
// document -> overlay_catalog_document (the in-memory twin of overlay_catalog) onto the shipped
// data/gpus.json. A bad overlay must end in ErrorList naming the overlay, one line per error, and
// leave the base catalog unchanged; an accepted one must keep the GPUs it does not name, find every
// GPU it names, keep ids sorted and unique, and give positive memory, finite prices and finite
// estimates on every layout for the GPUs it adds or changes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "catalog_checks.hpp"
#include "io/json/json_reader.hpp"
#include "json_mutator.hpp"
#include "rightsize/text.hpp"

namespace {

using namespace rightsize;

const io::Catalog& base_catalog() {
  static const io::Catalog catalog = io::load_catalog(RIGHTSIZE_FUZZ_DATA_DIR "/gpus.json");
  return catalog;
}

// The fields a changed catalog would show first; equal here means the GPU was left alone.
bool same_gpu(const Gpu& a, const Gpu& b) {
  return a.id == b.id && a.aliases == b.aliases && a.name == b.name && a.memory_bytes == b.memory_bytes &&
         a.memory_bandwidth_gb_per_s == b.memory_bandwidth_gb_per_s && a.dense_tflops == b.dense_tflops &&
         a.prices.size() == b.prices.size() && a.scaleup_gb_per_s == b.scaleup_gb_per_s;
}

bool same_catalog(const io::Catalog& a, const io::Catalog& b) {
  if (a.gpus.size() != b.gpus.size() || a.prices_as_of != b.prices_as_of || a.sources != b.sources)
    return false;
  for (std::size_t i = 0; i < a.gpus.size(); ++i) {
    if (!same_gpu(a.gpus[i], b.gpus[i])) return false;
  }
  return true;
}

// Lower-case ids the overlay document names (entries with a string id).
std::set<std::string> named_ids(const nlohmann::json& doc) {
  std::set<std::string> ids;
  if (!doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array()) return ids;
  for (const auto& entry : doc["gpus"]) {
    if (entry.is_object() && entry.contains("id") && entry["id"].is_string())
      ids.insert(to_lower(entry["id"].get<std::string>()));
  }
  return ids;
}

void check_error(const Error& e) {
  fuzz::require(e.source() == "overlay.json", "overlay errors name the overlay file");
  fuzz::require(!e.message().empty(), "an overlay error says what was expected");
  const std::string line = format_error(e);
  fuzz::require(line.find('\n') == std::string::npos, "an overlay error is one line");
  fuzz::require(line.size() <= 1000, "an overlay error line is at most 1,000 bytes");
}

void check_overlay(const nlohmann::json& doc) {
  const io::Catalog& base = base_catalog();
  io::Catalog merged = base;
  try {
    io::overlay_catalog_document(merged, doc, "overlay.json");
  } catch (const ErrorList& list) {
    fuzz::require(!list.errors().empty(), "a refused overlay gives its errors");
    for (const Error& e : list.errors())
      check_error(e);
    fuzz::require(same_catalog(merged, base), "a refused overlay leaves the catalog unchanged");
    return;
  }
  const std::set<std::string> named = named_ids(doc);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < merged.gpus.size(); ++i) {
    const Gpu& gpu = merged.gpus[i];
    fuzz::require(ids.insert(to_lower(gpu.id)).second, "ids stay unique");
    fuzz::require(i == 0 || merged.gpus[i - 1].id < gpu.id, "GPUs stay sorted by id");
    if (named.count(to_lower(gpu.id)) != 0) fuzz::check_catalog_gpu(merged, gpu);
  }
  for (const Gpu& gpu : base.gpus) {
    const Gpu* now = io::find_gpu(merged, gpu.id);
    fuzz::require(now != nullptr, "an overlay never drops a GPU");
    if (named.count(to_lower(gpu.id)) == 0)
      fuzz::require(same_gpu(*now, gpu), "GPUs not named stay as they were");
  }
  for (const std::string& id : named)
    fuzz::require(io::find_gpu(merged, id) != nullptr, "every GPU an accepted overlay names is found");
}

} // namespace

// Structure-aware: most mutations edit one field of a valid overlay (see json_mutator.hpp).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return rightsize::fuzz::mutate_json(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  (void)base_catalog();
  fuzz::expect_only_rightsize_errors([&] {
    nlohmann::json doc;
    try {
      doc = io::parse_json(text, "overlay.json");
    } catch (const Error& e) {
      check_error(e);
      throw;
    }
    check_overlay(doc);
  });
  return 0;
}
