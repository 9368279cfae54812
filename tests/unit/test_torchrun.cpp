// recommend --emit torchrun: the launch plan's decisions and Megatron-LM's arguments, by hand.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app/context.hpp"
#include "app/training_artifact.hpp"
#include "fixtures.hpp"
#include "render/emit/torchrun.hpp"
#include "rightsize/error.hpp"

using namespace rightsize;

namespace {

// A 64-GPU Llama-3.1-70B run on 8-GPU H100 nodes: TP4 PP4 DP2 CP2, 5 virtual stages, ZeRO-1,
// selective recompute, micro-batch 2; 1,000 sequences asked, the layout runs 252 micro-batches of 2 on
// each of 2 DP ranks = 1,008 (the estimate's global_batch_effective, taken as it is).
struct Fixture {
  app::SearchInputs in;
  Spec spec;
  TrainingRecommendation rec;
};

Fixture llama70b_run() {
  Fixture f;
  f.in.gpus = {test::h100_sxm()};
  ModelSpec model = test::llama31_70b();
  model.max_position = 131072;
  f.in.models = {prepare_model(model, Precision{})};
  f.spec.name = "pretrain-70b";
  f.spec.mode = WorkloadMode::training;
  f.spec.training.seq_len = 8192;
  f.spec.training.global_batch = 1000;
  f.spec.training.tokens = 1e9;
  TrainingCandidate c;
  c.estimate.layout.tp = 4;
  c.estimate.layout.pp = 4;
  c.estimate.layout.dp = 2;
  c.estimate.layout.cp = 2;
  c.estimate.layout.vp = 5;
  c.estimate.layout.zero_stage = 1;
  c.estimate.layout.micro_batch = 2;
  c.estimate.global_batch_effective = 1008; // 252 micro-batches of 2 on 2 DP ranks
  c.estimate.tokens_per_step = 1008.0 * 8192.0;
  c.estimate.time_to_train_s = 86400.0;
  c.estimate.tokens_per_s = 11574.0;
  f.rec.candidates = {c};
  return f;
}

bool has(const std::vector<cli::LaunchArg>& args, const std::string& flag, const std::string& value = "") {
  for (const cli::LaunchArg& a : args)
    if (a.flag == flag && a.value == value) return true;
  return false;
}

} // namespace

TEST_CASE("torchrun launch: nodes, steps and the layout's Megatron arguments", "[deploy][torchrun]") {
  Fixture f = llama70b_run();
  app::ArtifactRequest request;
  request.kind = "torchrun";
  const auto plan = app::plan_training_launch(request, f.spec, f.in, f.rec);
  REQUIRE(plan.has_value());
  // 4 × 4 × 2 × 2 = 64 GPUs on 8-GPU nodes: 8 nodes of 8 processes.
  CHECK(plan->gpus == 64);
  CHECK(plan->nodes == 8);
  CHECK(plan->procs_per_node == 8);
  // 1e9 tokens at 1,008 × 8,192 = 8,257,536 tokens per step: ceil(121.1) = 122 steps.
  CHECK(plan->train_iters == 122);
  CHECK(plan->global_batch == 1008);
  CHECK(plan->max_position == 131072); // the model's context is above seq_len
  CHECK(plan->tokenizer == test::llama31_70b().hf_id);
  const auto args = cli::megatron_arguments(*plan);
  CHECK(has(args, "--tensor-model-parallel-size", "4"));
  CHECK(has(args, "--pipeline-model-parallel-size", "4"));
  // 80 layers over 4 stages × 5 virtual stages: 4 layers per virtual stage.
  CHECK(has(args, "--num-layers-per-virtual-pipeline-stage", "4"));
  CHECK(has(args, "--context-parallel-size", "2"));
  CHECK(has(args, "--sequence-parallel"));
  CHECK(has(args, "--use-distributed-optimizer"));
  CHECK(has(args, "--recompute-granularity", "selective"));
  CHECK(has(args, "--num-query-groups", "8"));
  CHECK(has(args, "--micro-batch-size", "2"));
  CHECK(has(args, "--global-batch-size", "1008"));
  CHECK(has(args, "--train-iters", "122"));
  CHECK_FALSE(has(args, "--expert-model-parallel-size", "1"));
  const cli::EmittedArtifact script = cli::render_training_launch(f.spec, *plan);
  CHECK(script.file_name == "pretrain-70b.torchrun.sh");
  CHECK(script.text.find("--nnodes 8 --nproc-per-node 8") != std::string::npos);
  CHECK(script.text.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") != std::string::npos); // TP > 1
  CHECK(script.text.find("the layout runs 1008 sequences per step (252 micro-batches of 2 on each of 2 DP "
                         "ranks), the spec asked for 1000") != std::string::npos);
  // The data path is a variable the script expands; the tokenizer a quoted literal.
  CHECK(script.text.find("--data-path \"${DATA_PATH}\"") != std::string::npos);
}

TEST_CASE("torchrun launch: FSDP stages, CPU offload and full recompute", "[deploy][torchrun]") {
  Fixture f = llama70b_run();
  TrainingLayout& l = f.rec.candidates[0].estimate.layout;
  l = TrainingLayout{};
  l.dp = 8;
  l.zero_stage = 3;
  l.cpu_offload = true;
  l.recompute = Recompute::full;
  app::ArtifactRequest request;
  request.model_path = "/models/llama";
  auto plan = app::plan_training_launch(request, f.spec, f.in, f.rec);
  REQUIRE(plan.has_value());
  CHECK(plan->nodes == 1);
  auto args = cli::megatron_arguments(*plan);
  CHECK(has(args, "--use-megatron-fsdp"));
  CHECK(has(args, "--data-parallel-sharding-strategy", "optim_grads_params"));
  CHECK(has(args, "--ckpt-format", "fsdp_dtensor"));
  CHECK(has(args, "--optimizer-cpu-offload"));
  CHECK(has(args, "--use-precision-aware-optimizer"));
  CHECK(has(args, "--recompute-method", "uniform"));
  CHECK(has(args, "--tokenizer-model", "/models/llama"));
  const std::string text = cli::render_training_launch(f.spec, *plan).text;
  CHECK(text.find("--standalone --nproc-per-node 8") != std::string::npos);
  CHECK(text.find("CUDA_DEVICE_MAX_CONNECTIONS") == std::string::npos); // FSDP asserts it is not 1
  l.zero_stage = 2;
  plan = app::plan_training_launch(request, f.spec, f.in, f.rec);
  CHECK(has(cli::megatron_arguments(*plan), "--data-parallel-sharding-strategy", "optim_grads"));
}

TEST_CASE("torchrun launch: what Megatron-LM cannot run is refused", "[deploy][torchrun]") {
  app::ArtifactRequest request;
  Fixture f = llama70b_run();
  f.rec.candidates[0].estimate.layout.recompute = Recompute::per_op;
  CHECK_THROWS_AS(app::plan_training_launch(request, f.spec, f.in, f.rec), Error);
  f = llama70b_run();
  f.spec.training.method = TrainingMethod::lora;
  CHECK_THROWS_AS(app::plan_training_launch(request, f.spec, f.in, f.rec), Error);
  f = llama70b_run();
  f.spec.training.seq_len = 8190; // not a multiple of 2 × CP = 4
  CHECK_THROWS_AS(app::plan_training_launch(request, f.spec, f.in, f.rec), Error);
  f = llama70b_run();
  f.in.models = {prepare_model(test::deepseek_v3(), Precision{})}; // MLA
  CHECK_THROWS_AS(app::plan_training_launch(request, f.spec, f.in, f.rec), Error);
  f = llama70b_run();
  request.rank = 2; // one candidate only
  CHECK_THROWS_AS(app::plan_training_launch(request, f.spec, f.in, f.rec), Error);
  f.rec.candidates.clear();
  CHECK_FALSE(app::plan_training_launch(request, f.spec, f.in, f.rec).has_value());
}
