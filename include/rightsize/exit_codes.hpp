#pragma once
// The process exit codes of the rightsize CLI. Documented in docs/cli.md; only run_command_line
// (src/cli/command_line.cpp) chooses them.

namespace rightsize {

enum class ExitCode : int {
  ok = 0,          ///< success
  not_met = 1,     ///< ran fine, but no candidate meets the requirements (or `check` failed)
  usage = 2,       ///< bad command line
  bad_input = 3,   ///< bad spec, catalog, config or checkpoint file
  internal = 4,    ///< a bug in rightsize
  environment = 5, ///< the environment failed: stdout or an output file could not be written
};

} // namespace rightsize
