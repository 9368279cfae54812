#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rightsize {

/// The arithmetic a GPU performs a GEMM in; indexes the catalog's dense TFLOPS table. fp6 is the
/// MXFP6 rate (CDNA 4 runs it at the fp4 rate, Blackwell at the fp8 rate; methodology §4.1).
enum class MathDtype : std::uint8_t { fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4, fp6 };
inline constexpr std::size_t k_math_dtype_count = 9;

/// Storage formats for weights, activations and KV cache (methodology §2.2).
enum class NumberFormat : std::uint8_t {
  fp32,
  bf16,
  fp16,
  fp8,
  int8,
  int4,
  int4_awq,
  int4_gptq,
  nf4,
  mxfp4,
  nvfp4,
  gguf_q8_0,
  gguf_q6_k,
  gguf_q5_k_m,
  gguf_q4_k_m,
  gguf_q4_0,
  mxfp6,
};
inline constexpr std::size_t k_number_format_count = 17;

/// Static facts about a storage format.
struct FormatInfo {
  NumberFormat format;
  std::string_view name;         ///< spelling in specs and output, e.g. "int4-awq"
  double bits_per_weight;        ///< effective bits per element including scales and zero points
  MathDtype math;                ///< GEMM dtype when this is the activation format
  bool usable_for_activations;   ///< may appear as `precision.activations`
  bool usable_for_kv_cache;      ///< may appear as `precision.kv_cache`
  std::string_view quality_note; ///< one line on the accuracy cost, for recommendation output
};

/// All formats, in enum order.
const std::array<FormatInfo, k_number_format_count>& all_formats();
/// Facts about one format.
const FormatInfo& format_info(NumberFormat format);

/// bf16, fp16 or fp32: a format no engine dequantizes from (a checkpoint in it can be quantized
/// while loading; weights served in it need no quantization method).
bool full_precision(NumberFormat format);
/// Parses a format name (case-insensitive; accepts a few aliases like "e4m3", "awq", "q4_k_m").
std::optional<NumberFormat> parse_number_format(std::string_view name);
/// Name of a math dtype, e.g. "bf16".
std::string_view math_dtype_name(MathDtype dtype);

/// Bits per weight of a group-quantized b-bit format with an fp16 scale and a b-bit zero point per
/// group of `group_size` weights: b + (16 + b) / g (GPTQ/AWQ layout, methodology §2.2).
double group_quantized_bits(double bits, int group_size);

/// Independent precisions of weights, activations (GEMM math) and KV cache.
struct Precision {
  NumberFormat weights = NumberFormat::bf16;
  NumberFormat activations = NumberFormat::bf16;
  NumberFormat kv_cache = NumberFormat::bf16;
  int group_size = 128; ///< group size for int4-awq / int4-gptq

  /// The GEMM dtype: the activation format's math (weight-only formats dequantize to it).
  [[nodiscard]] MathDtype math_dtype() const { return format_info(activations).math; }
  /// Effective bytes per weight element of the quantized (linear-layer) weights.
  [[nodiscard]] double weight_bytes_per_param() const;
  /// Bytes per KV-cache element.
  [[nodiscard]] double kv_bytes_per_element() const { return format_info(kv_cache).bits_per_weight / 8.0; }
  /// Bytes per activation element.
  [[nodiscard]] double activation_bytes_per_element() const;
};

/// Precision implied by one name (`"precision": "fp8"`): weights in that format; activations in it
/// when it is an activation format, else bf16; KV cache bf16 unless the format is fp32/fp16
/// (vLLM's `kv_cache_dtype=auto` keeps the model dtype).
Precision precision_from_shorthand(NumberFormat format);

} // namespace rightsize
