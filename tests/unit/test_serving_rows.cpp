// Measured serving rows (docs/accuracy.md): which rows are scored, and the GPUs of a row's layout.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "io/runs/serving_csv.hpp"
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

TEST_CASE("a replica written with its degrees multiplied is read back as the node it ran on",
          "[serving][io]") {
  // The upstream header; rows cut to what the reading looks at (docs/accuracy.md "Multiplied layouts").
  const std::string header =
      "id,engine,engine_version,image,measured_on,model,rightsize_preset,gpu,precision,gemm_quant,moe_quant,"
      "mode,input_tokens,output_tokens,concurrency,batch_size,tp,pp,attention_dp,moe_tp,moe_ep,prefill_tp,"
      "prefill_pp,prefill_attention_dp,prefill_moe_tp,prefill_moe_ep,prefill_workers,decode_tp,decode_pp,"
      "decode_attention_dp,decode_moe_tp,decode_moe_ep,decode_workers,ttft_ms,tpot_ms\n";
  const auto row = [](const std::string& id, const std::string& layout) {
    return id + ",trtllm,,,,deepseek-ai/DeepSeek-R1,deepseek-r1,B200,fp8,fp8,fp8,agg,1024,1024,64,64," +
           layout + ",,,,,,,,,,,,,300.0,12.0\n";
  };
  const std::vector<ServingRun> runs = io::parse_serving_csv(
      header + row("tp64", "64,1,1,8,8") + // TP 64 = moe_tp 8 × moe_ep 8: 8 GPUs, TP 8, EP 8
          row("adp64", "1,1,64,8,8") +     // attention DP 64 = 8 × 8: 8 ranks, EP 8
          row("tp16", "16,1,1,4,4") +      // 4 × 4: 4 GPUs
          row("in_node", "8,1,1,2,4") +    // moe_tp 2 × moe_ep 4 on 8 GPUs: a real split, as written
          row("dp_ep", "4,1,4,1,16") +     // vLLM TP 4 × DP 4, EP 16: moe_tp 1, as written
          row("wide_tp", "16,1,1,16,1") +  // TP 16 across nodes, experts TP-split: as written
          row("tp_and_dp", "2,1,32,8,8"),  // TP 2 × DP 32 = 8 × 8: 8 ranks of one GPU, EP 8
      "rows.csv");
  REQUIRE(runs.size() == 7);
  CHECK(runs[0].tp == 8);
  CHECK(runs[0].attention_dp == 1);
  CHECK(runs[0].moe_tp == 1);
  CHECK(runs[0].moe_ep == 8);
  CHECK(runs[0].layout_multiplied);
  CHECK(layout_gpus(runs[0]) == 8);
  CHECK(runs[1].tp == 1);
  CHECK(runs[1].attention_dp == 8);
  CHECK(runs[1].layout_multiplied);
  CHECK(layout_gpus(runs[2]) == 4);
  CHECK(runs[2].layout_multiplied);
  for (std::size_t i = 3; i < 6; ++i)
    CHECK_FALSE(runs[i].layout_multiplied);
  CHECK(runs[3].moe_tp == 2);
  CHECK(layout_gpus(runs[3]) == 8);
  CHECK(layout_gpus(runs[4]) == 16);
  CHECK(layout_gpus(runs[5]) == 16);
  CHECK(runs[6].layout_multiplied);
  CHECK(runs[6].tp == 1);
  CHECK(runs[6].attention_dp == 8);
  CHECK(layout_gpus(runs[6]) == 8);
}

TEST_CASE("repeatability: how far apart distinct measurements of identical inputs lie", "[serving]") {
  // Group A: three measurements of one input, TTFT 0.20 / 0.22 / 0.25 s (max/min 1.25, not apart),
  // TPOT 4.7 / 4.9 / 9.8 ms (2.085). Group B: another client count, two measurements, TTFT 1.0 /
  // 1.1 s (1.10), TPOT 10 / 10.5 ms (1.05). A third input measured once is no group.
  std::vector<ServingRun> runs;
  const auto add = [&runs](std::int64_t clients, double ttft_s, double tpot_s) {
    ServingRun r = dsr1_c64(8, 1);
    r.concurrency = clients;
    r.ttft_s = ttft_s;
    r.tpot_s = tpot_s;
    runs.push_back(r);
  };
  add(4, 0.20, 0.0047);
  add(4, 0.22, 0.0049);
  add(4, 0.25, 0.0098);
  add(32, 1.0, 0.010);
  add(32, 1.1, 0.0105);
  add(64, 2.0, 0.020);
  std::vector<const ServingRun*> rows;
  rows.reserve(runs.size());
  for (const ServingRun& r : runs)
    rows.push_back(&r);
  const RepeatSpread x = repeat_spread(rows);
  CHECK(x.groups == 2);
  CHECK(x.rows == 5);
  CHECK(x.ttft_median_ratio == Approx((1.25 + 1.10) / 2.0));            // 1.175
  CHECK(x.tpot_median_ratio == Approx((0.0098 / 0.0047 + 1.05) / 2.0)); // 1.568
  CHECK(x.ttft_apart_pct == Approx(0.0));
  CHECK(x.tpot_apart_pct == Approx(50.0));
  runs[2].decode.workers = 3; // another worker count is another input: group A keeps two rows
  CHECK(repeat_spread(rows).rows == 4);
}
