// recommend --emit torchrun (render/emit/torchrun.hpp). Flag names: Megatron-LM
// megatron/training/arguments.py and torch.distributed.run at the versions docs/deploy.md
// "Training launch" pins; tests/schema checks every emitted flag against those lists.
#include "render/emit/torchrun.hpp"

#include <fmt/format.h>

#include "render/emit/engine_command.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "render/render.hpp"
#include "rightsize/text.hpp"

namespace rightsize::cli {
namespace {

using Args = std::vector<LaunchArg>;

std::string n(std::int64_t value) {
  return std::to_string(value);
}

// Parallelism: Megatron's degrees; DP is what is left of the world (world / (TP · PP · CP)).
void parallel_args(Args& a, const app::TrainingLaunchPlan& p) {
  const TrainingLayout& l = p.layout;
  a.push_back({"--tensor-model-parallel-size", n(l.tp)});
  a.push_back({"--pipeline-model-parallel-size", n(l.pp)});
  if (l.vp > 1)
    a.push_back({"--num-layers-per-virtual-pipeline-stage",
                 n(p.model.layers / (static_cast<std::int64_t>(l.pp) * l.vp))});
  if (l.cp > 1) a.push_back({"--context-parallel-size", n(l.cp)});
  if (l.ep > 1) a.push_back({"--expert-model-parallel-size", n(l.ep)});
  if (l.tp > 1 && l.sequence_parallel) a.push_back({"--sequence-parallel", ""});
  // ZeRO-1: the distributed optimizer shards the optimizer states over DP; ZeRO-2 / 3: Megatron FSDP
  // (optim_grads / optim_grads_params), whose checkpoints are fsdp_dtensor.
  if (l.zero_stage == 1) a.push_back({"--use-distributed-optimizer", ""});
  if (l.zero_stage >= 2) {
    a.push_back({"--use-megatron-fsdp", ""});
    a.push_back(
        {"--data-parallel-sharding-strategy", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params"});
    a.push_back({"--ckpt-format", "fsdp_dtensor"});
  }
  // The optimizer in host memory needs the precision-aware optimizer (arguments.py).
  if (l.cpu_offload) {
    a.push_back({"--optimizer-cpu-offload", ""});
    a.push_back({"--use-precision-aware-optimizer", ""});
  }
  if (l.recompute == Recompute::selective) a.push_back({"--recompute-granularity", "selective"});
  if (l.recompute == Recompute::full) {
    a.push_back({"--recompute-granularity", "full"});
    a.push_back({"--recompute-method", "uniform"});
    a.push_back({"--recompute-num-layers", "1"});
  }
}

// The architecture as GPT model flags (what the estimate sized).
void model_args(Args& a, const ModelSpec& m, const app::TrainingLaunchPlan& p) {
  a.push_back({"--num-layers", n(m.layers)});
  a.push_back({"--hidden-size", n(m.hidden_size)});
  a.push_back({"--ffn-hidden-size", n(m.ffn_size)});
  a.push_back({"--num-attention-heads", n(m.heads)});
  if (m.kv_heads > 0 && m.kv_heads != m.heads) {
    a.push_back({"--group-query-attention", ""});
    a.push_back({"--num-query-groups", n(m.kv_heads)});
  }
  if (m.head_dim > 0 && m.head_dim * m.heads != m.hidden_size) a.push_back({"--kv-channels", n(m.head_dim)});
  if (m.moe.experts > 0) {
    a.push_back({"--num-experts", n(m.moe.experts)});
    a.push_back({"--moe-router-topk", n(m.moe.experts_per_token)});
    if (m.moe.expert_ffn_size > 0) a.push_back({"--moe-ffn-hidden-size", n(m.moe.expert_ffn_size)});
  }
  a.push_back({"--seq-length", n(p.seq_len)});
  a.push_back({"--max-position-embeddings", n(p.max_position)});
  a.push_back({"--position-embedding-type", "rope"});
  a.push_back({"--normalization", m.norm == NormKind::rms ? "RMSNorm" : "LayerNorm"});
  if (m.ffn_gated) a.push_back({"--swiglu", ""});
  if (!m.tied_embeddings) a.push_back({"--untie-embeddings-and-output-weights", ""});
  // Megatron adds a bias to every linear layer unless told not to; Qwen-style models keep the q, k,
  // v biases alone.
  if (!m.o_bias && !m.mlp_bias) a.push_back({"--disable-bias-linear", ""});
  if (m.qkv_bias) a.push_back({"--add-qkv-bias", ""});
}

std::string layout_text(const TrainingLayout& l) {
  std::string out = fmt::format("TP{} PP{} DP{}", l.tp, l.pp, l.dp);
  if (l.cp > 1) out += fmt::format(" CP{}", l.cp);
  if (l.ep > 1) out += fmt::format(" EP{}", l.ep);
  if (l.vp > 1) out += fmt::format(" VP{}", l.vp);
  out += fmt::format(", ZeRO-{}, {} recompute, micro-batch {}", l.zero_stage,
                     l.recompute == Recompute::none ? "no" : to_string(l.recompute), l.micro_batch);
  return out;
}

std::string header(const Spec& spec, const app::TrainingLaunchPlan& p) {
  std::string h = fmt::format(
      "# rightsize: {} on {} × {} ({} node{} × {}), rank {}: {}; {} steps of {} × {} tokens, ≈{:.1f} days "
      "at {} tokens/s (estimate)\n",
      safe_text(spec.name), p.gpus, p.gpu_id, p.nodes, p.nodes == 1 ? "" : "s", p.procs_per_node, p.rank,
      layout_text(p.layout), format_count(static_cast<double>(p.train_iters)),
      format_count(static_cast<double>(p.global_batch)), format_count(static_cast<double>(p.seq_len)),
      p.time_to_train_s / 86400.0, format_count(p.tokens_per_s));
  h += "# needs: Megatron-LM and its Python environment (PyTorch, Transformer Engine) on every node, checked "
       "out at MEGATRON_LM (default ./Megatron-LM; the script runs from there)\n";
  h += "# needs: DATA_PATH, a dataset prefix made by Megatron-LM's tools/preprocess_data.py with the same "
       "tokenizer; LR, the peak learning rate; CHECKPOINT_DIR, where --save and --load keep checkpoints "
       "(every "
       "SAVE_INTERVAL steps, default 1000)\n";
  if (p.gpu_vendor == "amd")
    h +=
        "# needs: on AMD GPUs, ROCm's build of Megatron-LM (github.com/ROCm/Megatron-LM) and its container\n";
  if (p.tokenizer.empty())
    h += "# needs: TOKENIZER_MODEL, the Hugging Face tokenizer (id or path) of the model\n";
  h += "# note: the model flags give the shapes rightsize sized; RoPE base and scaling, norm epsilon and "
       "initialization are Megatron-LM's defaults: set --rotary-base and the rest from the model's config to "
       "train that architecture exactly\n";
  if (p.nodes > 1)
    h += fmt::format(
        "# needs: run it on each of the {} nodes with NODE_RANK (0 to {}) and MASTER_ADDR (node 0's "
        "address); MASTER_PORT defaults to 29500\n",
        p.nodes, p.nodes - 1);
  if (p.global_batch != p.requested_global_batch)
    h += fmt::format(
        "# note: the layout runs {} sequences per step ({} micro-batches of {} on each of {} DP ranks), "
        "the spec asked for {}\n",
        p.global_batch, p.global_batch / std::max<std::int64_t>(1, p.layout.micro_batch * p.layout.dp),
        p.layout.micro_batch, p.layout.dp, p.requested_global_batch);
  return h;
}

} // namespace

Args megatron_arguments(const app::TrainingLaunchPlan& p) {
  Args a;
  parallel_args(a, p);
  model_args(a, p.model, p);
  a.push_back({"--micro-batch-size", n(p.layout.micro_batch)});
  a.push_back({"--global-batch-size", n(p.global_batch)});
  a.push_back({"--train-iters", n(p.train_iters)});
  a.push_back({"--bf16", ""});
  if (p.math == NumberFormat::fp8) a.push_back({"--fp8-format", "hybrid"});
  a.push_back({"--optimizer", p.optimizer == Optimizer::sgd ? "sgd" : "adam"});
  a.push_back({"--lr", "${LR}", true});
  a.push_back({"--tokenizer-type", "HuggingFaceTokenizer"});
  a.push_back(
      {"--tokenizer-model", p.tokenizer.empty() ? "${TOKENIZER_MODEL}" : p.tokenizer, p.tokenizer.empty()});
  a.push_back({"--data-path", "${DATA_PATH}", true});
  a.push_back({"--save", "${CHECKPOINT_DIR}", true});
  a.push_back({"--save-interval", "${SAVE_INTERVAL}", true});
  a.push_back({"--load", "${CHECKPOINT_DIR}", true});
  return a;
}

EmittedArtifact render_training_launch(const Spec& spec, const app::TrainingLaunchPlan& p) {
  std::string s = "#!/bin/sh\n" + header(spec, p);
  s += "set -eu\n";
  if (p.nodes > 1) {
    s += fmt::format(": \"${{NODE_RANK:?set NODE_RANK to the index of this node, 0 to {}}}\"\n", p.nodes - 1);
    s += ": \"${MASTER_ADDR:?set MASTER_ADDR to the address of node 0}\"\n";
  }
  s += ": \"${DATA_PATH:?set DATA_PATH to the preprocessed dataset prefix (an absolute path)}\"\n";
  s += ": \"${LR:?set LR to the peak learning rate}\"\n";
  s += ": \"${CHECKPOINT_DIR:?set CHECKPOINT_DIR to the checkpoint directory (an absolute path)}\"\n";
  if (p.tokenizer.empty())
    s += ": \"${TOKENIZER_MODEL:?set TOKENIZER_MODEL to the tokenizer of the model}\"\n";
  s += "SAVE_INTERVAL=\"${SAVE_INTERVAL:-1000}\"\n";
  if (p.nodes > 1) s += "MASTER_PORT=\"${MASTER_PORT:-29500}\"\n";
  // arguments.py asserts CUDA_DEVICE_MAX_CONNECTIONS=1 with TP or CP above 1 (before Blackwell: one
  // work queue keeps the communication kernels in issue order) and asserts it is not 1 under FSDP.
  const bool fsdp = p.layout.zero_stage >= 2;
  if (!fsdp && (p.layout.tp > 1 || p.layout.cp > 1)) s += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  // pretrain_gpt.py imports modules beside it: it runs from the checkout.
  s += "cd \"${MEGATRON_LM:-./Megatron-LM}\"\n";
  s += "exec torchrun";
  if (p.nodes > 1)
    s += fmt::format(" --nnodes {} --nproc-per-node {} --node-rank \"${{NODE_RANK}}\" --master-addr "
                     "\"${{MASTER_ADDR}}\" --master-port \"${{MASTER_PORT}}\"",
                     p.nodes, p.procs_per_node);
  else
    s += fmt::format(" --standalone --nproc-per-node {}", p.procs_per_node);
  s += " pretrain_gpt.py";
  for (const LaunchArg& arg : megatron_arguments(p)) {
    s += " \\\n  ";
    s += arg.flag;
    if (arg.value.empty()) continue;
    s.push_back(' ');
    s += shell_word(arg.value, arg.variable);
  }
  s.push_back('\n');
  return {k8s_name(spec.name, k_k8s_name_max) + ".torchrun.sh", s};
}

} // namespace rightsize::cli
