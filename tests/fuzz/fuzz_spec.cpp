// libFuzzer target: arbitrary bytes -> parse_json -> parse_spec. Bad input must end in a
// rightsize::Error; presets resolve from the shipped data/models.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  rightsize::fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = rightsize::io::parse_json(text, "fuzz.json");
    (void)rightsize::io::parse_spec(doc, "fuzz.json", RIGHTSIZE_FUZZ_BASE_DIR, RIGHTSIZE_FUZZ_MODELS_DIR);
  });
  return 0;
}
