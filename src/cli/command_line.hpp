#pragma once
// The whole command line in one call: parse, dispatch, map errors to exit codes
// (include/rightsize/exit_codes.hpp). main() and the CLI fuzz targets (tests/fuzz) both go through it.
#include <string>

namespace rightsize::cli {

/// Writes one finished diagnostic block (one or more lines, each ending in '\n') to stderr; must not throw.
using DiagnosticWriter = void (*)(const std::string& text);

/// Runs rightsize on `argv` (argv[0] is the program) and returns the exit code. Errors go through
/// `print` as `rightsize: error: ...` lines; results go to stdout. Never throws.
int run_command_line(int argc, char** argv, DiagnosticWriter print);

} // namespace rightsize::cli
