#pragma once
// --confidence and --headroom, shared by every command that judges a deployment (estimate, check,
// recommend, sweep): one rule for the load, whichever command judges it.
#include <string>

#include <CLI/CLI.hpp>

#include "cli/catalog_setup.hpp"
#include "rightsize/judge.hpp"

namespace rightsize::cli {

struct JudgeOptions {
  std::string confidence = "p90"; ///< --confidence p50|p90 (docs/cli.md)
  double headroom = -1.0;         ///< --headroom over the peak load; negative = the default (0.2)
};
void add_judge_options(CLI::App* command, JudgeOptions& options);
/// The parsed level; a bad value is a usage error naming --confidence.
Confidence confidence_of(const JudgeOptions& options);
/// A warning when --headroom was given for a training spec, which has no serving load to add it to.
void warn_unused_headroom(const JudgeOptions& options, const Spec& spec);
using app::band_calibration;

} // namespace rightsize::cli
