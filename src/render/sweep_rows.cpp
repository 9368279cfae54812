// Sweep row formatting (docs/sweep.md "Columns"). The hot path is csv_row/json_row: fmt::format_to
// into a reused buffer, pre-rendered cells for keys and GPU ids, no std::string per row.
#include "render/sweep_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/compile.h>
#include <nlohmann/json.hpp>

#include "io/json/json_text.hpp"
#include "render/number_text.hpp"
#include "render/render.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

using Buffer = fmt::memory_buffer;

// Integers into a local array and one append: fmt's iterator path pushes one char at a time.
void put_int(Buffer& out, std::int64_t value) {
  char text[24];
  out.append(text, write_int(text, value));
}

bool needs_csv_quotes(const Buffer& b, std::size_t from) {
  return std::any_of(b.data() + from, b.data() + b.size(),
                     [](char c) { return c == ',' || c == '"' || c == '\n' || c == '\r'; });
}

} // namespace

const std::vector<std::string_view>& sweep_figure_columns() {
  static const std::vector<std::string_view> columns = {"deployment.gpu",
                                                        "deployment.gpus",
                                                        "deployment.tp",
                                                        "deployment.pp",
                                                        "deployment.ep",
                                                        "deployment.attention_dp",
                                                        "deployment.replicas",
                                                        "memory.per_gpu_bytes",
                                                        "memory.usable_per_gpu_bytes",
                                                        "memory.weights_bytes",
                                                        "memory.kv_cache_bytes",
                                                        "memory.fits",
                                                        "inference.concurrency",
                                                        "inference.max_concurrency",
                                                        "inference.ttft_s",
                                                        "inference.tpot_s",
                                                        "inference.e2e_s",
                                                        "inference.ttft_p99_s",
                                                        "inference.tpot_p99_s",
                                                        "inference.e2e_p99_s",
                                                        "inference.output_tokens_per_s",
                                                        "inference.requests_per_s",
                                                        "inference.goodput_requests_per_s",
                                                        "inference.slo_attainment",
                                                        "inference.bound",
                                                        "cost.gpus_billed",
                                                        "cost.usd_per_hour",
                                                        "cost.usd_per_million_output_tokens_at_capacity",
                                                        "cost.usd_per_request_at_capacity",
                                                        "cost.usd_per_million_output_tokens_at_load",
                                                        "status"};
  return columns;
}

void append_number(Buffer& out, double value) {
  char text[32];
  out.append(text, write_number(text, value));
}

void append_status(Buffer& out, const SweepPlan& plan, const PointResult& p) {
  auto it = fmt::appender(out);
  switch (p.issue) {
  case PointIssue::none: break;
  case PointIssue::max_context:
    fmt::format_to(
        it,
        FMT_COMPILE("invalid_workload: max_context {} is below the longest request's input + output ({})"),
        p.issue_value, p.issue_limit);
    return;
  case PointIssue::context_window:
    fmt::format_to(it,
                   FMT_COMPILE("invalid_workload: context {} tokens exceeds the model's window of {} "
                               "(model.max_position)"),
                   p.issue_value, p.issue_limit);
    return;
  case PointIssue::layout_gpus:
    fmt::format_to(it, FMT_COMPILE("layout: tp x pp ({}) does not divide gpus ({})"), p.issue_value,
                   p.issue_limit);
    return;
  case PointIssue::layout_heads:
    fmt::format_to(it, FMT_COMPILE("layout: tp {} does not divide the {} attention heads"), p.issue_value,
                   p.issue_limit);
    return;
  case PointIssue::layout_whole:
    fmt::format_to(it, FMT_COMPILE("layout: a UNet runs whole on one GPU per replica, not {}"),
                   p.issue_value);
    return;
  case PointIssue::layout_dense:
    fmt::format_to(it,
                   FMT_COMPILE("layout: {} {} on a dense model (expert parallelism and attention DP need "
                               "MoE experts)"),
                   p.issue_limit == 0 ? "ep" : "attention_dp", p.issue_value);
    return;
  case PointIssue::layout_ep:
    if (p.issue_limit > 0) {
      fmt::format_to(it, FMT_COMPILE("layout: ep {} exceeds the {} GPUs of one replica"), p.issue_value,
                     p.issue_limit);
    } else {
      fmt::format_to(it,
                     FMT_COMPILE("layout: ep {} fits no replica (experts split over one replica's TP group "
                                 "or attention-DP ranks)"),
                     p.issue_value);
    }
    return;
  case PointIssue::no_layout:
    if (p.issue_limit > 0) {
      fmt::format_to(it, FMT_COMPILE("layout: no replica layout within the search limits divides gpus ({})"),
                     p.issue_limit);
    } else {
      put(out, "layout: no replica layout to evaluate");
    }
    return;
  case PointIssue::no_gpu: put(out, "no_gpu: no GPU given for this point"); return;
  case PointIssue::micro_batch:
    fmt::format_to(it, FMT_COMPILE("invalid_workload: micro_batch {} exceeds global_batch {}"), p.issue_value,
                   p.issue_limit);
    return;
  }
  if (p.rejection.term == Term::none) {
    put(out, "ok");
    return;
  }
  put(out, reason_code(p.rejection.term));
  put(out, ": ");
  if (plan.training) {
    append_training_rejection(out, p.rejection);
  } else {
    append_rejection(out, p.rejection, p.estimate.concurrency);
  }
}

std::string csv_cell(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out(1, '"');
  for (const char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

void append_json_string(Buffer& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(fmt::appender(out), FMT_COMPILE("\\u{:04x}"), static_cast<unsigned>(c));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

std::string axis_csv_cell(const SweepAxis& axis, std::size_t i) {
  return csv_cell(axis.values.texts[i]);
}

std::string axis_json_value(const SweepAxis& axis, std::size_t i) {
  const std::string& text = axis.values.texts[i];
  const bool number = axis.key->field != SweepField::gpu && number_of(text);
  return number ? text : io::json_text(nlohmann::json(text), -1);
}

RowWriter::RowWriter(const SweepPlan& plan, Format format, std::string spec_name, std::string pareto_label)
    : m_plan(&plan), m_format(format), m_spec_name(std::move(spec_name)),
      m_pareto_label(std::move(pareto_label)) {
  for (const Gpu& g : plan.gpus) {
    m_gpu_csv.push_back(csv_cell(g.id));
    Buffer b;
    append_json_string(b, g.id);
    m_gpu_json.push_back(fmt::to_string(b));
  }
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    m_sorted_axes.push_back(a);
    Buffer b;
    append_json_string(b, plan.axes[a].key->name);
    b.push_back(':');
    m_axis_json_keys.push_back(fmt::to_string(b));
    std::vector<std::string>& csv = m_axis_csv.emplace_back();
    std::vector<std::string>& json = m_axis_json.emplace_back();
    for (std::size_t i = 0; i < plan.axes[a].values.texts.size(); ++i) {
      csv.push_back(axis_csv_cell(plan.axes[a], i));
      json.push_back(axis_json_value(plan.axes[a], i));
    }
  }
  std::sort(m_sorted_axes.begin(), m_sorted_axes.end(),
            [&](std::size_t x, std::size_t y) { return plan.axes[x].key->name < plan.axes[y].key->name; });
}

void RowWriter::header(Buffer& out) const {
  if (m_format == Format::csv) {
    bool first = true;
    for (const auto& axis : m_plan->axes) {
      put(out, first ? "" : ",");
      put(out, axis.key->name);
      first = false;
    }
    for (const auto column : m_plan->training ? sweep_training_columns() : sweep_figure_columns()) {
      put(out, first ? "" : ",");
      put(out, column);
      first = false;
    }
    out.push_back('\n');
  } else if (m_format == Format::json) {
    put(out, "{");
    if (!m_plan->calibration_overlay_label.empty()) {
      put(out, "\"calibration\": ");
      append_json_string(out, m_plan->calibration_overlay_label);
      put(out, ", ");
    }
    put(out, "\"keys\": [");
    for (std::size_t a = 0; a < m_plan->axes.size(); ++a) {
      put(out, a == 0 ? "" : ", ");
      append_json_string(out, m_plan->axes[a].key->name);
    }
    put(out, "], \"mode\": ");
    put(out, m_plan->mode == SweepMode::estimate ? "\"estimate\"" : "\"recommend\"");
    put(out, ", \"pareto\": ");
    put(out, m_pareto_label.empty() ? "null" : m_pareto_label);
    put(out, ", \"points\": [");
  }
}

void RowWriter::footer(Buffer& out) const {
  if (m_format != Format::json) return;
  put(out, "\n], \"schema_version\": ");
  fmt::format_to(fmt::appender(out), FMT_COMPILE("{}"), k_output_schema_version);
  put(out, ", \"spec\": ");
  append_json_string(out, m_spec_name);
  put(out, "}\n");
}

void RowWriter::row(Buffer& out, const PointResult& point, bool first) const {
  if (m_format == Format::csv) {
    csv_row(out, point);
    return;
  }
  if (m_format == Format::json) put(out, first ? "\n" : ",\n");
  json_row(out, point);
  if (m_format == Format::jsonl) out.push_back('\n');
}

// The figure cells after the GPU id, each followed by its comma: written through a raw pointer into
// room reserved once (no capacity check or copy call per cell; the hot path of a CSV sweep).
namespace {
void figure_cells(Buffer& out, const PointResult& p) {
  constexpr std::size_t k_max_chars = 1024; // 34 cells of at most 24 characters and their commas
  const Deployment& d = p.deployment;
  const InferenceEstimate& e = p.estimate;
  const MemoryEstimate& m = e.memory;
  const std::size_t start = out.size();
  out.reserve(start + k_max_chars);
  char* const base = out.data() + start;
  char* w = base;
  const auto text = [&w](std::string_view t) { w = std::copy(t.begin(), t.end(), w); };
  for (const int v : {d.gpus, d.tp, d.pp, d.ep, d.attention_dp, d.replicas()}) {
    *w++ = ',';
    w = write_int(w, v);
  }
  for (const double v : {m.per_gpu_bytes, m.usable_per_gpu_bytes, m.weights_bytes, m.kv_cache_bytes}) {
    *w++ = ',';
    // Past int64 a count is written in exponent form rather than wrapped (issue 22 item 2).
    if (std::fabs(v) < 9.2e18) {
      w = write_int(w, std::llround(v));
    } else {
      text(text_bytes(v));
    }
  }
  text(m.fits ? ",true," : ",false,");
  w = write_int(w, e.concurrency);
  *w++ = ',';
  w = write_int(w, e.max_concurrency);
  *w++ = ',';
  // An overloaded open loop's TTFT and end-to-end are unbounded: empty, not the core's stand-in.
  const double unbounded = std::nan("");
  for (const double v :
       {e.overloaded ? unbounded : e.ttft_s, e.tpot_s, e.overloaded ? unbounded : e.e2e_s,
        e.overloaded ? unbounded : e.ttft.p99_s, e.tpot.p99_s, e.overloaded ? unbounded : e.e2e.p99_s,
        e.output_tokens_per_s, e.requests_per_s, p.has_goodput ? p.goodput_requests_per_s : unbounded,
        p.has_goodput ? p.slo_attainment : unbounded}) {
    w = write_number(w, v);
    *w++ = ',';
  }
  text(to_string(e.bound));
  *w++ = ','; // whole instances billed (docs/methodology.md "Whole instances")
  w = write_int(w, e.bill.gpus_billed);
  for (const double v : {e.usd_per_hour, e.usd_per_million_output_tokens, e.usd_per_request}) {
    *w++ = ',';
    if (p.price_known) w = write_number(w, v);
  }
  *w++ = ','; // a point that serves no load has no cost at load (empty, not 0)
  if (p.price_known && p.at_load.served_requests_per_s > 0.0)
    w = write_number(w, p.at_load.usd_per_million_output_tokens);
  *w++ = ',';
  out.resize(start + static_cast<std::size_t>(w - base));
}
} // namespace

void RowWriter::csv_row(Buffer& out, const PointResult& p) const {
  if (m_plan->training) {
    training_csv_row(out, p);
    return;
  }
  for (std::size_t a = 0; a < m_plan->axes.size(); ++a) {
    put(out, m_axis_csv[a][p.digits[a]]);
    out.push_back(',');
  }
  if (p.has_estimate()) {
    put(out, m_gpu_csv[p.gpu]);
    figure_cells(out, p);
  } else {
    for (std::size_t c = 1; c < sweep_figure_columns().size(); ++c)
      out.push_back(','); // empty but status
  }
  const std::size_t start = out.size();
  append_status(out, *m_plan, p);
  if (needs_csv_quotes(out, start)) {
    // Quote in place (RFC 4180): the status never holds '"' but a comma is common.
    out.push_back('"');
    std::copy_backward(out.data() + start, out.data() + out.size() - 1, out.data() + out.size());
    out.data()[start] = '"';
    out.push_back('"');
  }
  out.push_back('\n');
}

void RowWriter::json_row(Buffer& out, const PointResult& p) const {
  if (m_plan->training) {
    training_json_row(out, p);
    return;
  }
  auto it = fmt::appender(out);
  auto number = [&](std::string_view key, double v) {
    put(out, key);
    if (std::isfinite(v)) {
      append_number(out, v);
    } else {
      put(out, "null");
    }
  };
  if (p.has_estimate()) {
    const Deployment& d = p.deployment;
    const InferenceEstimate& e = p.estimate;
    const MemoryEstimate& m = e.memory;
    put(out, "{\"cost\": {\"gpus_billed\": "); // keys sorted, as every JSON output
    put_int(out, e.bill.gpus_billed);
    put(out, ", \"price_known\": ");
    put(out, p.price_known ? "true" : "false");
    const double unknown = std::nan("");
    number(", \"usd_per_hour\": ", p.price_known ? e.usd_per_hour : unknown);
    number(", \"usd_per_million_output_tokens_at_capacity\": ",
           p.price_known ? e.usd_per_million_output_tokens : unknown);
    number(", \"usd_per_million_output_tokens_at_load\": ",
           p.price_known && p.at_load.served_requests_per_s > 0.0 ? p.at_load.usd_per_million_output_tokens
                                                                  : unknown);
    number(", \"usd_per_request_at_capacity\": ", p.price_known ? e.usd_per_request : unknown);
    fmt::format_to(it,
                   FMT_COMPILE("}}, \"deployment\": {{\"attention_dp\": {}, \"ep\": {}, \"gpu\": {}, "
                               "\"gpus\": {}, \"pp\": {}, \"replicas\": {}, \"tp\": {}}}"),
                   d.attention_dp, d.ep, m_gpu_json[p.gpu], d.gpus, d.pp, d.replicas(), d.tp);
    fmt::format_to(it, FMT_COMPILE(", \"inference\": {{\"bound\": \"{}\", \"concurrency\": {}"),
                   to_string(e.bound), e.concurrency);
    // Unbounded when overloaded: null, not the core's stand-in.
    number(", \"e2e_p99_s\": ", e.overloaded ? unknown : e.e2e.p99_s);
    number(", \"e2e_s\": ", e.overloaded ? unknown : e.e2e_s);
    number(", \"goodput_requests_per_s\": ", p.has_goodput ? p.goodput_requests_per_s : unknown);
    fmt::format_to(it, FMT_COMPILE(", \"max_concurrency\": {}"), e.max_concurrency);
    number(", \"output_tokens_per_s\": ", e.output_tokens_per_s);
    number(", \"requests_per_s\": ", e.requests_per_s);
    number(", \"slo_attainment\": ", p.has_goodput ? p.slo_attainment : unknown);
    number(", \"tpot_p99_s\": ", e.tpot.p99_s);
    number(", \"tpot_s\": ", e.tpot_s);
    number(", \"ttft_p99_s\": ", e.overloaded ? unknown : e.ttft.p99_s);
    number(", \"ttft_s\": ", e.overloaded ? unknown : e.ttft_s);
    fmt::format_to(
        it, FMT_COMPILE("}}, \"memory\": {{\"fits\": {}, \"kv_cache_bytes\": {}, \"per_gpu_bytes\": {}, "),
        m.fits, text_bytes(m.kv_cache_bytes), text_bytes(m.per_gpu_bytes));
    fmt::format_to(it, FMT_COMPILE("\"usable_per_gpu_bytes\": {}, \"weights_bytes\": {}}}"),
                   text_bytes(m.usable_per_gpu_bytes), text_bytes(m.weights_bytes));
  } else {
    put(out, "{\"cost\": null, \"deployment\": null, \"inference\": null, \"memory\": null");
  }
  json_point_and_status(out, p);
  put(out, "}");
}

// `, "point": {...}, "status": "..."` of a JSON row.
void RowWriter::json_point_and_status(Buffer& out, const PointResult& p) const {
  put(out, ", \"point\": {");
  for (std::size_t i = 0; i < m_sorted_axes.size(); ++i) {
    const std::size_t a = m_sorted_axes[i];
    if (i > 0) put(out, ", ");
    put(out, m_axis_json_keys[a]);
    out.push_back(' ');
    put(out, m_axis_json[a][p.digits[a]]);
  }
  put(out, "}, \"status\": \"");
  append_status(out, *m_plan, p); // plain ASCII words without quotes or backslashes
  put(out, "\"");
}

} // namespace rightsize::cli
