// libFuzzer target: arbitrary bytes as a .safetensors file -> parse_safetensors (the in-memory
// twin of read_checkpoint). Sums must stay non-negative and within the data section.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "io/spec/spec_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rightsize;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size); // NOLINT
  fuzz::expect_only_rightsize_errors([&] {
    const io::CheckpointInfo info = io::parse_safetensors(bytes, "model.safetensors");
    fuzz::require(info.weight_bytes >= 0 && info.parameter_count >= 0 && info.tensor_count >= 0,
                  "non-negative checkpoint sums");
  });
  return 0;
}
