// Measured serving rows (docs/accuracy.md): which rows are scored, and the GPUs of a row's layout.
#include <vector>

#include <catch2/catch.hpp>

#include "rightsize/serving_validation.hpp"

using namespace rightsize;

namespace {

// DeepSeek-R1 fp8 on B200, TensorRT-LLM, 1,024 / 1,024 tokens at 64 clients: the upstream file's
// row ..._c64_tp8_0_ep8_0_976 (attention DP 8, EP 8: 8 GPUs) and its repeat ..._c64_tp8_ep8_937
// (attention DP 64, MoE TP 8 × EP 8: 64 GPUs), both 1,085.46 ms TTFT and 12.2895 ms TPOT.
ServingRun dsr1_c64(int attention_dp, int moe_tp) {
  ServingRun r;
  r.engine = "trtllm";
  r.gpu_id = "B200";
  r.model = "deepseek-ai/DeepSeek-R1";
  r.precision = "fp8";
  r.gemm_quant = "fp8";
  r.moe_quant = "fp8";
  r.mode = "agg";
  r.input_tokens = 1024;
  r.output_tokens = 1024;
  r.concurrency = 64;
  r.tp = 1;
  r.attention_dp = attention_dp;
  r.moe_tp = moe_tp;
  r.moe_ep = 8;
  r.ttft_s = 1.08546;
  r.tpot_s = 0.0122895;
  return r;
}

} // namespace

TEST_CASE("layout GPUs: tp·pp·ranks, the two pools' workers summed", "[serving]") {
  CHECK(layout_gpus(dsr1_c64(8, 1)) == 8);
  CHECK(layout_gpus(dsr1_c64(64, 8)) == 64);
  ServingRun d;
  d.mode = "disagg";
  d.prefill = ServingPool{8, 1, 1, 1, 8, 2}; // 2 workers of TP8: 16 GPUs
  d.decode = ServingPool{1, 1, 8, 1, 8, 0};  // workers not given: counted as 1 worker of 8 ranks
  CHECK(layout_gpus(d) == 24);
}

TEST_CASE("a measurement listed twice is scored once, under the layout with the fewest GPUs", "[serving]") {
  std::vector<ServingRun> runs = {dsr1_c64(64, 8), dsr1_c64(8, 1)};
  ServingRun other_load = dsr1_c64(8, 1); // another client count: its own measurement
  other_load.concurrency = 128;
  runs.push_back(other_load);
  ServingRun other_value = dsr1_c64(8, 1); // the same workload measured again with another result
  other_value.tpot_s = 0.0123;
  runs.push_back(other_value);
  runs.push_back(dsr1_c64(8, 1));      // a third copy: the earlier 8-GPU row is kept (file order)
  ServingRun rounded = dsr1_c64(8, 1); // a copy given to 0.01 ms: 1,085.46 ms and 12.29 ms
  rounded.tpot_s = 0.01229;
  runs.push_back(rounded);
  ServingRun apart = dsr1_c64(8, 1); // 0.01 ms apart in TTFT: another measurement
  apart.ttft_s = 1.08547;
  runs.push_back(apart);
  const std::vector<std::size_t> scored = scored_row_of(runs);
  REQUIRE(scored.size() == 7);
  CHECK(scored[0] == 1); // the 64-GPU encoding defers to the 8-GPU one
  CHECK(scored[1] == 1);
  CHECK(scored[2] == 2);
  CHECK(scored[3] == 3);
  CHECK(scored[4] == 1);
  CHECK(scored[5] == 1);
  CHECK(scored[6] == 6);
}

TEST_CASE("a batch setting below the clients without attention DP is replicas the row does not give",
          "[serving]") {
  // Upstream's nvidia_qwen3_32b_nvfp4 ..._c416_tp2_0_epnone_2: 416 clients, batch 13, TP2.
  ServingRun r = dsr1_c64(1, 1);
  r.concurrency = 416;
  r.batch_size = 13;
  CHECK(replicas_not_given(r));
  r.batch_size = 416; // the batch setting equals the clients: one replica
  CHECK_FALSE(replicas_not_given(r));
  r.batch_size = 0; // not given
  CHECK_FALSE(replicas_not_given(r));
  ServingRun adp = dsr1_c64(8, 1); // attention DP: the batch setting is per rank (64 clients, 8 each)
  adp.batch_size = 8;
  CHECK_FALSE(replicas_not_given(adp));
  ServingRun disagg = dsr1_c64(1, 1);
  disagg.mode = "disagg";
  disagg.batch_size = 13;
  CHECK_FALSE(replicas_not_given(disagg));
}
