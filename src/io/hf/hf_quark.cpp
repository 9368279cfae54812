#include "io/hf/hf_quark.hpp"

#include <optional>

#include <fmt/format.h>

namespace rightsize::io {
namespace {

// Quark's tensor dtypes (its QuantizationSpec `dtype`, as exported to config.json) as rightsize's
// formats: "fp4" with E8M0 scales per 32 is OCP MXFP4, "fp6_e2m3" / "fp6_e3m2" MXFP6 [MX][QUARK-MX];
// int4 is group-quantized like AWQ (Quark's AWQ export).
std::optional<NumberFormat> quark_format(const std::string& dtype) {
  if (dtype == "fp4") return NumberFormat::mxfp4;
  if (dtype == "fp6_e2m3" || dtype == "fp6_e3m2") return NumberFormat::mxfp6;
  if (dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return NumberFormat::fp8;
  if (dtype == "int8" || dtype == "uint8") return NumberFormat::int8;
  if (dtype == "int4" || dtype == "uint4") return NumberFormat::int4_awq;
  return std::nullopt;
}

NumberFormat read_dtype(const JsonReader& spec) {
  spec.expect_object();
  const JsonReader dtype = spec.at("dtype");
  const std::string name = dtype.as_string();
  const std::optional<NumberFormat> format = quark_format(name);
  if (!format) {
    dtype.fail(fmt::format("expected a Quark dtype \"fp4\", \"fp6_e2m3\", \"fp6_e3m2\", \"fp8_e4m3\", "
                           "\"fp8_e5m2\", \"int8\", \"uint8\", \"int4\" or \"uint4\", got \"{}\"",
                           name));
  }
  return *format;
}

} // namespace

void read_quark_quantization(const JsonReader& q, Precision& p, std::vector<std::string>& assumptions) {
  const JsonReader global = q.at("global_quant_config");
  global.expect_object();
  const JsonReader weight = global.at("weight");
  p.weights = read_dtype(weight);
  if (p.weights == NumberFormat::int4_awq) {
    if (auto g = weight.find("group_size"); g && !g->is_null())
      p.group_size = static_cast<int>(g->as_int(1, 1 << 20));
  }
  const std::optional<JsonReader> input = global.find("input_tensors");
  if (input && !input->is_null()) {
    const NumberFormat activations = read_dtype(*input);
    if (!format_info(activations).usable_for_activations)
      input->at("dtype").fail(
          fmt::format("expected an activation format, got \"{}\"", input->at("dtype").as_string()));
    p.activations = activations;
  }
  assumptions.push_back(fmt::format(
      "quantization_config quark: weights {}, activations {}; embedding and LM head kept 16-bit; the KV "
      "cache format is not read from the config (set precision.kv_cache)",
      format_info(p.weights).name, format_info(p.activations).name));
}

} // namespace rightsize::io
