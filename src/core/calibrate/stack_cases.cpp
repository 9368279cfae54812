// A user's runs as validation cases (docs/calibration.md): one case per figure a serving run or a
// training run measured, and a training log's steady-state summary (warm-up steps dropped).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "rightsize/stack_calibration.hpp"

namespace rightsize {

std::vector<ValidationCase> stack_cases(const StackRun& r) {
  if (!r.cases.empty()) return r.cases;
  ValidationCase base;
  base.model = r.model;
  base.precision = precision_of(r.run);
  base.gpu_id = r.run.gpu_id;
  base.deployment = deployment_of(r.run);
  base.workload.input_tokens = r.run.input_tokens;
  base.workload.output_tokens = r.run.output_tokens;
  base.workload.concurrency = r.run.concurrency;
  base.model_class = model_class_of(r.model);
  std::vector<ValidationCase> out;
  const auto push = [&](FigureKind kind, double measured) {
    if (!(measured > 0.0)) return;
    ValidationCase c = base;
    c.id = r.run.id + ":" + to_string(kind);
    c.kind = kind;
    c.measured = measured;
    out.push_back(std::move(c));
  };
  push(FigureKind::ttft, r.run.ttft_s);
  push(FigureKind::tpot, r.run.tpot_s);
  push(FigureKind::throughput, r.output_tokens_per_s);
  return out;
}

std::vector<ValidationCase> training_run_cases(const TrainingRunSpec& r) {
  ValidationCase base;
  base.model = r.model;
  base.precision = r.precision;
  base.gpu_id = r.gpu_id;
  base.deployment.gpus = r.gpus;
  base.deployment.tp = r.tp;
  base.deployment.pp = r.pp;
  base.training_seq_len = r.seq_len;
  base.training_global_batch = r.global_batch;
  base.training_recompute = r.recompute;
  base.training_framework = r.framework;
  base.model_class = model_class_of(r.model);
  std::vector<ValidationCase> out;
  const auto push = [&](FigureKind kind, double measured) {
    if (!(measured > 0.0)) return;
    ValidationCase c = base;
    c.id = r.id + ":" + to_string(kind);
    c.kind = kind;
    c.measured = measured;
    if (kind == FigureKind::training_memory) c.memory_scope = r.memory_scope;
    out.push_back(std::move(c));
  };
  push(FigureKind::training_throughput, r.tokens_per_s);
  push(FigureKind::training_memory, r.peak_memory_bytes);
  return out;
}

std::int64_t default_warmup_steps(std::int64_t last_step) {
  return std::max<std::int64_t>(1, (last_step + 9) / 10);
}

TrainingLogSummary summarize_training_log(const std::vector<TrainingLogStep>& steps,
                                          std::int64_t warmup_steps) {
  TrainingLogSummary out;
  std::int64_t last = 0;
  for (const TrainingLogStep& s : steps)
    last = std::max(last, s.step);
  out.warmup_through_step = warmup_steps >= 0 ? warmup_steps : default_warmup_steps(last);
  double tps_sum = 0.0;
  for (const TrainingLogStep& s : steps) {
    if (s.step <= out.warmup_through_step) {
      ++out.lines_dropped;
      continue;
    }
    ++out.lines_kept;
    tps_sum += s.tokens_per_s_per_gpu;
    // GiB = 2^30 bytes (torchtitan's DeviceMemoryMonitor._to_gib).
    out.peak_memory_reserved_bytes =
        std::max(out.peak_memory_reserved_bytes, s.memory_reserved_gib * 1024.0 * 1024.0 * 1024.0);
  }
  if (out.lines_kept > 0) out.tokens_per_s_per_gpu = tps_sum / out.lines_kept;
  return out;
}

} // namespace rightsize
