// Speculative decoding in the engines' own terms (docs/deploy.md "Speculative decoding"):
// - vLLM `--speculative-config` JSON (vllm/config/speculative.py SpeculativeConfig; docs
//   features/speculative_decoding): method "mtp" (v0.11 and later; "deepseek_mtp" before),
//   "eagle3" with the head as "model", "ngram" with prompt_lookup_max / _min.
// - SGLang (python/sglang/srt/server_args.py; docs/basic_usage/deepseek_v3.md,
//   docs/advanced_features/speculative_decoding.md): --speculative-algorithm EAGLE for an MTP
//   checkpoint (NEXTN is its alias), EAGLE3 with --speculative-draft-model-path, NGRAM; with top-k 1
//   --speculative-num-draft-tokens = steps + 1.
//   A separate draft model is STANDALONE with --speculative-draft-model-path (no DP attention).
// - TensorRT-LLM (tensorrt_llm/llmapi/llm_args.py MTPDecodingConfig, EagleDecodingConfig,
//   NGramDecodingConfig, DraftTargetDecodingConfig): speculative_config with decoding_type MTP /
//   Eagle / NGram / DraftTarget (from_dict's key; the draft as speculative_model_dir).
// - vLLM v0.11 runs no separate draft model: the artifact planner refuses it (deploy_artifact.cpp).
#include "render/emit/speculative_flags.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rightsize::cli {

// vLLM's prompt-lookup window for n-gram drafting: the longest and shortest n-gram matched in the
// prompt (docs features/speculative_decoding/n_gram.md example: 4; the minimum set with it, as
// SpeculativeConfig otherwise copies the maximum).
constexpr int k_ngram_lookup_max = 4;
constexpr int k_ngram_lookup_min = 2;

FlagSet speculative_flags(app::Engine engine, const Speculative& sp) {
  FlagSet out;
  if (sp.method == SpeculativeMethod::none) return out;
  const int k = sp.draft_tokens;
  if (engine == app::Engine::vllm) {
    nlohmann::json j = {{"num_speculative_tokens", k}};
    switch (sp.method) {
    case SpeculativeMethod::mtp:
      j["method"] = "mtp";
      out.notes.push_back("vLLM before 0.11 names DeepSeek's MTP method \"deepseek_mtp\"");
      break;
    case SpeculativeMethod::eagle3:
      j["method"] = "eagle3";
      j["model"] = sp.draft_path;
      break;
    case SpeculativeMethod::ngram:
      j["method"] = "ngram";
      j["prompt_lookup_max"] = k_ngram_lookup_max;
      j["prompt_lookup_min"] = k_ngram_lookup_min;
      break;
    case SpeculativeMethod::draft_model: // refused for vLLM v0.11 before this (deploy_artifact.cpp)
    case SpeculativeMethod::none: break;
    }
    out.flags.emplace_back("--speculative-config", j.dump());
  } else if (engine == app::Engine::sglang) {
    const char* algorithm = sp.method == SpeculativeMethod::mtp           ? "EAGLE"
                            : sp.method == SpeculativeMethod::eagle3      ? "EAGLE3"
                            : sp.method == SpeculativeMethod::draft_model ? "STANDALONE"
                                                                          : "NGRAM";
    out.flags.emplace_back("--speculative-algorithm", algorithm);
    if (sp.method == SpeculativeMethod::eagle3 || sp.method == SpeculativeMethod::draft_model)
      out.flags.emplace_back("--speculative-draft-model-path", sp.draft_path);
    if (sp.method != SpeculativeMethod::ngram) {
      out.flags.emplace_back("--speculative-num-steps", std::to_string(k));
      out.flags.emplace_back("--speculative-eagle-topk", "1");
    }
    out.flags.emplace_back("--speculative-num-draft-tokens", std::to_string(k + 1));
    if (sp.method == SpeculativeMethod::mtp)
      out.notes.push_back("SGLang runs a checkpoint's MTP module as --speculative-algorithm EAGLE (NEXTN)");
    if (sp.method == SpeculativeMethod::ngram)
      out.notes.push_back(
          "SGLang's NGRAM drafting runs on CUDA only, without DP attention, and turns off the "
          "overlap scheduler");
    if (sp.method == SpeculativeMethod::draft_model)
      out.notes.push_back("SGLang's STANDALONE drafting runs without DP attention and, unless "
                          "--max-running-requests is given, caps the running requests at 48");
  }
  return out;
}

void trtllm_speculative_yaml(YAML::Emitter& y, const Speculative& sp, std::vector<std::string>& notes) {
  if (sp.method == SpeculativeMethod::none) return;
  y << YAML::Key << "speculative_config" << YAML::Value << YAML::BeginMap;
  switch (sp.method) {
  case SpeculativeMethod::mtp:
    y << YAML::Key << "decoding_type" << YAML::Value << "MTP";
    y << YAML::Key << "num_nextn_predict_layers" << YAML::Value << sp.draft_tokens;
    break;
  case SpeculativeMethod::eagle3:
    y << YAML::Key << "decoding_type" << YAML::Value << "Eagle";
    y << YAML::Key << "max_draft_len" << YAML::Value << sp.draft_tokens;
    y << YAML::Key << "speculative_model_dir" << YAML::Value << sp.draft_path;
    y << YAML::Key << "eagle3_one_model" << YAML::Value << true;
    break;
  case SpeculativeMethod::ngram:
    y << YAML::Key << "decoding_type" << YAML::Value << "NGram";
    y << YAML::Key << "max_draft_len" << YAML::Value << sp.draft_tokens;
    y << YAML::Key << "max_matching_ngram_size" << YAML::Value << k_ngram_lookup_max;
    notes.push_back("TensorRT-LLM releases before mid-2025 name the n-gram draft length "
                    "prompt_lookup_num_tokens");
    break;
  case SpeculativeMethod::draft_model:
    y << YAML::Key << "decoding_type" << YAML::Value << "DraftTarget";
    y << YAML::Key << "max_draft_len" << YAML::Value << sp.draft_tokens;
    y << YAML::Key << "speculative_model_dir" << YAML::Value << sp.draft_path;
    notes.push_back("TensorRT-LLM releases before late 2025 name the draft checkpoint speculative_model; its "
                    "Draft/Target example also sets disable_overlap_scheduler: true");
    break;
  case SpeculativeMethod::none: break;
  }
  y << YAML::EndMap;
}

} // namespace rightsize::cli
