#include "cli/diagnostics.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include <spdlog/sinks/base_sink.h>

namespace rightsize::cli {
namespace {

// A stderr sink that writes `rightsize: LEVEL: message` and never throws: a stderr that cannot be
// written (2>/dev/full, a closed descriptor) loses the diagnostic, never the result or exit code.
class StderrSink final : public spdlog::sinks::base_sink<std::mutex> {
protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const char* level = "note";
    switch (msg.level) {
    case spdlog::level::warn: level = "warning"; break;
    case spdlog::level::debug:
    case spdlog::level::trace: level = "trace"; break;
    case spdlog::level::err:
    case spdlog::level::critical: level = "error"; break;
    default: break;
    }
    std::string line = fmt::format("rightsize: {}: ", level);
    line.append(msg.payload.data(), msg.payload.size());
    line.push_back('\n');
    (void)std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { (void)std::fflush(stderr); }
};

std::shared_ptr<spdlog::logger>& logger_slot() {
  static std::shared_ptr<spdlog::logger> logger;
  return logger;
}

spdlog::level::level_enum level_of(Verbosity v) {
  switch (v) {
  case Verbosity::quiet: return spdlog::level::err;
  case Verbosity::normal: return spdlog::level::info;
  case Verbosity::verbose: return spdlog::level::debug;
  }
  return spdlog::level::info;
}

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

void init_diagnostics(Verbosity from_flags, bool flags_given) {
  Verbosity v = from_flags;
  std::string bad_env;
  if (!flags_given) {
    if (const char* env = std::getenv("RIGHTSIZE_LOG"); env != nullptr && *env != '\0') {
      const std::string value(env);
      if (value == "quiet") {
        v = Verbosity::quiet;
      } else if (value == "normal") {
        v = Verbosity::normal;
      } else if (value == "verbose") {
        v = Verbosity::verbose;
      } else {
        bad_env = value;
      }
    }
  }
  diagnostics().set_level(level_of(v));
  if (!bad_env.empty()) {
    warn("RIGHTSIZE_LOG: expected quiet, normal or verbose, got \"{}\"; using normal", bad_env);
  }
}

spdlog::logger& diagnostics() {
  auto& slot = logger_slot();
  if (!slot) {
    slot = std::make_shared<spdlog::logger>("rightsize", std::make_shared<StderrSink>());
    slot->set_level(spdlog::level::info);
    slot->flush_on(spdlog::level::trace);
    slot->set_error_handler([](const std::string&) {}); // a failing sink never ends the run
  }
  return *slot;
}

StageTimer::StageTimer(std::string_view stage) : m_stage(stage), m_start_ns(now_ns()) {}

StageTimer::~StageTimer() {
  trace("time: {} {:.1f} ms", m_stage, static_cast<double>(now_ns() - m_start_ns) / 1e6);
}

void LogDiagnostics::warn(const std::string& message) {
  diagnostics().warn(message);
}

void LogDiagnostics::note(const std::string& message) {
  diagnostics().info(message);
}

bool LogDiagnostics::tracing() const {
  return diagnostics().should_log(spdlog::level::debug);
}

void LogDiagnostics::trace(const std::string& message) {
  if (tracing()) diagnostics().debug(message);
}

void LogDiagnostics::stage_begin(std::string_view stage) {
  m_stages.emplace_back(std::string(stage), now_ns());
}

void LogDiagnostics::stage_end(std::string_view stage) {
  if (m_stages.empty() || m_stages.back().first != stage) return;
  const long long start = m_stages.back().second;
  m_stages.pop_back();
  cli::trace("time: {} {:.1f} ms", stage, static_cast<double>(now_ns() - start) / 1e6);
}

} // namespace rightsize::cli
