#include "serving_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "csv_table.hpp"
#include "json_reader.hpp"
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
