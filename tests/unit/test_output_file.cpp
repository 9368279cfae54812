// cli/output_file: a stdout failure after a file was written says which files were written.
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli/output_file.hpp"
#include <unistd.h>

using namespace rightsize::cli;

TEST_CASE("a stdout failure names the files written before it", "[cli][output]") {
  written_paths().clear();
  CHECK(stdout_failure_message(ENOSPC) == "cannot write the output (No space left on device)");
  const std::string path =
      (std::filesystem::temp_directory_path() / ("rightsize-written-" + std::to_string(::getpid()) + ".txt"))
          .string();
  write_file_atomically("--out", path, "x\n");
  REQUIRE(written_paths().size() == 1);
  CHECK(stdout_failure_message(ENOSPC) ==
        "cannot write the output (No space left on device); written before it failed: \"" + path + "\"");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "x");
  std::filesystem::remove(path);
  written_paths().clear();
}
