// The figures a sweep can plot, rank a Pareto front on or print as axes (docs/sweep.md "Plots"):
// an estimate figure of a point, or a numeric varied key.
#include <cmath>

#include <fmt/format.h>

#include "app/sweep.hpp"
#include "rightsize/error.hpp"

namespace rightsize::app {
namespace {

constexpr std::size_t k_no_axis = std::numeric_limits<std::size_t>::max();

enum Figure : int {
  tpot,
  ttft,
  e2e,
  output_tokens_per_s,
  requests_per_s,
  usd_per_million,
  usd_per_million_capacity,
  usd_per_hour,
  usd_per_request,
  per_gpu_bytes,
  gpus,
  time_to_train,
  training_tokens_per_s,
  mfu,
  usd_total,
  ttft_p99,
  tpot_p99,
  e2e_p99,
  slo_attainment,
  goodput_requests_per_s,
};

const std::vector<Metric>& figure_metrics() {
  using D = Direction;
  constexpr std::uint8_t I = k_for_inference;
  constexpr std::uint8_t T = k_for_training;
  constexpr std::uint8_t B = k_for_both;
  static const std::vector<Metric> metrics = {
      {"inference.tpot_s", "TPOT", "ms", 1e3, true, D::minimize, k_no_axis, tpot, I},
      {"inference.ttft_s", "TTFT", "ms", 1e3, true, D::minimize, k_no_axis, ttft, I},
      {"inference.e2e_s", "end-to-end latency", "s", 1.0, true, D::minimize, k_no_axis, e2e, I},
      {"inference.output_tokens_per_s", "output throughput", "tokens/s", 1.0, true, D::maximize, k_no_axis,
       output_tokens_per_s, I},
      {"inference.requests_per_s", "request throughput", "requests/s", 1.0, true, D::maximize, k_no_axis,
       requests_per_s, I},
      {"cost.usd_per_million_output_tokens_at_load", "cost per million output tokens at the served load",
       "USD", 1.0, true, D::minimize, k_no_axis, usd_per_million, I},
      {"cost.usd_per_million_output_tokens_at_capacity", "cost per million output tokens at full capacity",
       "USD", 1.0, true, D::minimize, k_no_axis, usd_per_million_capacity, I},
      {"cost.usd_per_hour", "cost per hour", "USD/h", 1.0, true, D::minimize, k_no_axis, usd_per_hour, B},
      {"cost.usd_per_request_at_capacity", "cost per request at full capacity", "USD", 1.0, true, D::minimize,
       k_no_axis, usd_per_request, I},
      {"memory.per_gpu_bytes", "memory per GPU", "GB", 1e-9, true, D::minimize, k_no_axis, per_gpu_bytes, B},
      {"deployment.gpus", "GPUs", "GPUs", 1.0, true, D::minimize, k_no_axis, gpus, B},
      {"training.time_to_train_planning_s", "planned time to train", "h", 1.0 / 3600.0, true, D::minimize,
       k_no_axis, time_to_train, T},
      {"training.tokens_per_s", "training throughput", "tokens/s", 1.0, true, D::maximize, k_no_axis,
       training_tokens_per_s, T},
      {"training.mfu", "MFU", "%", 100.0, true, D::maximize, k_no_axis, mfu, T},
      {"cost.usd_total", "cost per run", "USD", 1.0, true, D::minimize, k_no_axis, usd_total, T},
      // Percentiles (methodology §3.1): what a p99 SLA judges, and the latency–load curve's axes.
      {"inference.ttft_p99_s", "TTFT p99", "ms", 1e3, true, D::minimize, k_no_axis, ttft_p99, I},
      {"inference.tpot_p99_s", "TPOT p99", "ms", 1e3, true, D::minimize, k_no_axis, tpot_p99, I},
      {"inference.e2e_p99_s", "end-to-end latency p99", "s", 1.0, true, D::minimize, k_no_axis, e2e_p99, I},
      // Goodput (methodology §6.1): the share of requests within every latency target, and their rate.
      {"inference.slo_attainment", "SLO attainment", "%", 100.0, true, D::maximize, k_no_axis, slo_attainment,
       I},
      {"inference.goodput_requests_per_s", "goodput", "requests/s", 1.0, true, D::maximize, k_no_axis,
       goodput_requests_per_s, I},
  };
  return metrics;
}

} // namespace

Metric find_metric(std::string_view name, const SweepPlan& plan, std::string_view flag) {
  const std::uint8_t mode = plan.training ? k_for_training : k_for_inference;
  if (name.empty()) { // the mode's default (docs/sweep.md "Plots")
    const bool x = flag == "--x";
    name = plan.training ? (x ? "training.time_to_train_planning_s" : "cost.usd_total")
                         : (x ? "inference.tpot_s" : "cost.usd_per_million_output_tokens_at_load");
  }
  for (const Metric& m : figure_metrics()) {
    if (m.name != name) continue;
    if ((m.modes & mode) == 0) {
      throw Error(ErrorKind::usage, std::string(flag), "",
                  fmt::format("\"{}\" is a figure of {} specs, and this is a {} spec (docs/sweep.md lists "
                              "the figures of each)",
                              name, plan.training ? "serving" : "training",
                              plan.training ? "training" : "serving"));
    }
    return m;
  }
  std::vector<std::string> names;
  for (const Metric& m : figure_metrics())
    if ((m.modes & mode) != 0) names.emplace_back(m.name);
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    const SweepAxis& axis = plan.axes[a];
    if (axis.key->name == name) {
      if (!axis.values.numeric) {
        throw Error(ErrorKind::usage, std::string(flag), "",
                    fmt::format("\"{}\" has non-numeric values and cannot be an axis", name));
      }
      Metric m;
      m.name = axis.key->name;
      m.label = axis.key->name;
      m.unit = "";
      m.has_direction = false;
      m.axis = a;
      return m;
    }
    if (axis.values.numeric) names.emplace_back(axis.key->name);
  }
  const std::string hint = did_you_mean(name, names);
  throw Error(ErrorKind::usage, std::string(flag), "",
              hint.empty() ? fmt::format("unknown figure \"{}\" (docs/sweep.md lists them)", name)
                           : fmt::format("unknown figure \"{}\"; did you mean \"{}\"?", name, hint));
}

bool is_latency(const Metric& m) {
  if (m.axis != k_no_axis) return false;
  switch (m.figure) {
  case ttft:
  case tpot:
  case e2e:
  case ttft_p99:
  case tpot_p99:
  case e2e_p99: return true;
  default: return false;
  }
}

bool is_arrival_rate(const Metric& m, const SweepPlan& plan) {
  if (m.axis >= plan.axes.size()) return false;
  const SweepField field = plan.axes[m.axis].key->field;
  return field == SweepField::request_rate_per_s || field == SweepField::sla_requests_per_s;
}

double metric_value(const Metric& m, const SweepPlan& plan, const PointResult& p) {
  if (m.axis < plan.axes.size()) return plan.axes[m.axis].values.numbers[p.digits[m.axis]];
  const double nan = std::nan("");
  if (!p.has_estimate()) return nan;
  if (plan.training) {
    const TrainingEstimate& t = p.training;
    switch (m.figure) {
    case usd_per_hour: return p.price_known ? t.usd_per_hour : nan;
    case per_gpu_bytes: return t.memory.per_gpu_bytes;
    case gpus: return static_cast<double>(p.deployment.gpus);
    case time_to_train: return t.time_to_train_planning_s;
    case training_tokens_per_s: return t.tokens_per_s;
    case mfu: return t.mfu;
    case usd_total: return p.price_known ? t.usd_total : nan;
    default: return nan;
    }
  }
  const InferenceEstimate& e = p.estimate;
  switch (m.figure) {
  case tpot: return e.tpot_s;
  case ttft: return e.overloaded ? nan : e.ttft_s; // unbounded: off any Pareto front
  case e2e: return e.overloaded ? nan : e.e2e_s;
  case ttft_p99: return e.overloaded ? nan : e.ttft.p99_s;
  case tpot_p99: return e.tpot.p99_s;
  case e2e_p99: return e.overloaded ? nan : e.e2e.p99_s;
  case slo_attainment: return p.slo_attainment;
  case goodput_requests_per_s: return p.goodput_requests_per_s;
  case output_tokens_per_s: return e.output_tokens_per_s;
  case requests_per_s: return e.requests_per_s;
  case usd_per_million:
    return p.price_known && p.at_load.served_requests_per_s > 0.0 ? p.at_load.usd_per_million_output_tokens
                                                                  : nan;
  case usd_per_million_capacity: return p.price_known ? e.usd_per_million_output_tokens : nan;
  case usd_per_hour: return p.price_known ? e.usd_per_hour : nan;
  case usd_per_request: return p.price_known ? e.usd_per_request : nan;
  case per_gpu_bytes: return e.memory.per_gpu_bytes;
  case gpus: return static_cast<double>(p.deployment.gpus);
  default: return nan;
  }
}

} // namespace rightsize::app
