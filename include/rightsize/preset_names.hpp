#pragma once
// Which shipped preset a name that is not a preset id means (docs/model-spec.md "model"): a
// Hugging Face repository id, a 3.x family name written without its minor version, a typo.
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

/// A preset's names: its rightsize id and the Hugging Face repository of its checkpoint (may be
/// empty).
struct PresetName {
  std::string id;
  std::string hf_id;
};

/// The preset ids `name` most likely means, best first (at most 3; empty when none is close):
/// 1. the presets whose id or Hugging Face id reads the same once both are normalized: lower case,
///    the owner ("meta-llama/") dropped, split into tokens at '-', '_' and a letter-to-digit step
///    ("llama3" -> llama 3), and tokens that name a release variant rather than a model left out
///    ("instruct", "it", "hf", "chat", "base", "pt", "meta", quantization tags, "4k" context tags,
///    "v0.1" revisions, four-digit date tags such as "2507");
/// 2. else the presets whose tokens match one for one, a bare version matching its point releases
///    ("llama-3-70b" -> llama-3.1-70b and llama-3.3-70b);
/// 3. else did_you_mean over the ids (a typo).
std::vector<std::string> suggest_presets(std::string_view name, const std::vector<PresetName>& presets);

/// The one preset `name` names (rule 1 above: its id or Hugging Face id reads the same once both are
/// normalized; "Qwen/Qwen3-8B", "/models/Qwen3-8B-FP8" -> qwen3-8b), or "" when none or more than
/// one does. What a benchmark file's model_id is checked against (docs/calibration.md).
std::string preset_named(std::string_view name, const std::vector<PresetName>& presets);

} // namespace rightsize
