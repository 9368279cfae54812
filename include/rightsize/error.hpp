#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/exit_codes.hpp"

namespace rightsize {

/// What went wrong, which decides the exit code.
enum class ErrorKind { usage, input, internal, environment };

/// The one error type of rightsize: kind, source (file, `<stdin>`, `--flag`), RFC 6901 JSON pointer
/// (may be empty) and a finished lower-case message. Rendered as `source: pointer: message`.
class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, std::string source, std::string pointer, std::string message);

  [[nodiscard]] ErrorKind kind() const { return m_kind; }
  [[nodiscard]] const std::string& source() const { return m_source; }
  [[nodiscard]] const std::string& pointer() const { return m_pointer; }
  [[nodiscard]] const std::string& message() const { return m_message; }
  /// The exit code main() uses for this error.
  [[nodiscard]] ExitCode exit_code() const;

private:
  ErrorKind m_kind;
  std::string m_source;
  std::string m_pointer;
  std::string m_message;
};

/// Several input errors found together (a catalog is validated whole); what() joins them with '\n'.
class ErrorList : public std::runtime_error {
public:
  explicit ErrorList(std::vector<Error> errors);
  [[nodiscard]] const std::vector<Error>& errors() const { return m_errors; }

private:
  std::vector<Error> m_errors;
};

/// Formats `source: pointer: message` (parts that are empty are left out).
std::string format_error(const Error& error);

/// Levenshtein distance, used for did-you-mean suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest candidate to `word` (case-insensitive) when it is close enough to be a likely typo,
/// else an empty string.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace rightsize
