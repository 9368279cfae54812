#include "io/runs/serving_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "io/json/json_reader.hpp"
#include "io/runs/csv_table.hpp"
#include "rightsize/error.hpp"

namespace rightsize::io {

std::vector<ServingRun> parse_serving_csv(const std::string& text, const std::string& source) {
  std::vector<ServingRun> runs;
  parse_csv(
      text, source, [](const std::vector<std::string_view>&) {},
      [&runs](const CsvRow& r) {
        // Upstream writes 0 for a layout dimension that is not used: read it as 1.
        const auto layout = [&r](std::string_view column) {
          return static_cast<int>(std::max<std::int64_t>(1, r.integer(column, 1, 0, 1024)));
        };
        ServingRun run;
        run.id = r.text("id");
        run.engine = r.text("engine");
        run.engine_version = r.has("engine_version") ? r.text("engine_version") : std::string();
        run.gpu_id = r.text("gpu");
        run.model = r.text("model");
        run.preset = r.text("rightsize_preset");
        run.precision = r.text("precision");
        run.gemm_quant = r.text("gemm_quant");
        run.moe_quant = r.text("moe_quant");
        run.mode = r.text("mode");
        run.input_tokens = r.integer("input_tokens", 0, 1, 10'000'000);
        run.output_tokens = r.integer("output_tokens", 0, 1, 10'000'000);
        run.concurrency = r.integer("concurrency", 0, 1, 1'000'000);
        run.batch_size = r.has("batch_size") ? r.integer("batch_size", 0, 1, 1'000'000) : 0;
        run.tp = layout("tp");
        run.pp = layout("pp");
        run.attention_dp = layout("attention_dp");
        run.moe_tp = layout("moe_tp");
        run.moe_ep = layout("moe_ep");
        // The file writes some runs' degrees multiplied: the run id `…_tp8_ep8_937` (8 GPUs, attention
        // TP or DP 8, experts over EP 8) as tp or attention_dp 64 = moe_tp 8 × moe_ep 8, where other
        // rows write the same id as tp 8, moe_ep 8, and the TP 64 rows measure what the TP 8 rows of the
        // same workload measure (cfg181 / cfg83 TPOT ratio 0.997 over 14 workloads). A replica wider
        // than one 8-GPU node whose width is exactly moe_tp × moe_ep with both above 1 is read as
        // moe_ep GPUs with MoE EP moe_ep (docs/accuracy.md "Multiplied layouts"); moe_tp × moe_ep
        // inside one node (TensorRT-LLM decode pools with moe_tp 2 × moe_ep 4 on 8 GPUs) is read as is.
        const int width = run.tp * run.attention_dp;
        if (run.moe_tp > 1 && run.moe_ep > 1 && width == run.moe_tp * run.moe_ep && width > 8) {
          if (run.attention_dp > 1) {
            run.attention_dp = run.moe_ep;
            run.tp = 1;
          } else {
            run.tp = run.moe_ep;
          }
          run.moe_tp = 1;
          run.layout_multiplied = true;
        }
        // Disaggregated runs: each pool's layout; `*_workers` empty = not given (0).
        for (const char* pool : {"prefill", "decode"}) {
          if (!r.has(std::string(pool) + "_tp")) continue;
          ServingPool& out = pool[0] == 'p' ? run.prefill : run.decode;
          const std::string pre = std::string(pool) + "_";
          out.tp = layout(pre + "tp");
          out.pp = layout(pre + "pp");
          out.attention_dp = layout(pre + "attention_dp");
          out.moe_tp = layout(pre + "moe_tp");
          out.moe_ep = layout(pre + "moe_ep");
          out.workers = static_cast<int>(r.integer(pre + "workers", 0, 1, 4096));
        }
        run.ttft_s = r.positive("ttft_ms") / 1e3;
        run.tpot_s = r.positive("tpot_ms") / 1e3;
        runs.push_back(std::move(run));
      });
  return runs;
}

std::vector<ServingRun> load_serving_csv(const std::string& path) {
  return parse_serving_csv(read_text_file(path), path);
}

} // namespace rightsize::io
