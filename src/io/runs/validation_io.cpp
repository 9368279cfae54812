// Validation cases, the stand-in GPU table, calibration and baseline files (tests/validation/README.md).
#include "io/runs/validation_io.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "io/json/json_reader.hpp"
#include "io/json/json_text.hpp"
#include "io/spec/length_io.hpp"
#include "io/spec/model_io.hpp"
#include "rightsize/units.hpp"

namespace rightsize::io {
namespace {

constexpr std::int64_t k_max_count = 1'000'000'000'000;
constexpr std::int64_t k_max_case_tokens = 10'000'000; ///< one request's prompt or output

NumberFormat read_format(const JsonReader& r) {
  const std::string name = r.as_string();
  const auto f = parse_number_format(name);
  if (!f) r.fail("unknown number format \"" + name + "\"");
  return *f;
}

std::int64_t length_or_zero(const JsonReader& r, std::string_view key, LengthSpread& spread) {
  const auto v = r.find(key);
  if (!v) return 0;
  return v->is_object() ? read_length(*v, spread, k_max_case_tokens) : v->as_int(0, k_max_case_tokens);
}

std::int64_t int_or(const JsonReader& r, std::string_view key, std::int64_t fallback) {
  const auto v = r.find(key);
  return v ? v->as_int(0, k_max_count) : fallback;
}

bool bool_or(const JsonReader& r, std::string_view key, bool fallback) {
  const auto v = r.find(key);
  return v ? v->as_bool() : fallback;
}

ModelSpec read_model(const JsonReader& r) {
  ModelSpec m;
  m.name = r.at("name").as_string();
  m.layers = r.at("layers").as_int(1, 100000);
  m.hidden_size = r.at("hidden").as_int(1, k_max_count);
  m.heads = r.at("heads").as_int(1, 100000);
  m.kv_heads = r.at("kv_heads").as_int(1, 100000);
  m.head_dim = r.at("head_dim").as_int(1, 100000);
  m.ffn_size = r.at("ffn").as_int(1, k_max_count);
  m.ffn_gated = r.at("gated").as_bool();
  // An image model (DiT) has no vocabulary; its image pipeline gives tokens and passes per image.
  const bool dit = r.find("kind") && r.at("kind").as_choice({"decoder", "dit"}) == "dit";
  m.kind = dit ? ModelKind::dit : ModelKind::decoder;
  m.vocab_size = dit ? int_or(r, "vocab", 0) : r.at("vocab").as_int(1, k_max_count);
  if (dit) {
    const JsonReader im = r.at("image");
    ImagePipelineSpec& p = m.image;
    p.pixels_per_token_side = im.at("pixels_per_token_side").as_int(1, 1024);
    p.text_tokens = int_or(im, "text_tokens", 0);
    p.width_px = im.at("width_px").as_int(1, 65536);
    p.height_px = im.at("height_px").as_int(1, 65536);
    p.steps = im.at("steps").as_int(1, 10000);
    p.cfg_passes = int_or(im, "cfg_passes", 1);
    if (auto v = im.find("text_encoder_params")) p.text_encoder_params = v->as_number(0.0, 1e13);
    if (auto v = im.find("vae_decode_flops_per_pixel"))
      p.vae_decode_flops_per_pixel = v->as_number(0.0, 1e12);
    p.rotary_qk = bool_or(im, "rotary_qk", false);
    p.fused = bool_or(im, "fused", false);
    read_image_denoiser(im, p);
    const ImageItem item = image_item(p);
    m.tokens_per_item = item.tokens;
    m.passes_per_item = item.passes;
    m.keep_embeddings_16bit = false;
    if (auto v = r.find("params")) m.params_override = static_cast<std::int64_t>(v->as_number(1.0, 1e13));
  }
  m.tied_embeddings = r.at("tied").as_bool();
  m.norm = r.at("norm").as_choice({"rms", "layer"}) == "rms" ? NormKind::rms : NormKind::layer;
  m.qkv_bias = bool_or(r, "qkv_bias", false);
  m.o_bias = bool_or(r, "o_bias", false);
  m.mlp_bias = bool_or(r, "mlp_bias", false);
  m.qk_norm = bool_or(r, "qk_norm", false);
  m.attention.kind = m.kv_heads == m.heads ? AttentionKind::mha
                                           : (m.kv_heads == 1 ? AttentionKind::mqa : AttentionKind::gqa);
  if (const auto moe = r.find("moe")) {
    m.moe.experts = moe->at("experts").as_int(1, 100000);
    m.moe.experts_per_token = moe->at("top_k").as_int(1, 100000);
    m.moe.expert_ffn_size = moe->at("expert_ffn").as_int(1, k_max_count);
  }
  return m;
}

// Plausibility bounds on a training case (issue 42), as the training CSV and torchtitan readers
// apply them: each data-parallel rank trains at least one sequence per step, and a GPU holds at
// most 2,000 GiB (the catalog's bound on one GPU's memory).
void check_training_plausible(const JsonReader& r, const ValidationCase& c) {
  const bool training = c.kind == FigureKind::training_throughput || c.kind == FigureKind::training_memory;
  const std::int64_t dp = c.deployment.gpus / (c.deployment.tp * c.deployment.pp);
  if (training && c.training_global_batch > 0 && dp > c.training_global_batch) {
    r.at("training")
        .at("global_batch")
        .fail(fmt::format("expected at least the {} data-parallel ranks (gpus / (tp x pp)): each trains at "
                          "least one sequence per step, got {}",
                          dp, c.training_global_batch));
  }
  constexpr double k_max_memory_bytes = 2000.0 * 1024 * 1024 * 1024;
  if (c.kind == FigureKind::training_memory && c.measured > k_max_memory_bytes) {
    r.at("measured")
        .at("value")
        .fail(fmt::format("expected at most 2,000 GiB ({:g} bytes) on one GPU, got {:g}", k_max_memory_bytes,
                          c.measured));
  }
}

// A case's layout: gpus, tp, pp (a multiple of tp x pp) and the expert groups.
Deployment read_deployment(const JsonReader& r) {
  Deployment d;
  d.gpus = static_cast<int>(r.at("gpus").as_int(1, 1'000'000));
  d.tp = static_cast<int>(r.at("tp").as_int(1, 1024));
  // Bounded as tp is: "pp": 0 divided by zero below, a huge one overflowed int (fuzz_runs).
  const auto pp = r.find("pp");
  d.pp = pp ? static_cast<int>(pp->as_int(1, 1024)) : 1;
  if (d.gpus % (d.tp * d.pp) != 0) {
    r.at("gpus").fail("expected a multiple of tp x pp, got " + std::to_string(d.gpus));
  }
  // Expert groups (ATOM TP8+EP8 and the like); the experts are split by TP when absent.
  if (const auto ep = r.find("ep")) {
    d.ep = static_cast<int>(ep->as_int(1, 1024));
    if (d.ep > d.tp)
      ep->fail("expected at most tp (" + std::to_string(d.tp) + "), got " + std::to_string(d.ep));
  }
  return d;
}

// Engine settings the run states ("engine"), as the command line takes them (cli/engine_flags.cpp):
// --max-num-seqs and TensorRT-LLM's --capacity-scheduler-policy.
void read_engine_settings(const JsonReader& engine, ValidationCase& c) {
  if (const auto n = engine.find("max_num_seqs")) c.engine_max_num_seqs = n->as_int(1, 1'000'000);
  if (const auto policy = engine.find("capacity_scheduler_policy")) {
    c.engine_capacity_policy =
        parse_capacity_policy(policy->as_choice({"guaranteed_no_evict", "max_utilization"}));
  }
}

// A training case's published settings (tests/validation/README.md): sequence length, recompute,
// batch sizes, ZeRO stage, context and virtual pipeline, overlap, attention kernel and framework.
void read_training_settings(const JsonReader& r, ValidationCase& c) {
  c.training_seq_len = r.at("training").at("seq_len").as_int(1, k_max_count);
  if (auto rc = r.at("training").find("recompute")) {
    const std::string mode = rc->as_choice({"none", "selective", "full", "per_op"});
    c.training_recompute = mode == "none"        ? Recompute::none
                           : mode == "selective" ? Recompute::selective
                           : mode == "per_op"    ? Recompute::per_op
                                                 : Recompute::full;
  }
  // Optional published settings (tests/validation/README.md).
  const JsonReader t = r.at("training");
  c.training_global_batch = int_or(t, "global_batch", 0);
  c.training_micro_batch = int_or(t, "micro_batch", 0);
  c.training_zero_stage = static_cast<int>(int_or(t, "zero_stage", -1));
  c.training_cp = static_cast<int>(int_or(t, "cp", 1));
  c.training_vp = static_cast<int>(int_or(t, "vp", 1));
  if (auto o = t.find("tp_comm_overlap")) c.training_tp_overlap = o->as_number(0.0, 1.0);
  if (auto ak = t.find("attention_kernel")) {
    c.training_attention_kernel = ak->as_choice({"fused", "materialized"}) == "materialized"
                                      ? AttentionKernel::materialized
                                      : AttentionKernel::fused;
  }
  if (auto f = t.find("framework")) {
    c.training_framework = *parse_training_framework(f->as_choice(training_framework_names()));
  }
}

ValidationCase read_case(const JsonReader& r) {
  ValidationCase c;
  c.id = r.at("id").as_string();
  const JsonReader kind = r.at("kind");
  const auto k = parse_figure_kind(kind.as_string());
  if (!k) kind.fail("unknown kind \"" + kind.as_string() + "\"");
  c.kind = *k;
  c.model = read_model(r.at("model"));
  const JsonReader p = r.at("precision");
  c.precision.weights = read_format(p.at("weights"));
  c.precision.activations = read_format(p.at("activations"));
  c.precision.kv_cache = read_format(p.at("kv_cache"));
  c.gpu_id = r.at("gpu").as_string();
  c.deployment = read_deployment(r);
  if (const auto f = r.find("framework")) c.framework = f->as_string();
  c.workload.concurrency = int_or(r, "concurrency", 0);
  // A length is an integer (0 where a training or image case has none) or, where the source gives the
  // dataset's spread, a distribution read as workload.input_tokens reads it (docs/model-spec.md
  // "Length distributions").
  c.workload.input_tokens = length_or_zero(r, "input_tokens", c.workload.input_spread);
  c.workload.output_tokens = length_or_zero(r, "output_tokens", c.workload.output_spread);
  if (const auto engine = r.find("engine")) read_engine_settings(*engine, c);
  // Open-loop runs (MLPerf Server): Poisson arrivals at the deployment's request rate.
  if (const auto arrival = r.find("arrival")) {
    if (arrival->as_choice({"closed_loop", "poisson"}) == "poisson") {
      c.workload.arrival = Arrival::poisson;
      c.workload.request_rate_per_s = r.at("request_rate_per_s").as_positive(1e9); // whole deployment
    }
  }
  if (c.kind == FigureKind::training_throughput || c.kind == FigureKind::training_memory) {
    read_training_settings(r, c);
  } else if (c.kind == FigureKind::image_latency) {
    if (c.model.kind != ModelKind::dit)
      r.at("model").fail("expected an image model (\"kind\": \"dit\") for kind image_latency");
  } else if (c.workload.output_tokens < 1 || c.workload.input_tokens < 1) {
    r.fail("inference cases need input_tokens and output_tokens >= 1");
  }
  if (const auto scope = r.find("memory_scope")) {
    const std::string sc = scope->as_choice({"weights_per_gpu", "peak_allocated", "reserved"});
    c.memory_scope = sc == "peak_allocated" ? MemoryScope::peak_allocated
                     : sc == "reserved"     ? MemoryScope::reserved
                                            : MemoryScope::weights_per_gpu;
  }
  c.measured = r.at("measured").at("value").as_positive(1e30);
  check_training_plausible(r, c);
  c.scored = bool_or(r, "scored", true);
  // A latency percentile instead of the mean (open-loop.json: MLPerf Server's p50 / p90 / p99).
  if (const auto st = r.find("statistic")) {
    if (c.kind != FigureKind::ttft && c.kind != FigureKind::tpot && c.kind != FigureKind::e2e)
      st->fail("expected a statistic only with kind ttft, tpot or e2e");
    const std::string stat = st->as_choice({"mean", "p50", "p90", "p99"});
    c.statistic = stat == "p50"   ? Statistic::p50
                  : stat == "p90" ? Statistic::p90
                  : stat == "p99" ? Statistic::p99
                                  : Statistic::mean;
  }
  c.model_class = model_class_of(c.model);
  return c;
}

double number_or_zero(const JsonReader& r, std::string_view key) {
  const auto v = r.find(key);
  return v ? v->as_number(0.0, 1e9) : 0.0;
}

} // namespace

std::vector<ValidationCase> load_validation_cases(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  static_cast<void>(root.at("schema_version").as_int(1, 1));
  std::vector<ValidationCase> cases;
  for (const JsonReader& c : root.at("cases").elements())
    cases.push_back(read_case(c));
  return cases;
}

std::vector<Gpu> load_fallback_gpus(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  std::vector<Gpu> gpus;
  for (const JsonReader& r : root.at("gpus").elements()) {
    Gpu g;
    g.id = r.at("id").as_string();
    g.name = g.id;
    g.memory_bytes = r.at("memory_gb").as_positive(1e6) * k_bytes_per_gb;
    g.memory_type = r.at("memory_type").as_string();
    g.memory_bandwidth_gb_per_s = r.at("bandwidth_gb_per_s").as_positive(1e6);
    const JsonReader t = r.at("tflops");
    for (const std::string& key : t.keys()) {
      const auto f = parse_number_format(key);
      if (!f) t.at(key).fail("unknown dtype \"" + key + "\"");
      g.dense_tflops[static_cast<std::size_t>(format_info(*f).math)] = t.at(key).as_positive(1e6);
    }
    g.pcie_gb_per_s = number_or_zero(r, "pcie_gb_per_s");
    g.scaleup_gb_per_s = number_or_zero(r, "scaleup_gb_per_s");
    g.scaleup_domain_gpus = static_cast<int>(r.at("scaleup_domain_gpus").as_int(1, 100000));
    g.nic_gb_per_s = number_or_zero(r, "nic_gb_per_s");
    gpus.push_back(g);
  }
  return gpus;
}

} // namespace rightsize::io
