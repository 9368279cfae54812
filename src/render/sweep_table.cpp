// Table cells of sweep rows (the terminal format): human units via the shared format_* helpers.
#include <fmt/format.h>

#include "render/render.hpp"
#include "render/sweep_rows.hpp"
#include "render/training_render.hpp"

namespace rightsize::cli {

std::vector<std::string> sweep_table_headers(const SweepPlan& plan) {
  std::vector<std::string> headers;
  for (const auto& axis : plan.axes)
    headers.emplace_back(axis.key->name);
  if (plan.training) { // as recommend's training table names them
    for (const char* h : {"GPU", "gpus", "layout", "MFU", "tok/s", "time", "$/run", "mem/GPU", "status"})
      headers.emplace_back(h);
    return headers;
  }
  // Named as recommend names them: throughput at capacity, cost over the load served.
  for (const char* h :
       {"GPU", "layout", "conc", "TTFT", "TPOT", "capacity tok/s", "$/1M served", "mem/GPU", "status"}) {
    headers.emplace_back(h);
  }
  return headers;
}

std::vector<std::string> sweep_table_cells(const SweepPlan& plan, const PointResult& p) {
  std::vector<std::string> cells;
  for (std::size_t a = 0; a < plan.axes.size(); ++a)
    cells.push_back(plan.axes[a].values.texts[p.digits[a]]);
  if (plan.training && p.has_estimate()) {
    const TrainingEstimate& t = p.training;
    cells.push_back(plan.gpus[p.gpu].id);
    cells.push_back(format_count(t.gpus));
    cells.push_back(training_layout_label(t.layout));
    cells.push_back(fmt::format("{:.1f}%", t.mfu * 100.0));
    cells.push_back(format_count(t.tokens_per_s));
    cells.push_back(format_hours(t.time_to_train_planning_s));
    cells.push_back(p.price_known ? format_usd_total(t.usd_total) : std::string("n/a"));
    cells.push_back(format_gb(t.memory.per_gpu_bytes));
  } else if (p.has_estimate()) {
    const InferenceEstimate& e = p.estimate;
    cells.push_back(plan.gpus[p.gpu].id);
    std::string layout = layout_label(p.deployment);
    if (p.deployment.replicas() > 1) layout = fmt::format("{} x{}", layout, p.deployment.replicas());
    cells.push_back(layout);
    cells.push_back(format_count(static_cast<double>(e.concurrency)));
    cells.push_back(format_wait(e, e.ttft_s));
    cells.push_back(format_ms(e.tpot_s));
    // An open loop serves its arrival rate; its capacity is the closed-loop figure it is judged by.
    cells.push_back(format_count(e.capacity_output_tokens_per_s));
    cells.push_back(!p.price_known ? std::string("n/a")
                    : p.at_load.served_requests_per_s <= 0.0
                        ? std::string("-")
                        : fmt::format("${:.3f}", p.at_load.usd_per_million_output_tokens));
    cells.push_back(format_gb(e.memory.per_gpu_bytes));
  } else {
    cells.insert(cells.end(), 8, "-");
  }
  fmt::memory_buffer status;
  append_status(status, plan, p);
  cells.push_back(fmt::to_string(status));
  return cells;
}

} // namespace rightsize::cli
