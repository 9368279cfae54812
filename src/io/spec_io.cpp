// Spec files (docs/model-spec.md): schema_version 1 -> Spec. Every default filled in is stated in
// Spec::assumptions so the user sees what was assumed.
#include "spec_io.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "checks.hpp"
#include "hf_vision.hpp"
#include "model_io.hpp"
#include "rightsize/image.hpp"
#include "rightsize/training.hpp"

namespace rightsize::io {
namespace {

using i64 = std::int64_t;
constexpr i64 k_max_tokens = 10'000'000;
constexpr i64 k_max_concurrency = 1'000'000;

// workload.image (docs/model-spec.md): the resolution, steps and CFG passes of each image; the
// model's image pipeline turns them into tokens and passes per image (methodology §3.7).
void parse_image_request(const JsonReader& im, Spec& spec) {
  im.expect_keys({"width_px", "height_px", "steps", "cfg_passes", "fused"});
  ModelSpec& m = spec.model;
  if (m.kind != ModelKind::dit || m.image.pixels_per_token_side <= 0) {
    im.fail(fmt::format("expected an image block only for an image model with an image pipeline (model "
                        "kind \"dit\" with model.image), got model kind \"{}\"{}",
                        to_string(m.kind), m.kind == ModelKind::dit ? " without model.image" : ""));
  }
  ImageRequest r;
  const i64 side = m.image.pixels_per_token_side;
  for (const auto& [key, out] :
       {std::pair<const char*, i64*>{"width_px", &r.width_px}, {"height_px", &r.height_px}}) {
    if (auto v = im.find(key)) {
      *out = positive_count(*v, 65'536, "pixels");
      if (*out % side != 0) {
        v->fail(fmt::format("expected a multiple of {} pixels (VAE downsampling x patch size of this model), "
                            "got {}",
                            side, *out));
      }
    }
  }
  if (auto v = im.find("steps")) r.steps = positive_count(*v, 10'000, "steps");
  if (auto v = im.find("cfg_passes")) r.cfg_passes = positive_count(*v, 8, "passes");
  if (auto v = im.find("fused")) r.fused = v->as_bool() ? 1 : 0;
  m.image = apply_image_request(m.image, r);
  const ImageItem item = image_item(m.image);
  m.tokens_per_item = item.tokens;
  m.passes_per_item = item.passes;
}

void parse_inference(const JsonReader& w, Spec& spec) {
  w.expect_keys({"mode", "input_tokens", "output_tokens", "concurrency", "max_context", "engine", "arrival",
                 "request_rate_per_s", "arrival_cv", "image", "images_per_request", "image_width_px",
                 "image_height_px"});
  if (auto v = w.find("image")) parse_image_request(*v, spec);
  InferenceWorkload& in = spec.inference;
  // An image model's work is its image (workload.image), not prompt and output tokens.
  const bool image = spec.model.kind != ModelKind::decoder; // an image, or an encoder item
  if (auto v = w.find("input_tokens")) {
    in.input_tokens = positive_count(*v, k_max_tokens, "tokens");
  } else if (image) {
    in.input_tokens = 0;
  } else {
    spec.assumptions.emplace_back("workload.input_tokens not given: 1024");
  }
  if (auto v = w.find("output_tokens")) {
    in.output_tokens = positive_count(*v, k_max_tokens, "tokens");
  } else if (image) {
    in.output_tokens = 0;
  } else {
    spec.assumptions.emplace_back("workload.output_tokens not given: 256");
  }
  parse_vision_request(w, spec);
  auto c = w.find("concurrency");
  if (c && c->is_string()) {
    (void)c->as_choice({"auto"});
  } else if (c) {
    if (!c->is_number())
      c->fail("expected a positive integer or \"auto\", got " + describe_value(c->value()));
    in.concurrency = positive_count(*c, k_max_concurrency, "concurrent requests");
  }
  if (in.concurrency == 0) spec.assumptions.emplace_back("concurrency: auto (the search chooses it)");
  if (auto v = w.find("max_context")) {
    in.max_context = positive_count(*v, k_max_tokens, "tokens");
    if (in.max_context < in.input_tokens + in.output_tokens) {
      v->fail(fmt::format("expected at least input_tokens + output_tokens ({}), got {}",
                          in.input_tokens + in.output_tokens, in.max_context));
    }
  }
  if (auto v = w.find("engine")) {
    const std::string e = v->as_choice({"vllm", "sglang", "trtllm"});
    spec.engine = e == "sglang" ? EngineKind::sglang : e == "trtllm" ? EngineKind::trtllm : EngineKind::vllm;
  }
  if (auto v = w.find("arrival")) {
    in.arrival =
        v->as_choice({"closed_loop", "poisson"}) == "poisson" ? Arrival::poisson : Arrival::closed_loop;
  }
  if (auto v = w.find("request_rate_per_s")) {
    if (in.arrival != Arrival::poisson) v->fail("expected only with \"arrival\": \"poisson\"");
    in.request_rate_per_s = v->as_positive(1e7);
  }
  if (auto v = w.find("arrival_cv")) {
    if (in.arrival != Arrival::poisson) v->fail("expected only with \"arrival\": \"poisson\"");
    in.arrival_cv = v->as_positive(100.0);
  }
}

void parse_training(const JsonReader& w, Spec& spec) {
  w.expect_keys({"mode", "method", "lora_rank", "seq_len", "global_batch", "micro_batch", "tokens",
                 "optimizer", "zero_stage", "recompute", "cpu_offload", "framework",
                 "virtual_pipeline_stages", "context_parallel", "tp_comm_overlap", "chunked_cross_entropy",
                 "lora_targets", "attention_kernel"});
  TrainingWorkload& t = spec.training;
  if (auto v = w.find("method")) {
    const std::string m = v->as_choice({"full", "lora", "qlora"});
    t.method = m == "lora"    ? TrainingMethod::lora
               : m == "qlora" ? TrainingMethod::qlora
                              : TrainingMethod::full;
  } else {
    spec.assumptions.emplace_back("workload.method not given: full fine-tuning");
  }
  if (auto v = w.find("lora_rank")) {
    if (t.method == TrainingMethod::full)
      v->fail("expected lora_rank only with method \"lora\" or \"qlora\", got it with \"full\"");
    t.lora_rank = positive_count(*v, 65536, "rank");
  } else if (t.method != TrainingMethod::full) {
    spec.assumptions.emplace_back("workload.lora_rank not given: 16");
  }
  if (auto v = w.find("seq_len"))
    t.seq_len = positive_count(*v, k_max_tokens, "tokens");
  else
    spec.assumptions.emplace_back("workload.seq_len not given: 4096");
  if (auto v = w.find("global_batch"))
    t.global_batch = positive_count(*v, 100'000'000, "sequences");
  else
    spec.assumptions.emplace_back("workload.global_batch not given: 1024 sequences");
  if (auto v = w.find("micro_batch")) {
    t.micro_batch = positive_count(*v, t.global_batch, "sequences");
  }
  if (auto v = w.find("tokens"))
    t.tokens = positive_amount(*v, 1e15, "tokens");
  else
    spec.assumptions.emplace_back("workload.tokens not given: cost of one optimizer step only");
  if (auto v = w.find("optimizer")) {
    const std::string o = v->as_choice({"adamw", "adamw-8bit", "sgd"});
    t.optimizer = o == "sgd" ? Optimizer::sgd : o == "adamw-8bit" ? Optimizer::adamw_8bit : Optimizer::adamw;
  }
  if (auto v = w.find("zero_stage")) t.zero_stage = static_cast<int>(v->as_int(0, 3));
  if (auto v = w.find("recompute")) {
    const std::string r = v->as_choice({"none", "selective", "full", "per_op"});
    t.recompute = r == "none"     ? Recompute::none
                  : r == "full"   ? Recompute::full
                  : r == "per_op" ? Recompute::per_op
                                  : Recompute::selective;
  }
  if (auto v = w.find("cpu_offload")) t.cpu_offload_optimizer = v->as_bool();
  if (auto v = w.find("framework")) {
    const std::string f = v->as_choice({"generic", "megatron", "nemo", "torchtitan"});
    t.framework = f == "megatron"     ? TrainingFramework::megatron
                  : f == "nemo"       ? TrainingFramework::nemo
                  : f == "torchtitan" ? TrainingFramework::torchtitan
                                      : TrainingFramework::generic;
  }
  if (auto v = w.find("virtual_pipeline_stages"))
    t.virtual_pipeline_stages = static_cast<int>(v->as_int(1, 128));
  if (auto v = w.find("context_parallel")) t.context_parallel = static_cast<int>(v->as_int(1, 1024));
  if (auto v = w.find("tp_comm_overlap")) {
    // true = the framework's userbuffer overlap (TrainingConfig::tp_overlap_enabled_fraction), false = 0,
    // a number = the hidden share.
    if (v->value().is_boolean())
      t.tp_comm_overlap = v->as_bool() ? TrainingConfig{}.tp_overlap_enabled_fraction : 0.0;
    else
      t.tp_comm_overlap = v->as_number(0.0, 1.0);
  }
  if (auto v = w.find("chunked_cross_entropy")) t.chunked_cross_entropy = v->as_bool();
  if (auto v = w.find("attention_kernel"))
    t.attention_kernel = v->as_choice({"fused", "materialized"}) == "materialized"
                             ? AttentionKernel::materialized
                             : AttentionKernel::fused;
  if (auto v = w.find("lora_targets")) {
    if (t.method == TrainingMethod::full)
      v->fail("expected lora_targets only with method \"lora\" or \"qlora\", got it with \"full\"");
    const std::string g = v->as_choice({"all_linear", "attention", "qv"});
    t.lora_targets = g == "qv"          ? LoraTargets::qv
                     : g == "attention" ? LoraTargets::attention
                                        : LoraTargets::all_linear;
  }
}

void parse_workload(const JsonReader& root, Spec& spec) {
  auto w = root.find("workload");
  if (!w && spec.model.kind != ModelKind::decoder) {
    // An image model without a workload generates the image its pipeline describes.
    spec.inference.input_tokens = 0;
    spec.inference.output_tokens = 0;
    spec.assumptions.emplace_back(
        fmt::format("no workload given: inference, one item (image) of {} tokens x {} passes per request",
                    spec.model.tokens_per_item, spec.model.passes_per_item));
    spec.assumptions.emplace_back("concurrency: auto (the search chooses it)");
    return;
  }
  if (!w) {
    spec.assumptions.emplace_back(
        "no workload given: inference, 1024 input and 256 output tokens per request");
    spec.assumptions.emplace_back("concurrency: auto (the search chooses it)");
    return;
  }
  w->expect_object();
  std::string mode = "inference";
  if (auto m = w->find("mode"))
    mode = m->as_choice({"inference", "training"});
  else
    spec.assumptions.emplace_back("workload.mode not given: inference");
  spec.mode = mode == "training" ? WorkloadMode::training : WorkloadMode::inference;
  if (spec.mode == WorkloadMode::training)
    parse_training(*w, spec);
  else
    parse_inference(*w, spec);
}

void parse_sla(const JsonReader& s, Sla& sla) {
  s.expect_keys({"ttft_ms",
                 "tpot_ms",
                 "e2e_ms",
                 "ttft_p50_ms",
                 "ttft_p90_ms",
                 "ttft_p99_ms",
                 "tpot_p50_ms",
                 "tpot_p90_ms",
                 "tpot_p99_ms",
                 "e2e_p50_ms",
                 "e2e_p90_ms",
                 "e2e_p99_ms",
                 "requests_per_s",
                 "average_requests_per_s",
                 "growth_factor",
                 "output_tokens_per_s",
                 "deadline_hours",
                 "budget_usd",
                 "image_latency_ms",
                 "image_latency_p50_ms",
                 "image_latency_p90_ms",
                 "image_latency_p99_ms",
                 "images_per_s"});
  const auto read = [&](std::string_view key, std::optional<double>& out, double max, std::string_view noun) {
    if (auto v = s.find(key)) out = positive_amount(*v, max, noun);
  };
  // One target per latency figure: the mean (ttft_ms) or one percentile (ttft_p99_ms, ...).
  const auto latency = [&](std::string_view figure, std::optional<double>& out, Statistic& stat, double max) {
    const std::pair<const char*, Statistic> keys[] = {{"_ms", Statistic::mean},
                                                      {"_p50_ms", Statistic::p50},
                                                      {"_p90_ms", Statistic::p90},
                                                      {"_p99_ms", Statistic::p99}};
    std::string first;
    for (const auto& [suffix, st] : keys) {
      const std::string key = std::string(figure) + suffix;
      if (auto v = s.find(key)) {
        if (!first.empty())
          v->fail(fmt::format("expected one target for {}, got \"{}\" and \"{}\"", figure, first, key));
        first = key;
        out = positive_amount(*v, max, "milliseconds");
        stat = st;
      }
    }
  };
  latency("ttft", sla.ttft_ms, sla.ttft_stat, 3.6e6);
  latency("tpot", sla.tpot_ms, sla.tpot_stat, 3.6e6);
  latency("e2e", sla.e2e_ms, sla.e2e_stat, 8.64e7);
  read("requests_per_s", sla.requests_per_s, 1e7, "requests per second");
  // Image models (methodology §3.7): the latency per image and images per second are the
  // end-to-end and request figures one image = one request; judge() compares them as such.
  const bool e2e_given = sla.e2e_ms.has_value();
  latency("image_latency", sla.e2e_ms, sla.e2e_stat, 8.64e7);
  for (const char* k :
       {"image_latency_ms", "image_latency_p50_ms", "image_latency_p90_ms", "image_latency_p99_ms"}) {
    if (auto v = s.find(k); v && e2e_given) v->fail("expected one of e2e_ms and image_latency_ms, got both");
  }
  if (auto v = s.find("images_per_s")) {
    if (sla.requests_per_s) v->fail("expected one of requests_per_s and images_per_s, got both");
    sla.requests_per_s = positive_amount(*v, 1e7, "images per second");
  }
  read("average_requests_per_s", sla.average_requests_per_s, 1e7, "requests per second");
  read("growth_factor", sla.growth_factor, 1000, "growth");
  read("output_tokens_per_s", sla.output_tokens_per_s, 1e10, "tokens per second");
  read("deadline_hours", sla.deadline_hours, 87'600, "hours");
  read("budget_usd", sla.budget_usd, 1e12, "dollars");
  if (sla.average_requests_per_s && sla.requests_per_s && *sla.average_requests_per_s > *sla.requests_per_s) {
    s.at("average_requests_per_s")
        .fail(fmt::format("expected at most requests_per_s ({:g}), got {:g}", *sla.requests_per_s,
                          *sla.average_requests_per_s));
  }
}

// Image models produce no tokens: a DiT has neither a first token nor a time per output token, a
// ViT encoder no output tokens (issue 19). Latency per image is e2e_ms, images per second requests_per_s.
void reject_token_slas(const JsonReader& s, const ModelSpec& model) {
  if (model.kind != ModelKind::dit) {
    for (const char* k : {"image_latency_ms", "image_latency_p50_ms", "image_latency_p90_ms",
                          "image_latency_p99_ms", "images_per_s"}) {
      if (auto v = s.find(k)) {
        v->fail(fmt::format("expected an image target only for an image model (kind \"dit\"), got model kind "
                            "\"{}\": give e2e_ms and requests_per_s",
                            to_string(model.kind)));
      }
    }
  }
  if (model.kind == ModelKind::decoder) return;
  std::vector<std::string> keys = {"tpot_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms",
                                   "output_tokens_per_s"};
  if (model.kind == ModelKind::dit) {
    for (const char* k : {"ttft_ms", "ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms"})
      keys.emplace_back(k);
  }
  for (const auto& key : keys) {
    if (auto v = s.find(key)) {
      v->fail(
          fmt::format("expected no per-token target for an image model (kind \"{}\" {}): give the latency "
                      "per image as {} and images per second as {}",
                      to_string(model.kind),
                      model.kind == ModelKind::dit ? "generates images, not tokens" : "outputs no tokens",
                      model.kind == ModelKind::dit ? "image_latency_ms" : "e2e_ms",
                      model.kind == ModelKind::dit ? "images_per_s" : "requests_per_s"));
    }
  }
}

void parse_tco(const JsonReader& t, TcoParams& tco) {
  t.expect_keys({"years", "cost_of_capital", "utilization", "pue", "usd_per_kwh", "power_fraction",
                 "server_overhead", "ops_fraction", "grid_gco2e_per_kwh"});
  if (auto v = t.find("years")) tco.amortization_years = amount_in(*v, 0.1, 30);
  if (auto v = t.find("cost_of_capital")) tco.cost_of_capital = amount_in(*v, 0, 1);
  if (auto v = t.find("utilization")) tco.utilization = amount_in(*v, 0.01, 1);
  if (auto v = t.find("pue")) tco.power_usage_effectiveness = amount_in(*v, 1, 3);
  if (auto v = t.find("usd_per_kwh")) tco.usd_per_kwh = amount_in(*v, 0, 10);
  if (auto v = t.find("power_fraction")) tco.power_fraction_of_tdp = positive_amount(*v, 1.5, "power");
  if (auto v = t.find("server_overhead")) tco.server_overhead_fraction = amount_in(*v, 0, 10);
  if (auto v = t.find("ops_fraction")) tco.ops_fraction_per_year = amount_in(*v, 0, 1);
  if (auto v = t.find("grid_gco2e_per_kwh")) tco.grid_g_co2e_per_kwh = amount_in(*v, 0, 5000);
}

void parse_constraints(const JsonReader& c, Constraints& out) {
  c.expect_keys({"gpus", "max_gpus_per_replica", "max_nodes", "pricing", "provider", "tco", "max_power_kw"});
  if (auto g = c.find("gpus")) {
    for (const auto& e : g->elements())
      out.gpus.push_back(e.as_string());
    if (out.gpus.empty()) g->fail("expected at least one GPU id, got an empty array");
  }
  if (auto v = c.find("max_gpus_per_replica"))
    out.max_gpus_per_replica = static_cast<int>(positive_count(*v, 4096, "GPUs"));
  if (auto v = c.find("max_nodes")) out.max_nodes = static_cast<int>(positive_count(*v, 1024, "nodes"));
  if (auto v = c.find("pricing")) {
    const std::string p = v->as_choice({"on_demand", "spot", "on_prem"});
    out.pricing = p == "spot"      ? PricingModel::spot
                  : p == "on_prem" ? PricingModel::on_prem
                                   : PricingModel::on_demand;
  }
  if (auto v = c.find("provider")) out.provider = v->as_string();
  if (auto v = c.find("tco")) parse_tco(*v, out.tco);
  if (auto v = c.find("max_power_kw")) out.max_power_kw = positive_amount(*v, 1e6, "kW");
}

DeploymentSpec parse_deployment(const JsonReader& d) {
  d.expect_keys({"gpu", "gpus", "tp", "pp", "ep", "attention_dp"});
  DeploymentSpec out;
  out.gpu = d.at("gpu").as_string();
  if (auto v = d.find("gpus")) out.gpus = static_cast<int>(positive_count(*v, 4096, "GPUs"));
  if (auto v = d.find("tp")) out.tp = static_cast<int>(positive_count(*v, 1024, "GPUs"));
  if (auto v = d.find("pp")) out.pp = static_cast<int>(positive_count(*v, 1024, "stages"));
  if (auto v = d.find("ep")) out.ep = static_cast<int>(positive_count(*v, 1024, "GPUs"));
  if (auto v = d.find("attention_dp")) out.attention_dp = static_cast<int>(positive_count(*v, 1024, "ranks"));
  const int tp = out.tp > 0 ? out.tp : 1;
  const int pp = out.pp > 0 ? out.pp : 1;
  const int adp = out.attention_dp > 0 ? out.attention_dp : 1;
  if (out.gpus % (tp * pp * adp) != 0) {
    (d.find("attention_dp") ? d.at("attention_dp")
     : d.find("tp")         ? d.at("tp")
                            : d.at("pp"))
        .fail(fmt::format("expected tp x pp x attention_dp to divide gpus ({}), got {}", out.gpus,
                          tp * pp * adp));
  }
  if (out.ep > out.gpus) d.at("ep").fail(fmt::format("expected at most gpus ({}), got {}", out.gpus, out.ep));
  return out;
}

PoolSpec parse_pool(const JsonReader& p) {
  p.expect_keys({"gpu", "workers", "tp", "pp", "ep", "attention_dp"});
  PoolSpec out;
  out.gpu = p.at("gpu").as_string();
  if (auto v = p.find("workers")) out.workers = static_cast<int>(positive_count(*v, 4096, "workers"));
  if (auto v = p.find("tp")) out.tp = static_cast<int>(positive_count(*v, 1024, "GPUs"));
  if (auto v = p.find("pp")) out.pp = static_cast<int>(positive_count(*v, 1024, "stages"));
  if (auto v = p.find("ep")) out.ep = static_cast<int>(positive_count(*v, 1024, "GPUs"));
  if (auto v = p.find("attention_dp")) out.attention_dp = static_cast<int>(positive_count(*v, 1024, "ranks"));
  const int worker_gpus = out.tp * out.pp * out.attention_dp;
  if (out.ep > worker_gpus) {
    p.at("ep").fail(fmt::format("expected at most tp x pp x attention_dp ({}) of one worker, got {}",
                                worker_gpus, out.ep));
  }
  return out;
}

// `deployment` with `prefill` and `decode` blocks: a disaggregated deployment (methodology §3.6).
DisaggSpec parse_disagg(const JsonReader& d) {
  d.expect_keys({"prefill", "decode"});
  if (!d.find("decode")) d.at("prefill").fail("expected a \"decode\" block next to \"prefill\"");
  if (!d.find("prefill")) d.at("decode").fail("expected a \"prefill\" block next to \"decode\"");
  return DisaggSpec{parse_pool(d.at("prefill")), parse_pool(d.at("decode"))};
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20U || u == 0x7FU;
  });
}

// A spec key set to null used to read as "not given" (`"tpot_ms": null` dropped the SLA silently):
// every value in a spec must be a value; leave a key out to use its default. Names, ids and paths
// are printed on terminals and in markdown: no control characters (newline, ESC) in them.
void reject_nulls(const nlohmann::json& value, const std::string& source, const std::string& pointer) {
  if (value.is_null()) {
    throw Error(ErrorKind::input, source, pointer.empty() ? "/" : pointer,
                "expected a value, got null (leave the key out to use the default)");
  }
  if (value.is_string() && pointer != "/description" &&
      has_control_character(value.get_ref<const std::string&>())) {
    throw Error(ErrorKind::input, source, pointer,
                "expected text without control characters (newline, tab, ESC)");
  }
  if (value.is_object()) {
    for (const auto& item : value.items())
      reject_nulls(item.value(), source, pointer + "/" + pointer_token(item.key()));
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      reject_nulls(value[i], source, pointer + "/" + std::to_string(i));
  }
}

} // namespace

Spec parse_spec(const nlohmann::json& document, const std::string& source, const std::string& base_dir,
                const std::string& models_dir) {
  const JsonReader root(document, source);
  root.expect_object();
  reject_nulls(document, source, "");
  root.expect_keys({"schema_version", "name", "description", "model", "precision", "workload", "sla",
                    "constraints", "deployment"});
  Spec spec;
  spec.source = source;
  if (auto v = root.find("schema_version")) {
    if (!v->is_number() || v->value() != 1)
      v->fail("expected schema_version 1, got " + describe_value(v->value()));
  } else {
    spec.assumptions.emplace_back("schema_version not given: read as version 1");
  }
  spec.name = root.find("name") ? root.at("name").as_string() : std::filesystem::path(source).stem().string();
  std::replace_if(
      spec.name.begin(), spec.name.end(),
      [](char c) {
        return has_control_character({&c, 1});
      },
      '?');
  if (auto d = root.find("description")) (void)d->as_string();
  ResolvedModel resolved = resolve_model(root.at("model"), ModelContext{base_dir, models_dir, true});
  spec.model = resolved.model;
  if (spec.model.name.empty()) spec.model.name = resolved.origin;
  spec.assumptions.insert(spec.assumptions.begin(), resolved.assumptions.begin(), resolved.assumptions.end());
  if (auto p = root.find("precision")) {
    spec.precision = parse_precision(*p, resolved.native);
  } else {
    spec.precision = resolved.native;
    spec.assumptions.push_back(resolved.native_known
                                   ? fmt::format("precision not given: the model's native {}",
                                                 format_info(resolved.native.weights).name)
                                   : "precision not given: bf16");
  }
  parse_workload(root, spec);
  if (auto s = root.find("sla")) {
    parse_sla(*s, spec.sla);
    if (spec.mode == WorkloadMode::inference) reject_token_slas(*s, spec.model);
  }
  InferenceWorkload& in = spec.inference;
  if (spec.mode == WorkloadMode::inference && in.arrival == Arrival::poisson &&
      in.request_rate_per_s <= 0.0) {
    // Open loop needs a rate: the workload's own, else the SLA's peak.
    if (!spec.sla.requests_per_s) {
      root.at("workload")
          .at("arrival")
          .fail("expected workload.request_rate_per_s or sla.requests_per_s with \"poisson\" arrivals");
    }
    in.request_rate_per_s = *spec.sla.requests_per_s;
    spec.assumptions.emplace_back(
        fmt::format("poisson arrivals at sla.requests_per_s = {:g} req/s", in.request_rate_per_s));
  }
  if (in.arrival == Arrival::poisson) {
    // Open loop: the in-flight count follows from the rate (Little's law), not from a concurrency.
    std::erase_if(spec.assumptions, [](const std::string& a) { return a.rfind("concurrency:", 0) == 0; });
  }
  if (auto c = root.find("constraints")) parse_constraints(*c, spec.constraints);
  if (auto d = root.find("deployment")) {
    d->expect_object();
    if (d->find("prefill") || d->find("decode")) {
      spec.disaggregated = parse_disagg(*d);
    } else {
      spec.deployment = parse_deployment(*d);
    }
  }
  return spec;
}

Spec load_spec(const std::string& path, const std::string& models_dir) {
  const nlohmann::json document = read_json_file(path);
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_spec(document, path, base, models_dir);
}

} // namespace rightsize::io
