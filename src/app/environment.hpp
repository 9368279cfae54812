#pragma once
// What the CLI reads from the process for a use case, as plain values (the application layer reads
// no environment variable and no clock): the data folder and today's date. And the spec loader
// every spec-driven command starts with.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "rightsize/error.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// A value the CLI read, or the Error reading it raised, thrown only when a use case asks for the
/// value: a bad $RIGHTSIZE_TODAY fails only the runs that need the date, as it always has.
template <typename T> class Deferred {
public:
  Deferred() = default;
  explicit Deferred(T value) : m_value(std::move(value)) {}
  explicit Deferred(Error error) : m_error(std::move(error)) {}
  [[nodiscard]] const T& get() const {
    if (m_error) throw *m_error;
    return m_value;
  }

private:
  T m_value{};
  std::optional<Error> m_error;
};

/// The process facts a use case runs with.
struct Environment {
  std::string data_dir;         ///< gpus.json, engines.json, calibration.json and models/ (cli data_dir())
  Deferred<std::int64_t> today; ///< days since 1970-01-01: $RIGHTSIZE_TODAY, else the clock
  [[nodiscard]] std::string models_dir() const { return data_dir + "/models"; }
};

/// Loads the spec at `path` with the presets of the data folder.
Spec load_spec(const std::string& path, const Environment& environment);

} // namespace rightsize::app
