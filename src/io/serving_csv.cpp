#include "serving_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "json_reader.hpp"
#include "rightsize/error.hpp"

namespace rightsize::io {
namespace {

std::vector<std::string_view> split_line(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

struct Row {
  const std::vector<std::string_view>& cells;
  const std::vector<std::string_view>& header;
  const std::string& where;

  [[nodiscard]] std::size_t index(std::string_view name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw Error(ErrorKind::input, where, "", fmt::format("missing column \"{}\"", name));
  }
  [[nodiscard]] bool has(std::string_view name) const {
    return std::find(header.begin(), header.end(), name) != header.end();
  }
  [[nodiscard]] std::string text(std::string_view name) const { return std::string(cells[index(name)]); }
  // Integer column; empty = `fallback` (layout columns are empty where upstream left them out).
  [[nodiscard]] std::int64_t integer(std::string_view name, std::int64_t fallback, std::int64_t lo,
                                     std::int64_t hi) const {
    const std::string_view v = cells[index(name)];
    if (v.empty()) return fallback;
    std::int64_t out = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) {
      throw Error(ErrorKind::input, where, "",
                  fmt::format("column \"{}\": expected an integer {} to {}, got \"{}\"", name, lo, hi, v));
    }
    return out;
  }
  [[nodiscard]] double positive(std::string_view name) const {
    const std::string_view v = cells[index(name)];
    double out = 0.0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size() || !(out > 0.0) || !std::isfinite(out)) {
      throw Error(ErrorKind::input, where, "",
                  fmt::format("column \"{}\": expected a positive number, got \"{}\"", name, v));
    }
    return out;
  }
};

} // namespace

std::vector<ServingRun> parse_serving_csv(const std::string& text, const std::string& source) {
  std::vector<ServingRun> runs;
  std::vector<std::string_view> header;
  std::size_t start = 0;
  int line_no = 0;
  const std::string_view all(text);
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string_view> cells = split_line(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    const std::string where = fmt::format("{}:{}", source, line_no);
    if (cells.size() != header.size()) {
      throw Error(ErrorKind::input, where, "",
                  fmt::format("expected {} comma-separated cells, got {}", header.size(), cells.size()));
    }
    const Row r{cells, header, where};
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
  }
  if (header.empty())
    throw Error(ErrorKind::input, source, "", "expected a CSV header line, got an empty file");
  return runs;
}

std::vector<ServingRun> load_serving_csv(const std::string& path) {
  return parse_serving_csv(read_text_file(path), path);
}

} // namespace rightsize::io
