// Spec files (docs/model-spec.md): schema_version 1 -> Spec. Every default filled in is stated in
// Spec::assumptions so the user sees what was assumed.
#include "io/spec/spec_io.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "io/hf/hf_vision.hpp"
#include "io/json/checks.hpp"
#include "io/spec/length_io.hpp"
#include "io/spec/model_io.hpp"
#include "io/spec/workload_io.hpp"
#include "rightsize/image.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/text.hpp"
#include "rightsize/training.hpp"

namespace rightsize::io {
namespace {

// The longest request a trace may hold (the workload block's own bound, workload_io.cpp).
constexpr std::int64_t k_max_trace_tokens = 10'000'000;

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
  const auto rate = [&](std::string_view key, std::optional<double>& out, const RateRange& range) {
    if (auto v = s.find(key)) out = rate_in(*v, range);
  };
  rate("requests_per_s", sla.requests_per_s, k_requests_per_s_range);
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
    sla.requests_per_s =
        rate_in(*v, {k_requests_per_s_range.min, k_requests_per_s_range.max, "images per second"});
  }
  rate("average_requests_per_s", sla.average_requests_per_s, k_requests_per_s_range);
  read("growth_factor", sla.growth_factor, 1000, "growth");
  rate("output_tokens_per_s", sla.output_tokens_per_s, k_output_tokens_per_s_range);
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
  // With the replica's degrees given, its experts split over at most its GPUs (as a pool's worker).
  if ((out.tp > 0 || out.attention_dp > 0) && out.ep > tp * pp * adp) {
    d.at("ep").fail(fmt::format("expected at most tp x pp x attention_dp ({}) of one replica, got {}",
                                tp * pp * adp, out.ep));
  }
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

// A spec key set to null used to read as "not given" (`"tpot_ms": null` dropped the SLA silently):
// every value in a spec must be a value; leave a key out to use its default. Names, ids and paths
// are printed on terminals and in markdown and written into YAML and shell comments: no control
// characters (newline, ESC, NEL) or line separators (U+2028, U+2029) in them (issue 41).
void reject_nulls(const nlohmann::json& value, const std::string& source, const std::string& pointer) {
  if (value.is_null()) {
    throw Error(ErrorKind::input, source, pointer.empty() ? "/" : pointer,
                "expected a value, got null (leave the key out to use the default)");
  }
  if (value.is_string() && pointer != "/description") {
    const auto& text = value.get_ref<const std::string&>();
    if (const std::size_t at = unsafe_text_at(text); at != std::string::npos) {
      throw Error(ErrorKind::input, source, pointer,
                  "expected text without control characters (newline, tab, ESC) or line separators, got " +
                      describe_unsafe_text(text, at));
    }
  }
  if (value.is_object()) {
    for (const auto& item : value.items())
      reject_nulls(item.value(), source, pointer + "/" + pointer_token(item.key()));
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      reject_nulls(value[i], source, pointer + "/" + std::to_string(i));
  }
}

// A sequence longer than the model's context window cannot be served: the engine refuses the
// request (vLLM's max_model_len, SGLang's context_length, TensorRT-LLM's max_seq_len all default to
// the checkpoint's max_position_embeddings); nor one past max_context, which the artifact sets as
// that limit. The longest request the workload describes is a p99 prompt with the mean output or the
// mean prompt with a p99 output, whichever is longer (a fixed length's p99 is its mean), from the
// lengths given or the trace. A model served with RoPE scaling beyond its window says so in
// model.max_position.
void reject_beyond_context(const JsonReader& workload, const Spec& spec) {
  const InferenceWorkload& in = spec.inference;
  const LongestRequest longest = in.longest_request();
  const std::int64_t input = longest.input_tokens;
  const std::int64_t output = longest.output_tokens;
  const bool prompt_longer = longest.p99_prompt;
  const bool spread = in.input_spread.varies() || in.output_spread.varies();
  const bool traced = workload.find("trace").has_value();
  const char* which = !spread         ? ""
                      : prompt_longer ? " (the p99 prompt, the mean output"
                                      : " (the mean prompt, the p99 output";
  const std::string described = fmt::format("{} + {} = {}{}{}", input, output, input + output, which,
                                            !spread  ? ""
                                            : traced ? ", from the trace)"
                                                     : ")");
  if (in.max_context > 0 && input + output > in.max_context) {
    workload.at("max_context")
        .fail(spread ? fmt::format("expected at least the longest request the workload describes, input + "
                                   "output = {}: the engine refuses a request past it, got {}",
                                   described, in.max_context)
                     : fmt::format("expected at least input_tokens + output_tokens ({}), got {}",
                                   input + output, in.max_context));
  }
  const std::int64_t window = spec.model.max_position;
  const std::int64_t needed = std::max(in.context_tokens(), input + output);
  if (window <= 0 || needed <= window) return;
  const bool by_max_context = in.max_context > 0;
  workload.at(by_max_context ? "max_context"
              : traced       ? "trace"
                             : "input_tokens")
      .fail(by_max_context
                ? fmt::format(
                      "expected at most the model's context window of {} tokens (model.max_position), got "
                      "{} (set model.max_position for a model served with RoPE scaling beyond it)",
                      window, in.max_context)
                : fmt::format("expected input + output tokens within the model's context window of {} tokens "
                              "(model.max_position), got {} (set model.max_position for a model served with "
                              "RoPE scaling beyond it)",
                              window, described));
}

// workload.trace (docs/model-spec.md): the trace's arrivals and lengths fill the open-loop workload;
// a request_rate_per_s given beside it replays the trace's shape at that rate.
void apply_trace(const JsonReader& trace, const std::string& base_dir, Spec& spec) {
  const std::string path = resolve_path(base_dir, trace.as_string());
  const TraceSummary t = read_trace(path, k_max_trace_tokens);
  InferenceWorkload& in = spec.inference;
  in.arrival = Arrival::poisson;
  in.input_tokens = t.input_mean;
  in.output_tokens = t.output_mean;
  in.input_spread = t.input;
  in.output_spread = t.output;
  // The trace's figures at the precision they are printed with (4 and 3 significant digits).
  const auto rounded = [](double x, int digits) {
    if (!(x > 0.0)) return x;
    const double unit = std::pow(10.0, std::floor(std::log10(x)) - digits + 1);
    return std::round(x / unit) * unit;
  };
  in.arrival_cv = std::clamp(rounded(t.arrival_cv, 3), 0.0, 100.0);
  const bool own_rate = in.request_rate_per_s > 0.0;
  if (!own_rate) {
    if (t.rate_per_s < k_requests_per_s_range.min || t.rate_per_s > k_requests_per_s_range.max)
      trace.fail(fmt::format("expected a trace whose arrival rate is {:g} to {:g} req/s, got {:g} req/s",
                             k_requests_per_s_range.min, k_requests_per_s_range.max, t.rate_per_s));
    in.request_rate_per_s = rounded(t.rate_per_s, 4);
  }
  spec.assumptions.push_back(fmt::format(
      "workload.trace {} ({}): {} requests over {:.4g} s, {:.4g} req/s{}, inter-arrival CV {:.3g}; prompts "
      "mean {} "
      "(p50 {:g}, p99 {:g}), outputs mean {} (p50 {:g}, p99 {:g}) tokens{}",
      trace.as_string(), t.format, t.requests, t.span_s, t.rate_per_s,
      own_rate ? fmt::format(" (replayed at workload.request_rate_per_s = {:g})", in.request_rate_per_s) : "",
      t.arrival_cv, t.input_mean, t.input.p50_tokens, t.input.p99_tokens, t.output_mean, t.output.p50_tokens,
      t.output.p99_tokens,
      t.zero_outputs > 0 ? fmt::format("; {} requests generated no token and count as 1", t.zero_outputs)
                         : ""));
}

// Each mode reads its own targets: a latency or load target in a training spec, or a deadline in a
// serving spec, would otherwise be read and then never judged.
void reject_other_mode_slas(const JsonReader& s, WorkloadMode mode) {
  if (mode == WorkloadMode::inference) {
    if (auto v = s.find("deadline_hours")) {
      v->fail("expected deadline_hours only with workload.mode \"training\": a serving spec's targets are "
              "latencies (ttft_ms, tpot_ms, e2e_ms, ...), load (requests_per_s, output_tokens_per_s) and "
              "budget_usd per hour");
    }
    return;
  }
  for (const auto& item : s.value().items()) {
    if (item.key() == "deadline_hours" || item.key() == "budget_usd") continue;
    s.at(item.key())
        .fail(fmt::format("expected only deadline_hours and budget_usd with workload.mode "
                          "\"training\", got the serving target {}",
                          item.key()));
  }
}

// workload.speculative.draft_model (method draft_model, methodology §3.8): the drafter, given as the
// spec's own model is (preset, hf_config, checkpoint or architecture), served at the spec's precision.
// Engines verify drafted tokens against the target's, so the two share a vocabulary.
void read_draft_model(const JsonReader& draft, const ModelContext& context, Spec& spec) {
  const ResolvedModel resolved = resolve_model(draft, context);
  if (resolved.model.kind != ModelKind::decoder) draft.fail("expected a text decoder to draft with");
  if (resolved.model.vocab_size != spec.model.vocab_size) {
    draft.fail(
        fmt::format("expected the target's vocabulary ({} tokens): the engine checks the draft's tokens "
                    "against the target's, got {}",
                    spec.model.vocab_size, resolved.model.vocab_size));
  }
  Speculative& sp = spec.inference.speculative;
  sp.draft = draft_model_of(resolved.model, spec.precision);
  if (sp.draft_path.empty()) sp.draft_path = resolved.model.hf_id;
  spec.assumptions.push_back(
      fmt::format("draft model {} served at the target's precision, TP-sharded like it", resolved.origin));
}

// Open loop: the rate is the workload's, else the SLA's peak; without a peak the rate is the load to
// serve. The in-flight count then follows from the rate, so a concurrency assumption goes.
void settle_open_loop_rate(const JsonReader& root, Spec& spec) {
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
    spec.rate_from_sla = true;
    spec.assumptions.emplace_back(
        fmt::format("poisson arrivals at sla.requests_per_s = {:g} req/s", in.request_rate_per_s));
  }
  if (spec.mode == WorkloadMode::inference && in.arrival == Arrival::poisson && !spec.sla.requests_per_s &&
      !spec.sla.output_tokens_per_s) {
    // The arrivals are the load to serve: without a peak in the SLA the rate is it, so every command
    // holds the deployment to it (core::judge) and recommend sizes replicas for it.
    spec.sla.requests_per_s = in.request_rate_per_s;
    spec.rate_from_sla = true; // one figure: a what-if on the peak moves the arrivals too
    spec.assumptions.emplace_back(fmt::format(
        "sla.requests_per_s not given: the poisson arrival rate, {:g} req/s, is the load to serve",
        in.request_rate_per_s));
  }
  if (in.arrival == Arrival::poisson) {
    // Open loop: the in-flight count follows from the rate (Little's law), not from a concurrency.
    std::erase_if(spec.assumptions, [](const std::string& a) { return a.rfind("concurrency:", 0) == 0; });
  }
}

// The deployment block: one aggregated layout or prefill and decode pools; a dense model takes no
// expert parallelism or attention DP.
void read_deployment_block(const JsonReader& d, Spec& spec) {
  d.expect_object();
  if (d.find("prefill") || d.find("decode")) {
    spec.disaggregated = parse_disagg(d);
  } else {
    spec.deployment = parse_deployment(d);
  }
  // Expert parallelism splits an MoE model's experts, and attention data parallelism pairs with it;
  // a dense model has no experts (the flags' rule: app::reject_moe_layout_on_dense).
  if (spec.model.moe.experts == 0) {
    const auto dense = [&](const JsonReader& block, int ep, int attention_dp) {
      if (ep > 1) {
        block.at("ep").fail(fmt::format("expected no ep above 1 for {}, a dense model: expert parallelism "
                                        "splits the experts of an MoE model, got {}",
                                        spec.model.name, ep));
      }
      if (attention_dp > 1) {
        block.at("attention_dp")
            .fail(fmt::format("expected no attention_dp above 1 for {}, a dense model: attention data "
                              "parallelism pairs with expert-parallel MoE layers, got {}",
                              spec.model.name, attention_dp));
      }
    };
    if (spec.deployment) dense(d, spec.deployment->ep, spec.deployment->attention_dp);
    if (spec.disaggregated) {
      dense(d.at("prefill"), spec.disaggregated->prefill.ep, spec.disaggregated->prefill.attention_dp);
      dense(d.at("decode"), spec.disaggregated->decode.ep, spec.disaggregated->decode.attention_dp);
    }
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
  // A file name may be in any encoding: the name derived from it keeps what is printable text.
  spec.name = root.find("name") ? root.at("name").as_string()
                                : safe_text(std::filesystem::path(source).stem().string());
  if (auto d = root.find("description")) (void)d->as_string();
  ResolvedModel resolved = resolve_model(root.at("model"), ModelContext{base_dir, models_dir, true});
  spec.model = resolved.model;
  if (resolved.native_known) spec.checkpoint_weights = resolved.native.weights;
  if (spec.model.name.empty()) spec.model.name = resolved.origin;
  spec.assumptions.insert(spec.assumptions.begin(), resolved.assumptions.begin(), resolved.assumptions.end());
  spec.warnings = resolved.warnings;
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
  if (const auto w = root.find("workload"); w && spec.mode == WorkloadMode::inference)
    if (const auto trace = w->find("trace")) apply_trace(*trace, base_dir, spec);
  if (spec.mode == WorkloadMode::inference &&
      spec.inference.speculative.method == SpeculativeMethod::draft_model)
    read_draft_model(root.at("workload").at("speculative").at("draft_model"),
                     ModelContext{base_dir, models_dir, true}, spec);
  if (auto w = root.find("workload"); w && spec.mode == WorkloadMode::inference)
    reject_beyond_context(*w, spec);
  if (auto s = root.find("sla")) {
    parse_sla(*s, spec.sla);
    reject_other_mode_slas(*s, spec.mode);
    if (spec.mode == WorkloadMode::inference) reject_token_slas(*s, spec.model);
  }
  settle_open_loop_rate(root, spec);
  if (auto c = root.find("constraints")) parse_constraints(*c, spec.constraints);
  if (auto d = root.find("deployment")) read_deployment_block(*d, spec);
  return spec;
}

Spec load_spec(const std::string& path, const std::string& models_dir) {
  const nlohmann::json document = read_json_file(path);
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_spec(document, path, base, models_dir);
}

} // namespace rightsize::io
