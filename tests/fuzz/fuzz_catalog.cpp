// libFuzzer target: bytes (mostly mutated valid catalogs) as a GPU catalog -> parse_catalog (the in-memory
// twin of load_catalog). A catalog with errors must end in ErrorList; an accepted one must give positive,
// finite memory and prices, find every GPU by id, and finite estimates for a small model on every
// replica layout the search would try.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog_checks.hpp"
#include "io/json/json_reader.hpp"
#include "json_mutator.hpp"

// Structure-aware: most mutations edit one field of a valid catalog (see json_mutator.hpp).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return rightsize::fuzz::mutate_json(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  rightsize::fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = rightsize::io::parse_json(text, "gpus.json");
    rightsize::fuzz::check_catalog(rightsize::io::parse_catalog(doc, "gpus.json"));
  });
  return 0;
}
