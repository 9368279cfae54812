#include "rightsize/precision.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "rightsize/text.hpp"

namespace rightsize {
namespace {

// Effective bits per weight including block scales (methodology §2.2, sources [GPTQ], [MX], [QLORA],
// [GGUF]). GGUF figures are whole-file mixes (llama.cpp `quantize` README, Llama-2 7B), which already
// include their higher-precision tensors, so GGUF also applies to embeddings.
constexpr std::array<FormatInfo, k_number_format_count> k_formats{{
    {NumberFormat::fp32, "fp32", 32.0, MathDtype::fp32, true, true, "full precision"},
    {NumberFormat::bf16, "bf16", 16.0, MathDtype::bf16, true, true, "reference quality"},
    {NumberFormat::fp16, "fp16", 16.0, MathDtype::fp16, true, true, "reference quality"},
    {NumberFormat::fp8, "fp8", 8.0, MathDtype::fp8, true, true,
     "fp8 e4m3: usually within ~1% of bf16 on benchmarks"},
    {NumberFormat::int8, "int8", 8.0, MathDtype::int8, true, false,
     "int8: small quality loss; needs calibration for activations"},
    {NumberFormat::int4, "int4", 4.15625, MathDtype::bf16, false, false,
     "4-bit weights: noticeable loss on reasoning/code for small models"},
    {NumberFormat::int4_awq, "int4-awq", 4.15625, MathDtype::bf16, false, false,
     "AWQ 4-bit: a few points lower on hard benchmarks"},
    {NumberFormat::int4_gptq, "int4-gptq", 4.15625, MathDtype::bf16, false, false,
     "GPTQ 4-bit: a few points lower on hard benchmarks"},
    {NumberFormat::nf4, "nf4", 4.127, MathDtype::bf16, false, false,
     "NF4 (bitsandbytes): 4-bit, slower kernels; meant for QLoRA"},
    {NumberFormat::mxfp4, "mxfp4", 4.25, MathDtype::fp4, true, false,
     "MXFP4: 4-bit float; fine when the model was trained or released in it"},
    {NumberFormat::nvfp4, "nvfp4", 4.5, MathDtype::fp4, true, false,
     "NVFP4: 4-bit float with fp8 block scales; small loss with calibration"},
    {NumberFormat::gguf_q8_0, "q8_0", 8.5, MathDtype::bf16, false, false, "GGUF Q8_0: near lossless"},
    {NumberFormat::gguf_q6_k, "q6_k", 6.56, MathDtype::bf16, false, false, "GGUF Q6_K: near lossless"},
    {NumberFormat::gguf_q5_k_m, "q5_k_m", 5.68, MathDtype::bf16, false, false, "GGUF Q5_K_M: small loss"},
    {NumberFormat::gguf_q4_k_m, "q4_k_m", 4.84, MathDtype::bf16, false, false, "GGUF Q4_K_M: moderate loss"},
    {NumberFormat::gguf_q4_0, "q4_0", 4.5, MathDtype::bf16, false, false, "GGUF Q4_0: noticeable loss"},
    // OCP MX v1.0: 6-bit E2M3/E3M2 elements with one E8M0 scale per 32: 6 + 8/32 = 6.25 bits [MX].
    {NumberFormat::mxfp6, "mxfp6", 6.25, MathDtype::fp6, true, false,
     "MXFP6: 6-bit float with E8M0 scales; small loss, less than 4-bit formats"},
}};

// Format names compare case-insensitively with '_' and '-' alike ("Q4_K_M" == "q4-k-m").
std::string lower(std::string_view text) {
  std::string out = to_lower(text);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

} // namespace

const std::array<FormatInfo, k_number_format_count>& all_formats() {
  return k_formats;
}

bool full_precision(NumberFormat format) {
  return format == NumberFormat::bf16 || format == NumberFormat::fp16 || format == NumberFormat::fp32;
}

const FormatInfo& format_info(NumberFormat format) {
  return k_formats[static_cast<std::size_t>(format)];
}

std::optional<NumberFormat> parse_number_format(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& f : k_formats) {
    if (lower(f.name) == n) return f.format;
  }
  struct Alias {
    std::string_view alias;
    NumberFormat format;
  };
  static constexpr Alias k_aliases[] = {
      {"float32", NumberFormat::fp32},
      {"bfloat16", NumberFormat::bf16},
      {"float16", NumberFormat::fp16},
      {"half", NumberFormat::fp16},
      {"fp8-e4m3", NumberFormat::fp8},
      {"e4m3", NumberFormat::fp8},
      {"float8", NumberFormat::fp8},
      {"w8a8", NumberFormat::int8},
      {"awq", NumberFormat::int4_awq},
      {"gptq", NumberFormat::int4_gptq},
      {"bnb-nf4", NumberFormat::nf4},
      {"fp4", NumberFormat::nvfp4},
      {"fp6", NumberFormat::mxfp6},
      {"gguf-q8-0", NumberFormat::gguf_q8_0},
      {"gguf-q6-k", NumberFormat::gguf_q6_k},
      {"gguf-q5-k-m", NumberFormat::gguf_q5_k_m},
      {"gguf-q4-k-m", NumberFormat::gguf_q4_k_m},
      {"gguf-q4-0", NumberFormat::gguf_q4_0},
  };
  for (const auto& a : k_aliases) {
    if (a.alias == n) return a.format;
  }
  return std::nullopt;
}

std::string_view math_dtype_name(MathDtype dtype) {
  static constexpr std::string_view k_names[] = {"fp64", "fp32", "tf32", "bf16", "fp16",
                                                 "fp8",  "int8", "fp4",  "fp6"};
  return k_names[static_cast<std::size_t>(dtype)];
}

double group_quantized_bits(double bits, int group_size) {
  // GPTQ/AWQ: packed b-bit weights + one fp16 scale and one packed b-bit zero per group
  // (methodology §2.2, [GPTQ]); group_size <= 0 means per-channel (overhead negligible).
  if (group_size <= 0) return bits;
  return bits + (16.0 + bits) / static_cast<double>(group_size);
}

double Precision::weight_bytes_per_param() const {
  switch (weights) {
  case NumberFormat::int4:
  case NumberFormat::int4_awq:
  case NumberFormat::int4_gptq: return group_quantized_bits(4.0, group_size) / 8.0;
  default: return format_info(weights).bits_per_weight / 8.0;
  }
}

double Precision::activation_bytes_per_element() const {
  return std::max(1.0, format_info(activations).bits_per_weight / 8.0);
}

Precision precision_from_shorthand(NumberFormat format) {
  Precision p;
  p.weights = format;
  const FormatInfo& info = format_info(format);
  // NVFP4 checkpoints are W4A4: the engines quantize GEMM inputs to NVFP4 on the fly ([MODELOPT]
  // NVFP4; TensorRT-LLM and vLLM's ModelOpt path). MXFP4 (gpt-oss), MXFP6 (Quark's weight-only MX
  // exports) and int8 shorthands stay weight-only (W4A16 / W6A16 / W8A16), as engines serve them by
  // default; `"activations": "mxfp6"` asks for W6A6 (methodology §2.2).
  const bool weight_only =
      format == NumberFormat::mxfp4 || format == NumberFormat::mxfp6 || format == NumberFormat::int8;
  p.activations = info.usable_for_activations && !weight_only ? format : NumberFormat::bf16;
  p.kv_cache = (format == NumberFormat::fp32 || format == NumberFormat::fp16) ? format : NumberFormat::bf16;
  return p;
}

} // namespace rightsize
