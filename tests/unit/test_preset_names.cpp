// Issue 43 item 5: which preset a name means (include/rightsize/preset_names.hpp), and each
// shipped preset's Hugging Face id (data/models/<id>.json "hf_id").
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "io/spec/spec_io.hpp"
#include "rightsize/preset_names.hpp"

using namespace rightsize;

TEST_CASE("Preset suggestions: Hugging Face ids and 3.x names (issue 43 item 5)", "[io]") {
  const std::vector<PresetName> presets = {
      {"llama-2-70b", "meta-llama/Llama-2-70b-hf"}, {"llama-3.1-70b", "meta-llama/Llama-3.1-70B"},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B"},  {"llama-3.3-70b", "meta-llama/Llama-3.3-70B-Instruct"},
      {"mistral-7b", "mistralai/Mistral-7B-v0.1"},  {"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B"},
      {"gemma-3-27b", "google/gemma-3-27b-it"},     {"sdxl", "stabilityai/stable-diffusion-xl-base-1.0"},
      {"deepseek-v3", "deepseek-ai/DeepSeek-V3"}};
  using V = std::vector<std::string>;
  CHECK(suggest_presets("llama-3-70b", presets) == V{"llama-3.1-70b", "llama-3.3-70b"});
  CHECK(suggest_presets("meta-llama/Meta-Llama-3-70B-Instruct", presets) ==
        V{"llama-3.1-70b", "llama-3.3-70b"});
  CHECK(suggest_presets("meta-llama/Llama-3.1-70B-Instruct", presets) == V{"llama-3.1-70b"});
  CHECK(suggest_presets("llama3.1-8b", presets) == V{"llama-3.1-8b"});
  CHECK(suggest_presets("mistralai/Mistral-7B-Instruct-v0.3", presets) == V{"mistral-7b"});
  CHECK(suggest_presets("Qwen/Qwen3-30B-A3B-Instruct-2507", presets) == V{"qwen3-30b-a3b"});
  CHECK(suggest_presets("google/gemma-3-27b-pt", presets) == V{"gemma-3-27b"});
  CHECK(suggest_presets("stabilityai/stable-diffusion-xl-base-1.0", presets) == V{"sdxl"});
  CHECK(suggest_presets("deepseek-ai/DeepSeek-V3-0324", presets) == V{"deepseek-v3"});
  CHECK(suggest_presets("llama-3.1-8", presets) == V{"llama-3.1-8b"}); // a typo: did_you_mean
  CHECK(suggest_presets("bert-base-uncased", presets).empty());
}

TEST_CASE("Every shipped preset's Hugging Face id names that preset", "[io]") {
  // data/models/<id>.json "hf_id": what --emit serves without --model-path, and what the
  // suggestions match an HF id against. ViT-L/16 (torchvision weights) has none.
  const auto presets = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  std::vector<PresetName> names;
  names.reserve(presets.size());
  for (const auto& p : presets)
    names.push_back({p.id, p.hf_id});
  for (const auto& p : presets) {
    INFO(p.id);
    CHECK(p.model.hf_id == p.hf_id);
    if (p.id == "vit-l-16") continue;
    REQUIRE_FALSE(p.hf_id.empty());
    CHECK(p.source.find(p.hf_id) != std::string::npos); // the config the preset was read from
    CHECK(suggest_presets(p.hf_id, names) == std::vector<std::string>{p.id});
  }
}

TEST_CASE("preset_named: the one preset a result file's model id names (issue 38)", "[io][calibrate]") {
  const std::vector<PresetName> presets = {{"qwen3-8b", "Qwen/Qwen3-8B"},
                                           {"qwen3-32b", "Qwen/Qwen3-32B"},
                                           {"llama-3.1-70b", "meta-llama/Llama-3.1-70B"},
                                           {"llama-3.3-70b", "meta-llama/Llama-3.3-70B-Instruct"}};
  CHECK(preset_named("Qwen/Qwen3-8B", presets) == "qwen3-8b");
  CHECK(preset_named("/models/Qwen3-8B-FP8", presets) == "qwen3-8b"); // a local path, a quantization tag
  CHECK(preset_named("nvidia/Qwen3-32B-NVFP4", presets) == "qwen3-32b");
  CHECK(preset_named("meta-llama/Llama-3.1-70B-Instruct", presets) == "llama-3.1-70b");
  CHECK(preset_named("llama-3-70b", presets).empty()); // two 3.x releases: not one model
  CHECK(preset_named("/models/checkpoint-final", presets).empty());
  CHECK(preset_named("", presets).empty());
}
