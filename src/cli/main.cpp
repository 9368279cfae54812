// rightsize: GPU right-sizing advisor. main() sets up the process and hands the command line to
// run_command_line (command_line.cpp), the only place that chooses an exit code.
#include <cerrno>
#include <cstdio>
#include <string>

#include "cli/command_line.hpp"
#include <fcntl.h>
#include <unistd.h>

namespace {

// Writes one diagnostic to stderr and never throws: a stderr that cannot be written (2>/dev/full,
// 2>&-) loses the line, never the exit code (fmt::print(stderr, ...) would throw and abort).
void print_stderr(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
  (void)std::fflush(stderr);
}

// A descriptor 0-2 closed by the caller (2>&-) would be handed to the next file rightsize opens,
// and output meant for stdout or stderr would land in it. Park /dev/null there instead: stdin and
// stdout read-only (so writing the output fails and is reported), stderr write-only.
void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      (void)dup2(opened, fd);
      (void)close(opened);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  reserve_standard_descriptors();
  return rightsize::cli::run_command_line(argc, argv, print_stderr);
}
