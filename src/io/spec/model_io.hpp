#pragma once
// The `model` object shared by spec files and presets, and `precision` values. Private to rightsize_io.
#include <string>
#include <vector>

#include "io/json/json_reader.hpp"
#include "rightsize/model.hpp"
#include "rightsize/precision.hpp"

namespace rightsize::io {

/// A model resolved from a `model` object, with its native precision and what was assumed.
struct ResolvedModel {
  ModelSpec model;
  Precision native;          ///< the checkpoint's own precision (bf16 when unknown)
  bool native_known = false; ///< false: bf16 was assumed
  std::string origin;        ///< "preset llama-3.1-8b", "hf_config x.json", ...
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings; ///< said once on stderr (an hf_config read as a generic decoder)
};

/// Where a spec's `model` object may look things up.
struct ModelContext {
  std::string base_dir;      ///< relative hf_config / checkpoint paths resolve here
  std::string models_dir;    ///< presets (data/models)
  bool allow_sources = true; ///< false inside preset files: no preset / hf_config / checkpoint keys
};

/// Resolves a `model` object: its source (preset, hf_config, checkpoint or params) and then the
/// explicit fields, which override. Validates the result; throws Error on any problem.
ResolvedModel resolve_model(const JsonReader& model, const ModelContext& context);

/// Checks an architecture for consistency (heads vs hidden, kv_heads vs heads, MoE and window
/// layer counts, MLA ranks); errors point at the explicit key when there is one, else at `model`.
void validate_architecture(const ModelSpec& spec, const JsonReader& model);

/// Reads an image block's denoiser keys (docs/model-spec.md "image"; methodology §3.7 "UNet
/// denoiser"): `denoiser` ("dit" default, or "unet"), and for a UNet its `unet_gemm_flops_per_pixel`
/// (required) and `unet_attention` levels. UNet keys on a DiT are errors.
void read_image_denoiser(const JsonReader& image, ImagePipelineSpec& pipeline);

/// Parses `"bf16"` or `{"weights", "activations", "kv_cache", "group_size"}`. Fields left out come
/// from `native` (weights) and from the weight format's shorthand (activations, KV cache).
Precision parse_precision(const JsonReader& value, const Precision& native);

/// Names of all number formats, for did-you-mean.
std::vector<std::string> format_names();

/// Path `relative` resolved against `base_dir` unless absolute.
std::string resolve_path(const std::string& base_dir, const std::string& relative);

} // namespace rightsize::io
