#pragma once
// recommend --emit torchrun: the launch of a training recommendation (docs/deploy.md "Training
// launch"). What the artifact must say, decided here; src/render/emit/torchrun.cpp formats it.
#include <cstdint>
#include <optional>
#include <string>

#include "app/deploy_artifact.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::app {

struct SearchInputs;

/// One training job: Megatron-LM's pretrain_gpt.py under torchrun, with the candidate's layout.
struct TrainingLaunchPlan {
  int rank = 1;                  ///< the candidate's place in recommend's ranking
  std::string gpu_id;            ///< catalog id
  std::string gpu_vendor;        ///< "nvidia", "amd"
  int gpus = 1;                  ///< the job's GPUs (TP × PP × DP × CP)
  int nodes = 1;                 ///< ceil(gpus / gpus_per_node)
  int procs_per_node = 1;        ///< torchrun --nproc-per-node: min(gpus, gpus_per_node)
  TrainingLayout layout;         ///< TP / PP / DP / EP / CP / VP, ZeRO stage, recompute, micro-batch
  std::int64_t global_batch = 1; ///< sequences per step the layout runs (m · micro-batch · DP)
  std::int64_t requested_global_batch = 1; ///< the spec's
  std::int64_t seq_len = 1;
  std::int64_t train_iters = 1;           ///< ceil(tokens / tokens per step); one step without tokens
  std::int64_t max_position = 1;          ///< max(seq_len, the model's context)
  NumberFormat math = NumberFormat::bf16; ///< the GEMM precision (bf16, fp16 or fp8 with bf16 master)
  Optimizer optimizer = Optimizer::adamw;
  ModelSpec model;            ///< the architecture written as Megatron's model flags
  std::string tokenizer;      ///< --model-path, else the preset's Hugging Face id; "" = $TOKENIZER_MODEL
  double time_to_train_s = 0; ///< the estimate's, for the header
  double tokens_per_s = 0;
};

/// The launch of the recommendation's candidate of `request.rank`; nullopt when nothing passes.
/// Refuses (ErrorKind::usage, exit 2) what the launch cannot express: LoRA / QLoRA runs (a PEFT
/// trainer, not pretrain_gpt.py), architectures Megatron's GPT flags do not write here (MLA,
/// linear-attention layers, sliding windows, a vision tower, image models), torchtitan's per-op
/// recompute, 8-bit AdamW.
std::optional<TrainingLaunchPlan> plan_training_launch(const ArtifactRequest& request, const Spec& spec,
                                                       const SearchInputs& in,
                                                       const TrainingRecommendation& recommendation);

} // namespace rightsize::app
