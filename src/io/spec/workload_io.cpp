// The spec's workload block (docs/model-spec.md "workload"): inference, training and image
// requests; every default filled in is stated in Spec::assumptions.
#include "io/spec/workload_io.hpp"

#include <fmt/format.h>

#include "io/hf/hf_vision.hpp"
#include "io/json/checks.hpp"
#include "io/spec/length_io.hpp"
#include "io/spec/lora_io.hpp"
#include "io/spec/prefix_cache_io.hpp"
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

// The acceptance of workload.speculative: one rate, the mean accepted tokens per step (the rate
// solved from it) or one rate per drafted token (the i.i.d. rate of the same E kept for display).
void read_acceptance(const JsonReader& v, Speculative& out) {
  const auto rate = v.find("acceptance_rate");
  const auto mean = v.find("mean_accepted_tokens");
  const auto by_position = v.find("acceptance_by_position");
  if ((rate ? 1 : 0) + (mean ? 1 : 0) + (by_position ? 1 : 0) > 1)
    v.fail("expected one of acceptance_rate, mean_accepted_tokens and acceptance_by_position, not several");
  if (!rate && !mean && !by_position)
    v.fail("expected acceptance_rate (0 to 1, per drafted token), mean_accepted_tokens (tokens per "
           "verification step) or acceptance_by_position (one rate per drafted token): they depend on the "
           "model, the drafter and the data, so there is no default");
  if (rate) out.acceptance_rate = rate->as_number(0.0, 1.0);
  if (by_position) {
    const std::vector<JsonReader> rates = by_position->elements();
    if (rates.size() != static_cast<std::size_t>(out.draft_tokens))
      by_position->fail(fmt::format("expected {} rates, one per drafted token (draft_tokens), got {}",
                                    out.draft_tokens, rates.size()));
    for (const JsonReader& r : rates)
      out.acceptance_by_position.push_back(r.as_number(0.0, 1.0));
  }
  if (mean || by_position) {
    const double k = static_cast<double>(out.draft_tokens);
    const double e = by_position ? out.tokens_per_step() : mean->as_number(1.0, k + 1.0);
    // Solve (1 − a^(k+1)) / (1 − a) = e for a by bisection: the left side rises from 1 to k + 1.
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 100; ++i) {
      Speculative probe = out;
      probe.acceptance_by_position.clear();
      probe.acceptance_rate = 0.5 * (lo + hi);
      (probe.tokens_per_step() < e ? lo : hi) = probe.acceptance_rate;
    }
    out.acceptance_rate = 0.5 * (lo + hi);
  }
}

// workload.speculative (methodology §3.8): {"method": "mtp" | "eagle3" | "ngram", "draft_tokens": k,
// "acceptance_rate": a} or {..., "mean_accepted_tokens": E} (E = tokens per verification step,
// 1 to k + 1; a is solved from it). No default acceptance: it depends on the model, drafter and data.
Speculative parse_speculative(const JsonReader& v, const Spec& spec) {
  if (v.is_string())
    v.fail("expected an object: \"use\": \"auto\" goes inside it with the method, draft_tokens and an "
           "acceptance (the gain depends on an acceptance that has no default)");
  v.expect_keys({"method", "draft_tokens", "acceptance_rate", "mean_accepted_tokens",
                 "acceptance_by_position", "draft_path", "draft_model", "use"});
  if (spec.model.kind != ModelKind::decoder) v.fail("expected only for a text model's decoding");
  Speculative out;
  const JsonReader method = v.at("method");
  const std::string m = method.as_choice({"mtp", "eagle3", "ngram", "draft_model"});
  out.method = m == "mtp"           ? SpeculativeMethod::mtp
               : m == "eagle3"      ? SpeculativeMethod::eagle3
               : m == "draft_model" ? SpeculativeMethod::draft_model
                                    : SpeculativeMethod::ngram;
  // The draft model itself is resolved with the spec's model sources (spec_io.cpp, read_draft_model).
  if (const auto draft = v.find("draft_model"); draft && out.method != SpeculativeMethod::draft_model)
    draft->fail("expected only with method \"draft_model\"");
  if (out.method == SpeculativeMethod::draft_model && !v.find("draft_model"))
    v.fail("expected draft_model: the drafter's model, as the spec's model is given ({\"preset\": ...}, "
           "{\"hf_config\": ...} or its architecture)");
  out.draft_tokens = static_cast<int>(v.at("draft_tokens").as_int(1, 16));
  if (auto use = v.find("use")) out.automatic = use->as_choice({"always", "auto"}) == "auto";
  if (const auto path = v.find("draft_path")) {
    if (out.method != SpeculativeMethod::eagle3 && out.method != SpeculativeMethod::draft_model)
      path->fail(
          "expected only with method \"eagle3\" or \"draft_model\" (MTP's module is in the checkpoint; "
          "n-gram has none)");
    out.draft_path = path->as_string();
    if (out.draft_path.empty()) path->fail("expected the draft's Hugging Face id or path, got \"\"");
  }
  read_acceptance(v, out);
  // MTP drafts with the modules the checkpoint ships ([DSV3] §2.2): a model without one has nothing
  // to draft with, and an engine started with it fails to load the module.
  if (out.method == SpeculativeMethod::mtp && spec.model.mtp_layers == 0)
    method.fail(fmt::format("expected a model with a multi-token-prediction module (model.mtp_layers, or "
                            "num_nextn_predict_layers in its config), but {} has none: draft with "
                            "\"eagle3\", \"ngram\" or \"draft_model\"",
                            spec.model.name.empty() ? "the model" : spec.model.name));
  return out;
}

void parse_inference(const JsonReader& w, Spec& spec) {
  w.expect_keys({"mode", "input_tokens", "output_tokens", "concurrency", "max_context", "engine", "arrival",
                 "request_rate_per_s", "arrival_cv", "burstiness", "trace", "image", "images_per_request",
                 "image_width_px", "image_height_px", "speculative", "prefix_cache", "kv_offload", "lora"});
  if (auto v = w.find("image")) parse_image_request(*v, spec);
  InferenceWorkload& in = spec.inference;
  // An image model's work is its image (workload.image), not prompt and output tokens.
  const bool image = spec.model.kind != ModelKind::decoder; // an image, or an encoder item
  // A trace gives the arrivals and lengths (spec_io.cpp reads it): none of them twice.
  if (const auto trace = w.find("trace")) {
    (void)trace->as_string();
    for (const char* key : {"input_tokens", "output_tokens", "arrival_cv", "burstiness"})
      if (const auto v = w.find(key))
        v->fail(fmt::format("expected no {} with workload.trace: the trace gives it", key));
    if (const auto v = w.find("arrival"); v && v->as_choice({"closed_loop", "poisson"}) != "poisson")
      v->fail("expected \"poisson\" or nothing with workload.trace: a trace is open-loop arrivals");
    in.arrival = Arrival::poisson;
  }
  if (auto v = w.find("input_tokens")) {
    in.input_tokens = read_length(*v, in.input_spread, k_max_tokens);
  } else if (image) {
    in.input_tokens = 0;
  } else if (!w.find("trace")) {
    spec.assumptions.emplace_back("workload.input_tokens not given: 1024");
  }
  if (auto v = w.find("output_tokens")) {
    // An image generator produces images; an encoder, one embedding per item: no output tokens to
    // count, price or sweep.
    if (image)
      v->fail(fmt::format("expected no output_tokens for {}, which generates no tokens", spec.model.name));
    in.output_tokens = read_length(*v, in.output_spread, k_max_tokens);
  } else if (image) {
    in.output_tokens = 0;
  } else if (!w.find("trace")) {
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
    // Checked against the longest request once the lengths are known (a trace's too): spec_io
    // reject_beyond_context.
    in.max_context = positive_count(*v, k_max_tokens, "tokens");
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
    in.request_rate_per_s = rate_in(*v, k_requests_per_s_range);
  }
  if (auto v = w.find("arrival_cv")) {
    if (in.arrival != Arrival::poisson) v->fail("expected only with \"arrival\": \"poisson\"");
    in.arrival_cv = v->as_positive(100.0);
  }
  if (auto v = w.find("burstiness")) {
    if (in.arrival != Arrival::poisson) v->fail("expected only with \"arrival\": \"poisson\"");
    if (w.find("arrival_cv"))
      v->fail("expected burstiness or arrival_cv, not both: burstiness k is arrival_cv 1/√k");
    in.arrival_cv = read_burstiness(*v);
  }
  if (auto v = w.find("speculative")) in.speculative = parse_speculative(*v, spec);
  if (auto v = w.find("prefix_cache")) parse_prefix_cache(*v, spec);
  if (auto v = w.find("kv_offload")) parse_kv_offload(*v, spec);
  if (auto v = w.find("lora")) parse_lora(*v, spec);
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
    t.framework = *parse_training_framework(v->as_choice(training_framework_names()));
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
    t.lora_targets = parse_lora_targets(*v);
  }
}

} // namespace

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

} // namespace rightsize::io
