// The decisions of recommend --emit torchrun (app/training_artifact.hpp, docs/deploy.md "Training
// launch").
#include "app/training_artifact.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/context.hpp"
#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

namespace rightsize::app {
namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw Error(ErrorKind::usage, "--emit", "", why);
}

// What pretrain_gpt.py's GPT model flags write: a decoder of standard (MHA / GQA / MQA) attention
// over every layer, dense or with routed experts. The rest would train another model.
void check_architecture(const ModelSpec& m) {
  const std::string what =
      fmt::format("torchrun writes Megatron-LM's GPT model flags, and {}", safe_text(m.name));
  if (m.kind != ModelKind::decoder) refuse(what + " is not a decoder language model");
  if (m.attention.kind == AttentionKind::mla)
    refuse(what + " uses multi-head latent attention, whose Megatron flags rightsize does not write");
  if (m.linear_attention.layers > 0)
    refuse(what + " has linear-attention or state-space layers (a hybrid model)");
  if (m.attention.sliding_window > 0) refuse(what + " has sliding-window layers");
  if (m.vision.layers > 0) refuse(what + " has a vision tower");
  if (m.moe.shared_experts > 0 || m.moe.dense_layers > 0)
    refuse(what +
           " has shared experts or leading dense layers, whose Megatron flags rightsize does not write");
}

void check_workload(const TrainingWorkload& w, const TrainingLayout& layout) {
  if (w.method != TrainingMethod::full)
    refuse(fmt::format("torchrun launches full training with Megatron-LM, and this spec trains {} "
                       "adapters: run them with a PEFT trainer",
                       to_string(w.method)));
  if (w.optimizer == Optimizer::adamw_8bit)
    refuse("torchrun launches Megatron-LM, which has no 8-bit AdamW: use optimizer adamw or sgd");
  if (layout.recompute == Recompute::per_op)
    refuse("the layout recomputes per op (torchtitan's selective checkpointing), which Megatron-LM does "
           "not have: set workload.recompute to none, selective or full");
  // arguments.py: context parallelism splits each sequence into 2·CP chunks.
  if (layout.cp > 1 && w.seq_len % (2 * static_cast<std::int64_t>(layout.cp)) != 0)
    refuse(
        fmt::format("Megatron-LM splits a sequence into 2 × CP = {} chunks, and seq_len {} is not a multiple "
                    "of it",
                    2 * layout.cp, w.seq_len));
}

} // namespace

std::optional<TrainingLaunchPlan> plan_training_launch(const ArtifactRequest& request, const Spec& spec,
                                                       const SearchInputs& in,
                                                       const TrainingRecommendation& recommendation) {
  if (recommendation.candidates.empty()) return std::nullopt;
  if (static_cast<std::size_t>(request.rank) > recommendation.candidates.size())
    throw Error(ErrorKind::usage, "--rank", "",
                fmt::format("only {} candidate{} meet the requirements, got rank {}",
                            recommendation.candidates.size(),
                            recommendation.candidates.size() == 1 ? "" : "s", request.rank));
  const TrainingCandidate& c = recommendation.candidates[static_cast<std::size_t>(request.rank) - 1];
  const TrainingEstimate& e = c.estimate;
  const PreparedModel& model = in.models.front();
  check_architecture(model.model);
  check_workload(spec.training, e.layout);
  TrainingLaunchPlan p;
  p.rank = request.rank;
  const Gpu& gpu = in.gpus[c.gpu_index];
  p.gpu_id = gpu.id;
  p.gpu_vendor = gpu.vendor;
  p.gpus = e.layout.gpus();
  p.procs_per_node = std::min(p.gpus, std::max(1, gpu.gpus_per_node));
  p.nodes = (p.gpus + p.procs_per_node - 1) / p.procs_per_node;
  p.layout = e.layout;
  p.global_batch = std::max<std::int64_t>(1, e.global_batch_effective);
  p.requested_global_batch = spec.training.global_batch;
  p.seq_len = spec.training.seq_len;
  p.max_position = std::max(p.seq_len, model.model.max_position);
  // Steps of the run: the tokens at the tokens one step trains (one step when no tokens are given).
  p.train_iters = e.tokens_per_step > 0.0 && spec.training.tokens > 0.0
                      ? static_cast<std::int64_t>(std::ceil(spec.training.tokens / e.tokens_per_step))
                      : 1;
  p.math = model.precision.activations;
  p.optimizer = spec.training.optimizer;
  p.model = model.model;
  p.tokenizer = !request.model_path.empty() ? request.model_path : model.model.hf_id;
  // The tokenizer is an argument's value: the artifacts' one text check, read by Megatron-LM.
  if (!p.tokenizer.empty()) check_artifact_text("--model-path", p.tokenizer, false, "Megatron-LM");
  p.time_to_train_s = e.time_to_train_s;
  p.tokens_per_s = e.tokens_per_s;
  return p;
}

} // namespace rightsize::app
