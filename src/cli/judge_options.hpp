#pragma once
// --confidence and --headroom, shared by every command that judges a deployment (estimate, check,
// recommend, sweep): one rule for the load, whichever command judges it.
#include <string>

#include <CLI/CLI.hpp>

#include "app/environment.hpp"
#include "rightsize/judge.hpp"

namespace rightsize::cli {

struct JudgeOptions {
  std::string confidence = "p90"; ///< --confidence p50|p90 (docs/cli.md)
  double headroom = -1.0;         ///< --headroom over the peak load; negative = the default (0.2)
};
void add_judge_options(CLI::App* command, JudgeOptions& options);
/// The parsed level; a bad value is a usage error naming --confidence.
Confidence confidence_of(const JudgeOptions& options);
/// The same, its error raised only when the use case reads it (estimate judges inference specs only).
app::Deferred<Confidence> deferred_confidence(const JudgeOptions& options);
/// --headroom, checked (0 to 10, a usage error naming it otherwise); negative = the default.
double headroom_of(const JudgeOptions& options);

} // namespace rightsize::cli
