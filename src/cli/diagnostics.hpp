#pragma once
// The one diagnostics channel (docs/cli.md "Errors and warnings"): warnings, notes and --verbose
// traces go through one spdlog logger to stderr as `rightsize: warning: ...`, `rightsize: note: ...`,
// `rightsize: trace: ...`. Results never go here; errors keep their single line from main.
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace rightsize::cli {

/// How much goes to stderr besides errors: quiet = errors only, normal = + warnings and notes,
/// verbose = + the search trace and time per stage.
enum class Verbosity { quiet, normal, verbose };

/// Sets up the logger. `--verbose` / `--quiet` win over $RIGHTSIZE_LOG (quiet|normal|verbose);
/// an unknown value of the variable is ignored with a warning.
void init_diagnostics(Verbosity from_flags, bool flags_given);

/// The logger (initialised on first use with normal verbosity).
spdlog::logger& diagnostics();

template <typename... Args> void warn(fmt::format_string<Args...> format, Args&&... args) {
  diagnostics().warn(fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args> void note(fmt::format_string<Args...> format, Args&&... args) {
  diagnostics().info(fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args> void trace(fmt::format_string<Args...> format, Args&&... args) {
  if (diagnostics().should_log(spdlog::level::debug)) {
    diagnostics().debug(fmt::format(format, std::forward<Args>(args)...));
  }
}

/// Wall time of one stage, traced with --verbose when it ends ("time: search 12.3 ms").
class StageTimer {
public:
  explicit StageTimer(std::string_view stage);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

private:
  std::string_view m_stage;
  long long m_start_ns;
};

} // namespace rightsize::cli
