// A training spec's sweep rows (docs/sweep.md "Training specs"): the run's GPUs and layout, memory,
// throughput, MFU, planned time, cost per run and the end of its band it was judged at, as CSV and
// JSON. Not the hot path of estimate sweeps: each training point is a layout search.
#include <cmath>

#include <fmt/format.h>

#include "render/render.hpp"
#include "render/sweep_rows.hpp"
#include "render/training_render.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

using Buffer = fmt::memory_buffer;

void append_view(Buffer& out, std::string_view text) {
  out.append(text.data(), text.data() + text.size());
}

// A JSON number, or null when not finite (no price).
void json_or_null(Buffer& out, std::string_view key, double value) {
  append_view(out, key);
  if (std::isfinite(value)) {
    append_number(out, value);
  } else {
    append_view(out, "null");
  }
}

} // namespace

const std::vector<std::string_view>& sweep_training_columns() {
  static const std::vector<std::string_view> columns = {"deployment.gpu",
                                                        "deployment.gpus",
                                                        "deployment.tp",
                                                        "deployment.pp",
                                                        "deployment.ep",
                                                        "training.layout",
                                                        "memory.per_gpu_bytes",
                                                        "memory.usable_per_gpu_bytes",
                                                        "memory.fits",
                                                        "training.tokens_per_s",
                                                        "training.mfu",
                                                        "training.step_time_s",
                                                        "training.time_to_train_planning_s",
                                                        "training.bound",
                                                        "cost.gpus_billed",
                                                        "cost.usd_per_hour",
                                                        "cost.usd_total",
                                                        "judged.throughput_low_ratio",
                                                        "judged.time_to_train_planning_s",
                                                        "judged.usd_total",
                                                        "status"};
  return columns;
}

void RowWriter::training_csv_row(Buffer& out, const PointResult& p) const {
  for (std::size_t a = 0; a < m_plan->axes.size(); ++a) {
    append_view(out, m_axis_csv[a][p.digits[a]]);
    out.push_back(',');
  }
  if (p.has_estimate()) {
    const TrainingEstimate& t = p.training;
    const MemoryEstimate& m = t.memory;
    append_view(out, m_gpu_csv[p.gpu]);
    fmt::format_to(fmt::appender(out), ",{},{},{},{},{},{},{},{},", t.gpus, t.layout.tp, t.layout.pp,
                   t.layout.ep, csv_cell(training_layout_label(t.layout)), text_bytes(m.per_gpu_bytes),
                   text_bytes(m.usable_per_gpu_bytes), m.fits ? "true" : "false");
    for (const double v : {t.tokens_per_s, t.mfu, t.step_time_s, t.time_to_train_planning_s}) {
      append_number(out, v);
      out.push_back(',');
    }
    fmt::format_to(fmt::appender(out), "{},{},", to_string(t.bound), t.bill.gpus_billed);
    if (p.price_known) append_number(out, t.usd_per_hour);
    out.push_back(',');
    if (p.price_known) append_number(out, t.usd_total);
    out.push_back(',');
    const JudgedRun judged = judged_run(t, p.throughput_low);
    append_number(out, p.throughput_low);
    out.push_back(',');
    append_number(out, judged.time_to_train_planning_s);
    out.push_back(',');
    if (p.price_known) append_number(out, judged.usd_total);
    out.push_back(',');
  } else {
    for (std::size_t c = 1; c < sweep_training_columns().size(); ++c)
      out.push_back(','); // empty but status
  }
  Buffer status;
  append_status(status, *m_plan, p);
  append_view(out, csv_cell(std::string_view(status.data(), status.size())));
  out.push_back('\n');
}

void RowWriter::training_json_row(Buffer& out, const PointResult& p) const {
  auto it = fmt::appender(out);
  const double unknown = std::nan("");
  if (p.has_estimate()) {
    const TrainingEstimate& t = p.training;
    const MemoryEstimate& m = t.memory;
    fmt::format_to(it, "{{\"cost\": {{\"gpus_billed\": {}, \"price_known\": {}", t.bill.gpus_billed,
                   p.price_known);
    json_or_null(out, ", \"usd_per_hour\": ", p.price_known ? t.usd_per_hour : unknown);
    json_or_null(out, ", \"usd_total\": ", p.price_known ? t.usd_total : unknown);
    fmt::format_to(it,
                   "}}, \"deployment\": {{\"ep\": {}, \"gpu\": {}, \"gpus\": {}, \"pp\": {}, \"tp\": {}}}",
                   t.layout.ep, m_gpu_json[p.gpu], t.gpus, t.layout.pp, t.layout.tp);
    const JudgedRun judged = judged_run(t, p.throughput_low);
    json_or_null(out, ", \"judged\": {\"throughput_low_ratio\": ", p.throughput_low);
    json_or_null(out, ", \"time_to_train_planning_s\": ", judged.time_to_train_planning_s);
    json_or_null(out, ", \"usd_total\": ", p.price_known ? judged.usd_total : unknown);
    fmt::format_to(it,
                   "}}, \"memory\": {{\"fits\": {}, \"per_gpu_bytes\": {}, \"usable_per_gpu_bytes\": {}}}",
                   m.fits, text_bytes(m.per_gpu_bytes), text_bytes(m.usable_per_gpu_bytes));
  } else {
    append_view(out, "{\"cost\": null, \"deployment\": null, \"judged\": null, \"memory\": null");
  }
  json_point_and_status(out, p);
  if (p.has_estimate()) {
    const TrainingEstimate& t = p.training;
    fmt::format_to(it, ", \"training\": {{\"bound\": \"{}\", \"layout\": ", to_string(t.bound));
    append_json_string(out, training_layout_label(t.layout));
    json_or_null(out, ", \"mfu\": ", t.mfu);
    json_or_null(out, ", \"step_time_s\": ", t.step_time_s);
    json_or_null(out, ", \"time_to_train_planning_s\": ", t.time_to_train_planning_s);
    json_or_null(out, ", \"tokens_per_s\": ", t.tokens_per_s);
    append_view(out, "}}");
  } else {
    append_view(out, ", \"training\": null}");
  }
}

} // namespace rightsize::cli
