#pragma once
// Training runs for `rightsize calibrate` (docs/calibration.md, "Training runs"): torchtitan's
// per-step metrics log lines and the documented training CSV -> checked StackRun values.
#include <string>
#include <vector>

#include "io/runs/bench_runs.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::io {

/// A training run as calibrate groups it: engine "training", its cases as given.
StackRun training_stack_run(std::string id, std::string gpu_id, ModelSpec model, std::string source,
                            std::vector<ValidationCase> cases);

/// The per-step metrics lines of a torchtitan log (torchtitan/components/metrics.py,
/// MetricsProcessor.log): "step: N  loss: L  [grad_norm: G  ]memory: M GiB(P%)  tps: T  tflops: F
/// mfu: U%", any prefix ("[rank0]:[titan] <time> - root - INFO - "), ANSI colours allowed. Other
/// lines, and "validate step:" lines, are skipped. A metrics line missing step, memory or tps, or
/// with a key torchtitan does not print, throws Error (input) naming "file:line" and the key.
std::vector<TrainingLogStep> parse_torchtitan_log(const std::string& text, const std::string& source);

/// One torchtitan log -> one training run: model, GPU, GPU count, layout, sequence length, global
/// batch and recompute from `context` (flags or manifest); warm-up lines dropped
/// (core::summarize_training_log). Whole-job tokens/s = mean tps (per GPU) x gpus.
StackRun load_torchtitan_log(const std::string& path, const RunContext& context,
                             const std::vector<Preset>& presets);

/// True when a .csv file's header names a "seq_len" column (the training CSV); the serving CSV
/// has none.
bool is_training_csv(const std::string& path);

/// The training CSV: columns model, gpu, gpus, tp, pp, dp, seq_len, global_batch, precision,
/// recompute, tokens_per_s_per_gpu and/or step_time_s (one per row), peak_memory_gib (may be
/// empty); optional id, framework, memory_scope. `source` names the file in messages.
std::vector<StackRun> parse_training_csv(const std::string& text, const std::string& source,
                                         const std::vector<Preset>& presets);

} // namespace rightsize::io
