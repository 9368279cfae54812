// libFuzzer target: arbitrary bytes as a Hugging Face config.json -> import_hf_config, then what
// resolve_model does next (validate_architecture) and the core's parameter count and preparation,
// which must give finite, non-negative numbers for any config the io layer accepts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/model_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/inference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rightsize;
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  fuzz::expect_only_rightsize_errors([&] {
    const nlohmann::json doc = io::parse_json(text, "config.json");
    Precision precision;
    std::vector<std::string> assumptions;
    const ModelSpec model = io::import_hf_config(doc, "config.json", precision, assumptions);
    io::validate_architecture(model, io::JsonReader(doc, "config.json"));
    const ParamCounts counts = count_params(model);
    fuzz::require(counts.total > 0 && counts.active > 0 && counts.active <= counts.total,
                  "0 < active <= total");
    const PreparedModel pm = prepare_model(model, precision);
    fuzz::require(std::isfinite(pm.weight_bytes_total) && pm.weight_bytes_total > 0.0, "finite weight bytes");
    fuzz::require(std::isfinite(pm.kv_bytes_per_token_layer) && pm.kv_bytes_per_token_layer >= 0.0,
                  "finite KV bytes");
  });
  return 0;
}
