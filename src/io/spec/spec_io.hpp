#pragma once
// Model spec files (docs/model-spec.md) -> validated Spec values: presets, Hugging Face config.json
// import, safetensors checkpoint headers, precision formats.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rightsize/spec.hpp"

namespace rightsize::io {

/// Loads a spec file. Relative paths inside it (hf_config, checkpoint) resolve against the spec's
/// folder; presets come from `models_dir` (data/models). Throws Error (exit 3) on any problem.
Spec load_spec(const std::string& path, const std::string& models_dir);

/// Parses an already-read spec document (used by load_spec and by sweep, which edits the JSON).
Spec parse_spec(const nlohmann::json& document, const std::string& source, const std::string& base_dir,
                const std::string& models_dir);

/// One shipped model preset (data/models/<id>.json).
struct Preset {
  std::string id; ///< e.g. "llama-3.1-8b"
  std::string display_name;
  std::string source; ///< where the architecture came from (config URL)
  std::string hf_id;  ///< Hugging Face repository of the checkpoint ("meta-llama/Llama-3.1-8B"); may be empty
  ModelSpec model;
  Precision precision;                      ///< the checkpoint's native precision
  std::int64_t published_params = 0;        ///< vendor total
  std::int64_t published_active_params = 0; ///< vendor active (MoE), else = total
  /// The vendor's active figure leaves out the input embedding (a gather, no FLOPs): gpt-oss, DeepSeek.
  bool published_active_excludes_embedding = false;
  std::string published_source; ///< where the published figures come from
};

/// All presets in `models_dir`, sorted by id.
std::vector<Preset> load_presets(const std::string& models_dir);

/// Imports a Hugging Face config.json (local document). Keys the file leaves out take the
/// transformers configuration-class defaults of the families rightsize knows; a model_type it does
/// not know is read as a generic decoder when the config has the standard decoder keys (else an
/// Error at the missing key's pointer), and the note saying so is appended to `warnings` (prefixed
/// with `source`) as well as to the assumptions. Sets `precision` from torch_dtype /
/// quantization_config.
ModelSpec import_hf_config(const nlohmann::json& config, const std::string& source, Precision& precision,
                           std::vector<std::string>& assumptions,
                           std::vector<std::string>* warnings = nullptr);

/// Weight bytes read from safetensors headers (never tensor data).
struct CheckpointInfo {
  std::int64_t weight_bytes = 0;
  std::int64_t tensor_count = 0;
  std::int64_t parameter_count = 0;
  std::map<std::string, std::int64_t> bytes_by_dtype;
  std::int64_t shard_count = 0;        ///< safetensors files whose header was read
  std::uint64_t header_bytes_read = 0; ///< their header bytes, bounded (docs/reliability.md)
  /// How the bytes were found: "safetensors header", "shard headers" or "index metadata.total_size"
  /// (shards absent: tensor and parameter counts are then 0).
  std::string basis;
};

/// Reads a .safetensors file, a sharded index (model.safetensors.index.json) or a folder of them.
CheckpointInfo read_checkpoint(const std::string& path);

/// Parses a whole .safetensors file held in memory (tests, fuzzing) with the same checks and
/// messages as read_checkpoint; `source` names it in messages. Throws Error on any problem.
CheckpointInfo parse_safetensors(std::string_view bytes, const std::string& source);

} // namespace rightsize::io
