#pragma once
// Files rightsize writes besides stdout (--plot, --emit --out): checked before any work is done,
// written atomically (a temp file in the same folder, then rename), never the file stdout goes to.
#include <string>
#include <vector>

#include "app/calibrate.hpp"

namespace rightsize::cli {

/// Flushes stdout and says whether writing it failed: 0 when it is fine, else the errno to report
/// (`known` when the caller caught one, else the one the failing write left, else EIO).
int stdout_write_error(int known = 0);

/// Throws an environment Error (exit 5) when stdout could not be written (stdout_write_error).
void check_stdout_written();

/// The files write_file_atomically wrote in this command (run_command_line clears the list), so a
/// failure after them says what was written (issue 42: exit 5 after an overlay or manifest).
std::vector<std::string>& written_paths();

/// "cannot write the output (REASON)", then the files already written ("; written before it
/// failed: \"PATH\"").
std::string stdout_failure_message(int error_number);

/// Throws a usage Error naming `flag` unless `path` can be written: not empty, its folder exists,
/// it is not a folder or a device, and it is not the file stdout is redirected to.
void check_output_path(const std::string& flag, const std::string& path);

/// Throws a usage Error naming `flag` when `path` is one of `inputs` (the same file under any
/// spelling): the write would replace an input of the command (issue 42: calibrate --out run.json).
void check_not_an_input(const std::string& flag, const std::string& path,
                        const std::vector<app::CalibrateInput>& inputs);

/// Writes `text` to `path` through a temp file and rename (an existing file is replaced whole or
/// not at all; a note says so). A failed write is an environment Error (exit 5) with the reason.
void write_file_atomically(const std::string& flag, const std::string& path, const std::string& text);

} // namespace rightsize::cli
