#include "cli/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "io/json/json_reader.hpp"
#include "rightsize/error.hpp"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rightsize::cli {
namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& message) {
  throw Error(ErrorKind::usage, flag, "", message);
}

} // namespace

int stdout_write_error(int known) {
  const int before = errno; // what the failing buffered write (fputs, fwrite) left, if it failed
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int flush_errno = errno;
  if (!flush_failed && std::ferror(stdout) == 0) return 0;
  if (known != 0) return known;
  if (flush_failed && flush_errno != 0) return flush_errno;
  // Only an errno a write can give is trusted from before; anything else would mislead.
  switch (before) {
  case ENOSPC:
  case EPIPE:
  case EBADF:
  case EFBIG:
  case EDQUOT:
  case EIO: return before;
  default: return EIO;
  }
}

// ".tmp-", the process id (at most 7 digits: Linux's pid_max is at most 2^22) and "-" with a try
// number of at most 2 digits.
constexpr std::size_t k_temp_suffix_bytes = 16;

std::vector<std::string>& written_paths() {
  static std::vector<std::string> paths;
  return paths;
}

std::string stdout_failure_message(int error_number) {
  std::string out = fmt::format("cannot write the output ({})", std::strerror(error_number));
  const std::vector<std::string>& written = written_paths();
  for (std::size_t i = 0; i < written.size(); ++i)
    out += fmt::format("{}\"{}\"", i == 0 ? "; written before it failed: " : ", ", written[i]);
  return out;
}

void check_stdout_written() {
  if (const int failed = stdout_write_error(); failed != 0)
    throw Error(ErrorKind::environment, "<stdout>", "", stdout_failure_message(failed));
}

void check_output_path(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) refuse(flag, "expected a file path, got an empty string");
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    refuse(flag, fmt::format("cannot write \"{}\": the folder \"{}\" does not exist", path, folder.string()));
  }
  struct stat file {};
  if (::stat(path.c_str(), &file) == 0) {
    if (S_ISDIR(file.st_mode)) refuse(flag, fmt::format("cannot write \"{}\": it is a folder", path));
    if (!S_ISREG(file.st_mode)) {
      refuse(flag,
             fmt::format("cannot write \"{}\": expected a regular file, got a pipe, socket or device", path));
    }
    struct stat out {};
    if (::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == file.st_dev && out.st_ino == file.st_ino) {
      refuse(flag, fmt::format("cannot write \"{}\": it is the file stdout goes to", path));
    }
  }
  // write_file_atomically writes "<name>.tmp-<pid>-<n>" first: with room for that suffix the name must
  // fit the folder's limit on one name (pathconf _PC_NAME_MAX, POSIX; 255 where unknown), or the
  // write would fail only after the work (found by fuzz_cli_files).
  const long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const std::size_t name_bytes = target.filename().string().size();
  if (name_bytes + k_temp_suffix_bytes > static_cast<std::size_t>(name_max > 0 ? name_max : 255)) {
    refuse(flag, fmt::format("cannot write \"{}\": the file name is {} bytes, past the folder's limit on a "
                             "name (with {} bytes of room for the temporary file written first)",
                             path, name_bytes, k_temp_suffix_bytes));
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    refuse(flag,
           fmt::format("cannot write \"{}\": the folder \"{}\" is not writable", path, folder.string()));
  }
}

void check_not_an_input(const std::string& flag, const std::string& path,
                        const std::vector<app::CalibrateInput>& inputs) {
  for (const app::CalibrateInput& input : inputs) {
    if (!io::same_file(path, input.path)) continue;
    refuse(flag, fmt::format("\"{}\" is {}: writing there would replace an input; write to another file",
                             path, input.what));
  }
}

namespace {

// Creates the temporary file beside `path` for writing: "<path>.tmp-<pid>-<n>", opened with O_EXCL
// and O_NOFOLLOW so that nothing planted at that name (a symbolic link into another file, a file
// of someone else's) is followed or reused; a taken name tries the next n (open(2), POSIX.1-2017).
// Returns the descriptor and sets `temp`, or -1 with errno set.
int create_temp(const std::string& path, std::string& temp) {
  for (int n = 0; n < 100; ++n) {
    temp = fmt::format("{}.tmp-{}-{}", path, static_cast<long>(::getpid()), n);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Writes all of `text` to `fd`; false with errno set when a write fails.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

} // namespace

void write_file_atomically(const std::string& flag, const std::string& path, const std::string& text) {
  std::string temp;
  const int fd = create_temp(path, temp);
  const auto fail = [&](int error_number, bool created) {
    if (created) (void)::unlink(temp.c_str());
    throw Error(
        ErrorKind::environment, flag, "",
        fmt::format("cannot write \"{}\": {}", path, std::strerror(error_number != 0 ? error_number : EIO)));
  };
  if (fd < 0) fail(errno, false);
  if (!write_all(fd, text)) {
    const int error_number = errno;
    (void)::close(fd);
    fail(error_number, true);
  }
  if (::close(fd) != 0) fail(errno, true);
  struct stat existing {};
  const bool replacing = ::lstat(path.c_str(), &existing) == 0;
  if (std::rename(temp.c_str(), path.c_str()) != 0) fail(errno, true);
  written_paths().push_back(path);
  if (replacing) note("{}: replaced the existing file \"{}\"", flag, path); // never silently
}

} // namespace rightsize::cli
