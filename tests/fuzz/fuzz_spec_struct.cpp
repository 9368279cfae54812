// libFuzzer target, structure-aware: valid specs (the shipped examples and presets) mutated as JSON
// trees by json_mutator.hpp, then parse_spec. Reaches the range and consistency checks that
// byte-level mutation rarely gets past the JSON syntax to.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "json_mutator.hpp"

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return rightsize::fuzz::mutate_json(data, size, max_size, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  rightsize::fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = rightsize::io::parse_json(text, "fuzz.json");
    (void)rightsize::io::parse_spec(doc, "fuzz.json", RIGHTSIZE_FUZZ_BASE_DIR, RIGHTSIZE_FUZZ_MODELS_DIR);
  });
  return 0;
}
