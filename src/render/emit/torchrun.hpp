#pragma once
// recommend --emit torchrun: a POSIX sh script that launches a training recommendation with
// torchrun and Megatron-LM's pretrain_gpt.py (docs/deploy.md "Training launch").
#include <string>
#include <vector>

#include "app/training_artifact.hpp"
#include "render/emit/emit.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// One argument of pretrain_gpt.py: a flag and its value ("" for a switch); `variable`: the value is
/// a shell variable the script expands ("${DATA_PATH}"), anything else is quoted as a literal.
struct LaunchArg {
  std::string flag;
  std::string value;
  bool variable = false;
};

/// pretrain_gpt.py's arguments for `plan`, in the order written. Data, learning rate, checkpoint
/// paths (and the tokenizer without --model-path or a preset) come from the environment.
std::vector<LaunchArg> megatron_arguments(const app::TrainingLaunchPlan& plan);

/// The launch script of `plan`: its header (what runs where, what the user must provide), the
/// environment checks, then torchrun with the Megatron-LM arguments. File name <spec>.torchrun.sh.
EmittedArtifact render_training_launch(const Spec& spec, const app::TrainingLaunchPlan& plan);

} // namespace rightsize::cli
