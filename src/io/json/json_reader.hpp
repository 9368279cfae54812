#pragma once
// Checked access to JSON documents: every failure becomes one rightsize::Error carrying the file,
// the RFC 6901 pointer and what was expected. Library error text never escapes this file.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rightsize/error.hpp"

namespace rightsize::io {

/// Largest input file read (specs, configs, catalogs, safetensors headers): 64 MiB.
inline constexpr std::uintmax_t k_max_input_file_bytes = 64ull * 1024 * 1024;

/// Reads a whole text file. Errors (missing, a directory, unreadable, empty, too large) are
/// ErrorKind::input with `path` as source.
std::string read_text_file(const std::string& path);

/// Throws Error (input) unless `path` names a regular file: says "no such file", "a symbolic link
/// loop", "permission denied", "got a directory" or "got a pipe, socket or device".
void require_regular_file(const std::string& path);

/// Whether `a` and `b` name one existing file (a link, "./x" or another spelling of it counts);
/// false when either does not exist.
bool same_file(const std::string& a, const std::string& b);

/// Parses JSON text; a syntax error names line and column. `source` names the file in messages.
nlohmann::json parse_json(const std::string& text, const std::string& source);

/// Receives one element of a streamed array: its index and value (valid only during the call).
using ElementSink = std::function<void(std::size_t index, const nlohmann::json& element)>;

/// parse_json for large documents whose bulk is one array, the root object's member `key` (a
/// catalog's "gpus"): each element goes to `sink` as soon as it is parsed and is left out of the
/// returned document, where `key` is an empty array, so memory holds one element at a time.
/// `streamed` counts the elements given to `sink` (0 when `key` is absent or not an array: the
/// document then keeps it whole). A syntax error is thrown as by parse_json once it is reached.
nlohmann::json parse_json_streaming(const std::string& text, const std::string& source, std::string_view key,
                                    const ElementSink& sink, std::size_t& streamed);

/// read_text_file + parse_json.
nlohmann::json read_json_file(const std::string& path);

/// Escapes one reference token for a JSON pointer (~ -> ~0, / -> ~1).
std::string pointer_token(std::string_view key);

/// A short, quoted rendering of a JSON value for messages ("-4", "\"abc\"", "an object").
std::string describe_value(const nlohmann::json& value);

/// A position in a JSON document with checked conversions. Cheap to copy; must not outlive the
/// document it views.
class JsonReader {
public:
  JsonReader(const nlohmann::json& value, std::string source, std::string pointer = "");

  [[nodiscard]] const nlohmann::json& value() const { return *m_value; }
  [[nodiscard]] const std::string& source() const { return *m_source; }
  [[nodiscard]] const std::string& pointer() const { return m_pointer; }

  /// Throws an input Error at this position.
  [[noreturn]] void fail(const std::string& message) const;
  /// Builds (does not throw) an input Error at this position.
  [[nodiscard]] Error error(const std::string& message) const;

  [[nodiscard]] bool is_object() const { return m_value->is_object(); }
  [[nodiscard]] bool is_string() const { return m_value->is_string(); }
  [[nodiscard]] bool is_array() const { return m_value->is_array(); }
  [[nodiscard]] bool is_number() const { return m_value->is_number(); }
  [[nodiscard]] bool is_null() const { return m_value->is_null(); }

  /// Requires an object.
  void expect_object() const;
  /// Requires an object whose keys are all in `allowed`; an unknown key fails with did-you-mean.
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  void expect_keys(const std::vector<std::string>& allowed) const;

  /// Member of an object, if present and not null.
  [[nodiscard]] std::optional<JsonReader> find(std::string_view key) const;
  /// Member of an object; fails "missing required key" when absent.
  [[nodiscard]] JsonReader at(std::string_view key) const;
  /// Element of an array.
  [[nodiscard]] JsonReader at(std::size_t index) const;
  /// Elements of an array (fails if not an array).
  [[nodiscard]] std::vector<JsonReader> elements() const;
  /// Keys of an object in document order... nlohmann sorts them: sorted order.
  [[nodiscard]] std::vector<std::string> keys() const;

  /// A finite number in [min, max].
  [[nodiscard]] double as_number(double min, double max) const;
  /// A number > 0 and <= max.
  [[nodiscard]] double as_positive(double max) const;
  /// An integer (a number with no fraction) in [min, max].
  [[nodiscard]] std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  [[nodiscard]] bool as_bool() const;
  /// A non-empty string.
  [[nodiscard]] std::string as_string() const;
  /// A string that must be one of `choices`; fails with did-you-mean.
  [[nodiscard]] std::string as_choice(const std::vector<std::string>& choices) const;

private:
  // Children share their document's source name (a copy per child was an allocation per field of
  // a 40,000-GPU catalog; issue 22).
  JsonReader(const nlohmann::json& value, std::shared_ptr<const std::string> source, std::string pointer);

  const nlohmann::json* m_value;
  std::shared_ptr<const std::string> m_source;
  std::string m_pointer;
};

} // namespace rightsize::io
