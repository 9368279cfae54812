#pragma once
// AMD Quark's Hugging Face export (`"quant_method": "quark"`; methodology §2.2, docs/model-spec.md
// "hf_config").
#include <string>
#include <vector>

#include "io/json/json_reader.hpp"
#include "rightsize/precision.hpp"

namespace rightsize::io {

/// Reads a Quark quantization_config `q` into `p`: the weights from global_quant_config.weight, the
/// activations from global_quant_config.input_tensors when it is set (W4A4 / W6A6 / W8A8), else
/// weight-only. Each assumption it makes is appended to `assumptions`.
void read_quark_quantization(const JsonReader& q, Precision& p, std::vector<std::string>& assumptions);

} // namespace rightsize::io
