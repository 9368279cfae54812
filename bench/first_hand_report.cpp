// First-hand measurements on one H200 against the estimator's physics (docs/accuracy-first-hand.md).
// tests/validation/first-hand/*.jsonl are the raw output of bench/device/first_hand.py: random-weight
// models from the presets' configs (bf16; Llama-2-70B in fp8), run by plain PyTorch (no engine). Each
// figure is set against the estimator's own terms for H200-SXM with the shipped calibration, through
// a "bare" engine: vLLM's profile with every fixed time (step, layer, eager-prefill) zero and no
// chunking, so what is left is bytes, FLOPs and their rates. The script's own kernel chain costs a
// fixed time per forward pass that no engine shares; it is read once per model at its anchor (its
// decode step at the smallest batch, then the smallest context) and added to every other row of that
// model.
//
// Prints markdown; `--write` replaces the tables in docs/accuracy-first-hand.md between their
// markers, `--check` fails when they are out of date (CTest). Nothing here is fitted to these rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "accuracy/cv.hpp"
#include "accuracy/doc_markers.hpp"
#include "core/estimate/inference_detail.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/calibration.hpp" // signed_error_pct()
#include "rightsize/engine_profile.hpp"
#include "rightsize/pricing.hpp" // median()
#include "rightsize/training.hpp"

namespace rs = rightsize;
namespace acc = rightsize::bench::accuracy;
using json = nlohmann::json;

namespace {

const std::string k_gpu = "H200-SXM";

// Every row of every run file, in file-name order, each tagged with its file.
std::vector<json> load_rows() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(acc::k_root + "/tests/validation/first-hand"))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<json> rows;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      json r = json::parse(line);
      r["file"] = f.filename().string();
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

// The estimator's view of one model on the H200 through the bare engine.
struct Bare {
  rs::PreparedModel pm;
  rs::InferenceWorkload w;
  rs::Deployment dep;
  rs::EngineConfig engine;
  const rs::Gpu* gpu = nullptr;
  rs::InferenceEstimate est;
  rs::detail::Setup s{};
};

// The preset `id` prepared at `precision`: "bf16", or "fp8" (weights and activations fp8 e4m3, KV
// bf16), as the script ran them. The presets are read once.
rs::PreparedModel prepared(const std::string& id, const std::string& precision) {
  static const std::vector<rs::io::Preset> presets = rs::io::load_presets(acc::k_models_dir);
  rs::Precision p;
  if (precision == "fp8") p.weights = p.activations = rs::NumberFormat::fp8;
  for (const rs::io::Preset& preset : presets)
    if (preset.id == id) return rs::prepare_model(preset.model, p);
  throw std::runtime_error("no preset " + id);
}

std::unique_ptr<Bare> bare(const std::string& preset, const std::string& precision,
                           const rs::app::LoadedCatalog& catalog) {
  auto b = std::make_unique<Bare>();
  b->pm = prepared(preset, precision);
  b->gpu = rs::io::find_gpu(catalog.catalog, k_gpu);
  if (b->gpu == nullptr) throw std::runtime_error("no GPU " + k_gpu + " in the catalog");
  b->engine = rs::engine_for_gpu(catalog.engines.of(rs::EngineKind::vllm), *b->gpu, 1);
  b->engine.step_overhead_s = b->engine.layer_overhead_s = b->engine.moe_layer_overhead_s = 0.0;
  b->engine.prefill_layer_overhead_s = b->engine.prefill_expert_overhead_s = 0.0;
  b->engine.indexer_layer_overhead_s = 0.0;
  b->engine.max_batched_tokens = std::int64_t{1} << 30;
  b->w.concurrency = 1;
  const rs::detail::EstimateInputs in{b->pm, b->w, *b->gpu, b->dep, b->engine, b->gpu->efficiency, 1.0};
  b->s = rs::detail::make_setup(in, b->est);
  return b;
}

// A decode step of `batch` sequences at context `ctx`: the shipped structure (decode_time: the GEMMs,
// then attention over the KV, each its own roofline) and the variant under test (the same with the
// GEMMs at the M/(M + M½) shape prefill uses).
struct DecodeTerms {
  double shipped_s = 0.0, phases_s = 0.0;
};

DecodeTerms decode_terms(const Bare& b, double batch, double ctx) {
  const rs::detail::Setup& s = b.s;
  const rs::detail::PhaseTime t = rs::detail::decode_time(s, batch, ctx);
  const double expert_flops = batch * b.pm.expert_flops_per_token;
  const rs::detail::GemmShape g = rs::detail::gemm_shape(s, batch, expert_flops > 0.0);
  const double gemm_s = (batch * b.pm.mm_flops_per_token - expert_flops) / (s.compute_flops_per_s * g.dense) +
                        expert_flops / (s.compute_flops_per_s * g.expert);
  return {t.total_s, std::max(t.gemm_memory_s(), gemm_s) +
                         std::max(t.attention_memory_s, t.attention_compute_s) + t.routing_s};
}

struct Tally {
  std::vector<double> shipped, phases;
};

std::string summary_line(const std::string& what, const Tally& t) {
  std::vector<double> a, b;
  for (const double e : t.shipped)
    a.push_back(std::fabs(e));
  for (const double e : t.phases)
    b.push_back(std::fabs(e));
  if (a.empty() || b.empty()) return fmt::format("| {} | 0 | | | | |\n", what);
  return fmt::format("| {} | {} | {:.1f} % | {:.1f} % | {:.1f} % | {:.1f} % |\n", what, a.size(),
                     rs::median(a), *std::max_element(a.begin(), a.end()), rs::median(b),
                     *std::max_element(b.begin(), b.end()));
}

bool tiny(const json& r) {
  return r.value("model", "").rfind("tiny", 0) == 0;
}

std::string key_of(const json& r) {
  return r.value("model", "") + " " + r.value("precision", "bf16");
}

// Each measured model through the bare engine, and the script's own fixed time per forward pass:
// measured − physics at the model's anchor, its decode step at the smallest batch, then context.
struct Models {
  std::map<std::string, std::unique_ptr<Bare>> bare;
  std::map<std::string, DecodeTerms> fixed;
  std::map<std::string, std::pair<double, double>> anchor; // (batch, context)
};

Models models_of(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog) {
  Models m;
  for (const json& r : rows) {
    if (r.at("kind") != "decode" || tiny(r)) continue;
    const std::pair<double, double> at{r.at("batch"), r.at("context")};
    const std::string k = key_of(r);
    if (m.anchor.count(k) == 0 || at < m.anchor[k]) m.anchor[k] = at;
  }
  for (const json& r : rows) {
    const std::string k = key_of(r);
    if (r.at("kind") != "decode" || tiny(r) ||
        m.anchor[k] != std::pair<double, double>{r.at("batch"), r.at("context")})
      continue;
    m.bare[k] = bare(r.at("model"), r.value("precision", "bf16"), catalog);
    const DecodeTerms p = decode_terms(*m.bare[k], m.anchor[k].first, m.anchor[k].second);
    const double t = r.at("time_s");
    m.fixed[k] = {t - p.shipped_s, t - p.phases_s};
  }
  return m;
}

std::string decode_table(const std::vector<json>& rows, const Models& models, Tally& dense, Tally& moe) {
  std::string s =
      "| model | weights | batch | context | measured | shipped structure | error | phase sum | error |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const json& r : rows) {
    const std::string k = key_of(r);
    if (r.at("kind") != "decode" || models.bare.count(k) == 0) continue;
    const double batch = r.at("batch"), ctx = r.at("context"), measured = r.at("time_s");
    if (models.anchor.at(k) == std::pair<double, double>{batch, ctx}) continue;
    const Bare& b = *models.bare.at(k);
    const DecodeTerms p = decode_terms(b, batch, ctx);
    const DecodeTerms& fixed = models.fixed.at(k);
    const double shipped = p.shipped_s + fixed.shipped_s, phases = p.phases_s + fixed.phases_s;
    Tally& t = b.pm.model.moe.experts > 0 ? moe : dense;
    t.shipped.push_back(rs::signed_error_pct(shipped, measured));
    t.phases.push_back(rs::signed_error_pct(phases, measured));
    s += fmt::format("| {} | {} | {} | {} | {:.2f} ms | {:.2f} ms | {:+.1f} % | {:.2f} ms | {:+.1f} % |\n",
                     r.at("model").get<std::string>(), r.value("precision", "bf16"), batch, ctx,
                     measured * 1e3, shipped * 1e3, t.shipped.back(), phases * 1e3, t.phases.back());
  }
  return s;
}

std::string prompt_table(const std::vector<json>& rows, const Models& models, Tally& prompt) {
  std::string s = "| model | weights | prompt tokens | measured | timed as | estimator | error |\n"
                  "|---|---|---:|---:|---|---:|---:|\n";
  for (const json& r : rows) {
    const std::string k = key_of(r);
    if (r.at("kind") != "prefill" || models.bare.count(k) == 0) continue;
    const double n = r.at("tokens");
    const bool graph = r.contains("graph_time_s");
    const double time = graph ? r.at("graph_time_s").get<double>() : r.at("eager_time_s").get<double>();
    const double predicted =
        rs::detail::prefill_time(models.bare.at(k)->s, n, n).total_s + models.fixed.at(k).shipped_s;
    prompt.shipped.push_back(rs::signed_error_pct(predicted, time));
    prompt.phases.push_back(prompt.shipped.back());
    s += fmt::format("| {} | {} | {} | {:.1f} ms | {} | {:.1f} ms | {:+.1f} % |\n",
                     r.at("model").get<std::string>(), r.value("precision", "bf16"), n, time * 1e3,
                     graph ? "CUDA graph" : "eager", predicted * 1e3, prompt.shipped.back());
  }
  return s;
}

// A decode step that carries a prompt chunk (chunked prefill, methodology §3.1): what the chunk
// adds to the step, measured (step with the chunk − step without) against mixed_prefill_s.
std::string mixed_table(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog, Tally& mixed) {
  std::map<std::string, double> alone; // model|batch|context → the step without a chunk
  const auto where = [](const json& r) {
    return fmt::format("{}|{}|{}", r.at("model").get<std::string>(), r.at("batch").get<int>(),
                       r.at("context").get<int>());
  };
  for (const json& r : rows)
    if (r.at("kind") == "mixed" && r.at("prompt_tokens") == 0) alone[where(r)] = r.at("time_s");
  std::map<std::string, std::unique_ptr<Bare>> setups;
  std::string s =
      "| model | decode batch | context | prompt chunk | step without | step with | added: measured | "
      "added: estimator | error |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const json& r : rows) {
    if (r.at("kind") != "mixed" || r.at("prompt_tokens") == 0 || alone.count(where(r)) == 0) continue;
    const std::string m = r.at("model");
    if (setups.count(m) == 0) setups[m] = bare(m, "bf16", catalog);
    const double batch = r.at("batch"), ctx = r.at("context"), n = r.at("prompt_tokens");
    const double without = alone[where(r)], with = r.at("time_s");
    const rs::detail::Setup& st = setups[m]->s;
    const double added =
        rs::detail::mixed_prefill_s(st, rs::detail::decode_time(st, batch, ctx), batch, n, batch + n, 0.0);
    mixed.shipped.push_back(rs::signed_error_pct(added, with - without));
    mixed.phases.push_back(mixed.shipped.back());
    s += fmt::format("| {} | {} | {} | {} | {:.2f} ms | {:.2f} ms | {:.2f} ms | {:.2f} ms | {:+.1f} % |\n", m,
                     batch, ctx, n, without * 1e3, with * 1e3, (with - without) * 1e3, added * 1e3,
                     mixed.shipped.back());
  }
  return s;
}

std::string forward_tables(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog) {
  const Models models = models_of(rows, catalog);
  Tally dense, moe, prompt, mixed;
  const std::string dec = decode_table(rows, models, dense, moe);
  const std::string pre = prompt_table(rows, models, prompt);
  const std::string mix = mixed_table(rows, catalog, mixed);
  std::string s = "### Forward passes: summary\n\n"
                  "| rows | count | shipped: median abs | shipped: max abs | phase sum: median abs | "
                  "phase sum: max abs |\n|---|---:|---:|---:|---:|---:|\n";
  s += summary_line("decode steps, dense", dense) + summary_line("decode steps, MoE", moe) +
       summary_line("prompts (one structure)", prompt) +
       summary_line("prompt chunks in a decode step", mixed);
  return s + "\n### Decode steps\n\n" + dec + "\n### Prompts\n\n" + pre +
         "\n### Prompt chunks riding in a decode step\n\n" + mix;
}

// Parameters of the random-weight models as PyTorch allocated them, against the preset's count.
// `mismatches` counts the models whose count differs (a --check failure: counting is exact arithmetic).
std::string weights_table(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog,
                          int& mismatches) {
  std::string s = "| model | parameters allocated | preset's count | difference |\n|---|---:|---:|---:|\n";
  for (const json& r : rows) {
    if (r.at("kind") != "weights" || r.at("model").get<std::string>().rfind("tiny", 0) == 0) continue;
    const auto b = bare(r.at("model"), r.value("precision", "bf16"), catalog);
    const auto measured = r.at("params").get<std::int64_t>();
    s += fmt::format("| {} | {} | {} | {} |\n", r.at("model").get<std::string>(), measured,
                     b->pm.params.total, measured - b->pm.params.total);
    if (measured != b->pm.params.total) ++mismatches;
  }
  return s;
}

// Routed experts' grouped GEMMs alone: time = fixed + bytes / rate, fitted by least squares over the
// counts of active experts of one shape; against the rate the estimator reads experts at.
std::string expert_table(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog) {
  const auto b = bare("qwen3-30b-a3b", "bf16", catalog);
  const double shipped_rate = b->s.bandwidth_bytes_per_s * b->s.expert_read;
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> groups; // (bytes, s)
  std::map<std::pair<std::string, int>, int> most;                                      // active experts
  for (const json& r : rows)
    if (r.at("kind") == "experts") {
      const std::pair<std::string, int> key{r.at("model"), r.at("rows_per_expert")};
      groups[key].emplace_back(r.at("bytes"), r.at("time_s"));
      most[key] = std::max(most[key], r.at("active").get<int>());
    }
  std::string s =
      fmt::format("The estimator reads a batch's distinct experts at BW·η_m·expert_read = {:.2f} TB/s "
                  "on the H200 (η_m {:.4f}, expert_read {:.2f}, shipped calibration).\n\n",
                  shipped_rate / 1e12, b->gpu->efficiency.decode_bandwidth, b->s.expert_read);
  s += "| expert shape of | rows per expert | active experts | read rate (fit) | fixed per call (fit) | "
       "rate at the most experts | estimator's time at the most experts "
       "|\n|---|---:|---|---:|---:|---:|---:|\n";
  for (const auto& [key, pts] : groups) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : pts) {
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double n = static_cast<double>(pts.size());
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double fixed = (sy - slope * sx) / n;
    const auto& last = pts.back();
    s += fmt::format("| {} | {} | 1–{} | {:.2f} TB/s | {:.0f} µs | {:.2f} TB/s | {:+.0f} % |\n", key.first,
                     key.second, most[key], 1.0 / slope / 1e12, fixed * 1e6, last.first / last.second / 1e12,
                     rs::signed_error_pct(last.first / shipped_rate, last.second));
  }
  return s;
}

// Llama-3.1-8B's GEMMs at M rows (`kind` gemm: bf16, gemm_fp8: fp8 e4m3): measured against
// max(bytes / (BW·η_m), FLOPs / (F·η_f·M/(M + M½))), F the dtype's dense peak.
std::string gemm_table(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog,
                       const std::string& kind) {
  const bool fp8 = kind == "gemm_fp8";
  const auto b = bare("llama-3.1-8b", fp8 ? "fp8" : "bf16", catalog);
  std::map<int, std::vector<double>> ratio, tflops;
  for (const json& r : rows) {
    if (r.at("kind") != kind) continue;
    const double m = r.at("m"), k = r.at("k"), n = r.at("n"), t = r.at("time_s");
    const double flops = 2.0 * m * k * n, bytes = (fp8 ? 1.0 : 2.0) * k * n;
    const double shape = rs::detail::gemm_shape(b->s, m, false).dense;
    const double predicted =
        std::max(bytes / b->s.bandwidth_bytes_per_s, flops / (b->s.compute_flops_per_s * shape));
    ratio[static_cast<int>(m)].push_back(predicted / t);
    tflops[static_cast<int>(m)].push_back(flops / t / 1e12);
  }
  std::string s =
      fmt::format("M½ = {:.0f} rows (vLLM profile), F·η_f = {:.0f} TFLOP/s, BW·η_m = {:.2f} TB/s.\n\n"
                  "| rows M | measured TFLOP/s per shape | predicted / measured time: median | min | max "
                  "|\n|---:|---|---:|---:|---:|\n",
                  b->engine.gemm_half_efficiency_tokens, b->s.compute_flops_per_s / 1e12,
                  b->s.bandwidth_bytes_per_s / 1e12);
  for (auto& [m, v] : ratio) {
    std::vector<double>& tf = tflops[m];
    std::string list;
    for (const double x : tf)
      list += fmt::format("{}{:.0f}", list.empty() ? "" : ", ", x);
    s += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f} |\n", m, list, rs::median(v),
                     *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  }
  return s;
}

// Training steps of HF transformers' Llama (FP32 weights, bf16 autocast, fused AdamW, one GPU)
// against estimate_training for the same run: ZeRO 0, one micro-batch per step, framework
// transformers, FP32 gradients (FP32 weights and gradients, Adam's two moments and the bf16 weight
// copies autocast keeps for backward: 18 B per parameter, the estimator's 2 + 4 + 12). The summary
// also gives the generic framework's errors (its loss counts 6 B per logit, not 12).
std::string training_table(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog) {
  const rs::Gpu* gpu = rs::io::find_gpu(catalog.catalog, k_gpu);
  std::string s = "| model | micro-batch × sequence | recompute | allocated: measured | estimator | error | "
                  "reserved: measured | estimator | error | tokens/s: measured | estimator | error |\n"
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<double> alloc, reserved, speed, alloc_generic, reserved_generic;
  for (const json& r : rows) {
    if (r.at("kind") != "train" || tiny(r) || r.contains("error")) continue;
    const rs::PreparedModel pm = prepared(r.at("model"), "bf16");
    rs::TrainingWorkload w;
    w.seq_len = r.at("seq_len");
    w.global_batch = w.micro_batch = r.at("batch");
    w.zero_stage = 0;
    rs::TrainingLayout l;
    l.micro_batch = w.micro_batch;
    l.recompute = r.at("recompute") == "full" ? rs::Recompute::full : rs::Recompute::none;
    w.recompute = l.recompute;
    rs::TrainingConfig cfg;
    cfg.fp32_gradients = true;
    const rs::TrainingEstimate g = rs::estimate_training(pm, w, *gpu, l, cfg, rs::GpuPrice{});
    w.framework = rs::TrainingFramework::transformers;
    const rs::TrainingEstimate e = rs::estimate_training(pm, w, *gpu, l, cfg, rs::GpuPrice{});
    const std::string head = fmt::format("| {} | {} × {} | {} |", r.at("model").get<std::string>(),
                                         w.micro_batch, w.seq_len, r.at("recompute").get<std::string>());
    if (r.value("oom", false)) {
      s +=
          fmt::format("{} out of memory | {:.1f} GB | {} | | {:.1f} GB of {:.1f} usable | | | | |\n", head,
                      e.memory_allocated_bytes / 1e9, e.memory.fits ? "says it fits" : "says it does not fit",
                      e.memory_reserved_bytes / 1e9, e.memory.usable_per_gpu_bytes / 1e9);
      continue;
    }
    const double ma = r.at("peak_allocated_bytes"), mr = r.at("peak_reserved_bytes"),
                 tps = r.at("tokens_per_s");
    alloc.push_back(rs::signed_error_pct(e.memory_allocated_bytes, ma));
    alloc_generic.push_back(rs::signed_error_pct(g.memory_allocated_bytes, ma));
    reserved_generic.push_back(rs::signed_error_pct(g.memory_reserved_bytes, mr));
    reserved.push_back(rs::signed_error_pct(e.memory_reserved_bytes, mr));
    speed.push_back(rs::signed_error_pct(e.tokens_per_s, tps));
    s += fmt::format(
        "{} {:.1f} GB | {:.1f} GB | {:+.1f} % | {:.1f} GB | {:.1f} GB | {:+.1f} % | {:.0f} | {:.0f} | "
        "{:+.1f} % |\n",
        head, ma / 1e9, e.memory_allocated_bytes / 1e9, alloc.back(), mr / 1e9, e.memory_reserved_bytes / 1e9,
        reserved.back(), tps, e.tokens_per_s, speed.back());
  }
  const auto med = [](std::vector<double> v) {
    for (double& x : v)
      x = std::fabs(x);
    return v.empty() ? 0.0 : rs::median(v);
  };
  return s + fmt::format("\nMedian |error| over {} runs: allocated {:.1f} %, reserved {:.1f} %, tokens/s "
                         "{:.1f} %. With the "
                         "generic framework's loss (6 B per logit): allocated {:.1f} %, reserved {:.1f} %.\n",
                         alloc.size(), med(alloc), med(reserved), med(speed), med(alloc_generic),
                         med(reserved_generic));
}

std::string ceilings(const std::vector<json>& rows, const rs::app::LoadedCatalog& catalog) {
  const rs::Gpu* gpu = rs::io::find_gpu(catalog.catalog, k_gpu);
  std::string s;
  for (const json& r : rows) {
    if (r.at("kind") == "env")
      s += fmt::format("- `{}`: {}, PyTorch {}, CUDA {}; nvidia-smi: {}\n", r.at("file").get<std::string>(),
                       r.at("date").get<std::string>(), r.at("torch").get<std::string>(),
                       r.at("cuda").get<std::string>(), r.at("smi").get<std::string>());
    if (r.at("kind") == "copy")
      s += fmt::format(
          "- device-to-device copy: {:.0f} GB/s counting bytes read and written (catalog: {:.0f} GB/s)\n",
          r.at("gb_per_s").get<double>(), gpu->memory_bandwidth_gb_per_s);
    if (r.at("kind") == "matmul")
      s += fmt::format("- 8192³ bf16 matrix product: {:.0f} TFLOP/s (catalog dense bf16: {:.0f})\n",
                       r.at("tflop_per_s").get<double>(), gpu->tflops(rs::MathDtype::bf16));
  }
  return s;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!mode.empty() && mode != "--write" && mode != "--check") {
    std::fprintf(stderr, "usage: first_hand_report [--write | --check]\n");
    return 2;
  }
  try {
    const std::vector<json> rows = load_rows();
    const rs::app::LoadedCatalog catalog = acc::shipped_catalog(false);
    int mismatches = 0;
    const std::string out = "### Runs\n\n" + ceilings(rows, catalog) + "\n### Parameters\n\n" +
                            weights_table(rows, catalog, mismatches) + "\n" + forward_tables(rows, catalog) +
                            "\n### GEMMs of Llama-3.1-8B, bf16\n\n" + gemm_table(rows, catalog, "gemm") +
                            "\n### GEMMs of Llama-3.1-8B, fp8\n\n" + gemm_table(rows, catalog, "gemm_fp8") +
                            "\n### Routed experts' grouped GEMMs\n\n" + expert_table(rows, catalog) +
                            "\n### Training steps (Hugging Face transformers)\n\n" +
                            training_table(rows, catalog);
    if (mode != "--check") std::fputs(out.c_str(), stdout);
    const std::string current =
        acc::between_markers(acc::k_root + "/docs/accuracy-first-hand.md",
                             "<!-- first-hand:begin (bench/first_hand_report --write) -->\n",
                             "<!-- first-hand:end -->", out, mode == "--write");
    if (mode == "--check" && mismatches > 0) {
      std::fprintf(stderr,
                   "first_hand_report: %d model(s) whose parameter count differs from what PyTorch "
                   "allocated (docs/accuracy-first-hand.md, Parameters)\n",
                   mismatches);
      return 1;
    }
    if (mode == "--check" && current != out) {
      std::fprintf(stderr, "docs/accuracy-first-hand.md: the tables differ from what the estimator gives "
                           "now; run ./build/bench/first_hand_report --write and read the diff\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first_hand_report: %s\n", e.what());
    return 1;
  }
  return 0;
}
