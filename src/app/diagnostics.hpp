#pragma once
// What a use case has to say besides its result: warnings and notes (an old price, an overlay fitted
// with another engine) and, with --verbose, a trace and the time per stage. The application layer
// only speaks through this interface; the CLI implements it with its one stderr channel
// (src/cli/diagnostics.hpp), so the app reads no clock and writes no stream.
#include <string>
#include <string_view>

namespace rightsize::app {

class Diagnostics {
public:
  Diagnostics() = default;
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;
  Diagnostics(Diagnostics&&) = delete;
  Diagnostics& operator=(Diagnostics&&) = delete;
  virtual ~Diagnostics() = default;

  /// "rightsize: warning: ..." on the CLI: something the user should probably change.
  virtual void warn(const std::string& message) = 0;
  /// "rightsize: note: ...": a fact about the run.
  virtual void note(const std::string& message) = 0;
  /// True when trace lines are wanted (--verbose); building them is skipped otherwise.
  [[nodiscard]] virtual bool tracing() const = 0;
  /// "rightsize: trace: ..." with --verbose.
  virtual void trace(const std::string& message) = 0;
  /// A stage of the run begins / ends; the implementation times it (the app reads no clock).
  virtual void stage_begin(std::string_view stage) = 0;
  virtual void stage_end(std::string_view stage) = 0;
};

/// Says nothing: for callers that judge a use case's result alone (tests, benchmarks).
class SilentDiagnostics final : public Diagnostics {
public:
  void warn(const std::string& /*message*/) override {}
  void note(const std::string& /*message*/) override {}
  [[nodiscard]] bool tracing() const override { return false; }
  void trace(const std::string& /*message*/) override {}
  void stage_begin(std::string_view /*stage*/) override {}
  void stage_end(std::string_view /*stage*/) override {}
};

/// One stage, timed from construction to destruction through `Diagnostics`.
class Stage {
public:
  Stage(Diagnostics& diagnostics, std::string_view name) : m_diagnostics(&diagnostics), m_name(name) {
    m_diagnostics->stage_begin(m_name);
  }
  ~Stage() { m_diagnostics->stage_end(m_name); }
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;
  Stage(Stage&&) = delete;
  Stage& operator=(Stage&&) = delete;

private:
  Diagnostics* m_diagnostics;
  std::string_view m_name;
};

} // namespace rightsize::app
