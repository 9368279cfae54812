#pragma once
// The one diagnostics channel (docs/cli.md "Errors and warnings"): warnings, notes and --verbose
// traces go through one spdlog logger to stderr as `rightsize: warning: ...`, `rightsize: note: ...`,
// `rightsize: trace: ...`. Results never go here; errors keep their single line from main.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/diagnostics.hpp"

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

/// The use cases' diagnostics (app::Diagnostics) on this channel: warnings, notes, traces and the
/// time per stage, worded and leveled as the CLI's own.
class LogDiagnostics final : public app::Diagnostics {
public:
  void warn(const std::string& message) override;
  void note(const std::string& message) override;
  [[nodiscard]] bool tracing() const override;
  void trace(const std::string& message) override;
  void stage_begin(std::string_view stage) override;
  void stage_end(std::string_view stage) override;

private:
  std::vector<std::pair<std::string, long long>> m_stages; ///< open stages and their start times
};

} // namespace rightsize::cli
