#include "json_reader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

namespace rightsize::io {
namespace {

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += ", ";
    out += '"' + choices[i] + '"';
  }
  return out;
}

std::string type_name(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "a number";
}

// Limits of the structural pre-pass (docs/reliability.md, "Resource limits").
constexpr std::size_t k_max_json_depth = 64;

// A SAX pass before the DOM is built: refuses duplicate keys (nlohmann keeps the last one
// silently), NUL characters inside strings, and nesting deeper than k_max_json_depth (a 64 MiB
// file of '[' would otherwise build gigabytes of empty arrays before any check could run).
class StructureCheck final : public nlohmann::json_sax<nlohmann::json> {
public:
  explicit StructureCheck(const std::string& source) : m_source(source) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t& text) override {
    if (text.find('\0') != std::string::npos) fail(pointer(), "expected a string without NUL characters");
    return value();
  }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool key(string_t& name) override {
    Frame& top = m_frames.back();
    std::string at = pointer(false);
    at.push_back('/');
    at.append(pointer_token(name));
    if (name.find('\0') != std::string::npos) fail(at, "expected a key without NUL characters");
    if (!top.keys.insert(name).second) {
      fail(at, fmt::format("duplicate key \"{}\" (each key may appear once)", name));
    }
    top.key = name;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false; // the DOM parse that follows reports it with a line and column
  }

private:
  struct Frame {
    bool object = false;
    std::unordered_set<std::string> keys;
    std::string key;
    std::size_t index = 0;
  };

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(ErrorKind::input, m_source, pointer.empty() ? "/" : pointer, message);
  }

  // The pointer of the value being read; `with_top_key` false leaves out the current object's last
  // key (for a key that is being read, which replaces it).
  std::string pointer(bool with_top_key = true) const {
    std::string out;
    const std::size_t n = m_frames.size() - (with_top_key || m_frames.empty() ? 0 : 1);
    for (std::size_t i = 0; i < n; ++i) {
      const Frame& f = m_frames[i];
      out.push_back('/');
      out.append(f.object ? pointer_token(f.key) : std::to_string(f.index));
    }
    return out;
  }

  bool value() {
    if (!m_frames.empty() && !m_frames.back().object) ++m_frames.back().index;
    return true;
  }

  bool open(bool object) {
    if (m_frames.size() >= k_max_json_depth) {
      fail(pointer(), fmt::format("nested deeper than {} levels (the limit)", k_max_json_depth));
    }
    m_frames.push_back(Frame{object, {}, {}, 0});
    return true;
  }

  bool close() {
    m_frames.pop_back();
    return value();
  }

  const std::string& m_source;
  std::vector<Frame> m_frames;
};

} // namespace

void require_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw Error(ErrorKind::input, "\"\"", "", "expected a file path, got an empty string");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) {
    throw Error(ErrorKind::input, path, "", "cannot open file: a symbolic link loop");
  }
  if (ec && ec.value() == EACCES) {
    throw Error(ErrorKind::input, path, "", "cannot open file: permission denied");
  }
  if (ec || !fs::exists(status)) {
    throw Error(ErrorKind::input, path, "", "cannot open file: no such file");
  }
  if (fs::is_directory(status)) {
    throw Error(ErrorKind::input, path, "", "expected a file, got a directory");
  }
  // A FIFO or a device (/dev/zero, /dev/stdin) would block or never end: only regular files.
  if (!fs::is_regular_file(status)) {
    throw Error(ErrorKind::input, path, "", "expected a regular file, got a pipe, socket or device");
  }
}

std::string read_text_file(const std::string& path) {
  namespace fs = std::filesystem;
  require_regular_file(path);
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > k_max_input_file_bytes) {
    throw Error(
        ErrorKind::input, path, "",
        fmt::format("file is too large ({} bytes; the limit is {} bytes)", size, k_max_input_file_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::input, path, "", "cannot open file: permission denied or unreadable");
  // Read in chunks and stop one chunk past the limit, in case the file grew after it was measured.
  std::string text;
  std::array<char, 65536> chunk{};
  while (in && text.size() <= k_max_input_file_bytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(ErrorKind::input, path, "", "cannot read file");
  if (text.size() > k_max_input_file_bytes) {
    throw Error(ErrorKind::input, path, "",
                fmt::format("file is too large (more than {} bytes; the limit is {} bytes)",
                            k_max_input_file_bytes, k_max_input_file_bytes));
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(ErrorKind::input, path, "", "file is empty");
  }
  return text;
}

nlohmann::json parse_json(const std::string& text, const std::string& source) {
  // nlohmann's lexer ends the input at a NUL byte, so "{...}\0garbage" would parse; a raw NUL is
  // never valid JSON (inside a string it must be written \u0000).
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(
                                     text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    const std::size_t line_start = text.rfind('\n', nul == 0 ? 0 : nul - 1);
    const std::size_t column = line_start == std::string::npos || line == 1 ? nul + 1 : nul - line_start;
    throw Error(ErrorKind::input, source, "",
                fmt::format("malformed JSON at line {}, column {}: a NUL byte", line, column));
  }
  try {
    StructureCheck check(source);
    (void)nlohmann::json::sax_parse(text, &check);
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    if (byte > text.size()) byte = text.size();
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    if (byte >= text.size()) {
      throw Error(ErrorKind::input, source, "",
                  fmt::format("malformed JSON: unexpected end of file at line {}", line));
    }
    throw Error(ErrorKind::input, source, "",
                fmt::format("malformed JSON at line {}, column {}", line, column));
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorKind::input, source, "", "malformed JSON: a number is out of range");
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json(read_text_file(path), path);
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string describe_value(const nlohmann::json& value) {
  if (value.is_object() || value.is_array() || value.is_null()) return type_name(value);
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

JsonReader::JsonReader(const nlohmann::json& value, std::string source, std::string pointer)
    : m_value(&value), m_source(std::move(source)), m_pointer(std::move(pointer)) {}

Error JsonReader::error(const std::string& message) const {
  return Error(ErrorKind::input, m_source, m_pointer.empty() ? "/" : m_pointer, message);
}

void JsonReader::fail(const std::string& message) const {
  throw error(message);
}

void JsonReader::expect_object() const {
  if (!m_value->is_object()) fail("expected an object, got " + describe_value(*m_value));
}

void JsonReader::expect_keys(std::initializer_list<std::string_view> allowed) const {
  std::vector<std::string> list;
  for (auto key : allowed)
    list.emplace_back(key);
  expect_keys(list);
}

void JsonReader::expect_keys(const std::vector<std::string>& allowed) const {
  expect_object();
  for (const auto& item : m_value->items()) {
    bool known = false;
    for (const auto& key : allowed)
      known = known || key == item.key();
    if (known) continue;
    const JsonReader child(item.value(), m_source, m_pointer + "/" + pointer_token(item.key()));
    const std::string hint = did_you_mean(item.key(), allowed);
    child.fail(hint.empty()
                   ? fmt::format("unknown key \"{}\" (expected one of {})", item.key(), join_choices(allowed))
                   : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", item.key(), hint));
  }
}

std::optional<JsonReader> JsonReader::find(std::string_view key) const {
  expect_object();
  auto it = m_value->find(std::string(key));
  if (it == m_value->end() || it->is_null()) return std::nullopt;
  return JsonReader(*it, m_source, m_pointer + "/" + pointer_token(key));
}

JsonReader JsonReader::at(std::string_view key) const {
  auto child = find(key);
  if (!child) {
    JsonReader missing(*m_value, m_source, m_pointer + "/" + pointer_token(key));
    missing.fail("missing required key");
  }
  return *child;
}

JsonReader JsonReader::at(std::size_t index) const {
  if (!m_value->is_array() || index >= m_value->size()) fail("expected an array element");
  return JsonReader((*m_value)[index], m_source, m_pointer + "/" + std::to_string(index));
}

std::vector<JsonReader> JsonReader::elements() const {
  if (!m_value->is_array()) fail("expected an array, got " + describe_value(*m_value));
  std::vector<JsonReader> out;
  out.reserve(m_value->size());
  for (std::size_t i = 0; i < m_value->size(); ++i)
    out.push_back(at(i));
  return out;
}

std::vector<std::string> JsonReader::keys() const {
  expect_object();
  std::vector<std::string> out;
  for (const auto& item : m_value->items())
    out.push_back(item.key());
  return out;
}

double JsonReader::as_number(double min, double max) const {
  if (!m_value->is_number()) fail("expected a number, got " + describe_value(*m_value));
  const double v = m_value->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    fail(fmt::format("expected a number from {} to {}, got {}", min, max, describe_value(*m_value)));
  }
  return v;
}

double JsonReader::as_positive(double max) const {
  if (!m_value->is_number()) fail("expected a positive number, got " + describe_value(*m_value));
  const double v = m_value->get<double>();
  if (!std::isfinite(v) || v <= 0.0) fail("expected a positive number, got " + describe_value(*m_value));
  if (v > max) fail(fmt::format("expected a number at most {}, got {}", max, describe_value(*m_value)));
  return v;
}

std::int64_t JsonReader::as_int(std::int64_t min, std::int64_t max) const {
  const std::string expectation =
      min == 1 ? "a positive integer" : (min == 0 ? "a non-negative integer" : "an integer");
  if (!m_value->is_number()) fail(fmt::format("expected {}, got {}", expectation, describe_value(*m_value)));
  const double v = m_value->get<double>();
  if (!std::isfinite(v) || std::floor(v) != v) {
    fail(fmt::format("expected {}, got {}", expectation, describe_value(*m_value)));
  }
  if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
    if (v < static_cast<double>(min)) {
      fail(fmt::format("expected {}, got {}", min <= 1 ? expectation : fmt::format("an integer >= {}", min),
                       describe_value(*m_value)));
    }
    fail(fmt::format("expected an integer at most {}, got {}", max, describe_value(*m_value)));
  }
  return static_cast<std::int64_t>(v);
}

bool JsonReader::as_bool() const {
  if (!m_value->is_boolean()) fail("expected true or false, got " + describe_value(*m_value));
  return m_value->get<bool>();
}

std::string JsonReader::as_string() const {
  if (!m_value->is_string()) fail("expected a string, got " + describe_value(*m_value));
  std::string s = m_value->get<std::string>();
  if (s.empty()) fail("expected a non-empty string");
  return s;
}

std::string JsonReader::as_choice(const std::vector<std::string>& choices) const {
  const std::string s = as_string();
  for (const auto& c : choices) {
    if (c == s) return s;
  }
  const std::string hint = did_you_mean(s, choices);
  if (!hint.empty()) fail(fmt::format("unknown value \"{}\"; did you mean \"{}\"?", s, hint));
  fail(fmt::format("unknown value \"{}\" (expected one of {})", s, join_choices(choices)));
}

} // namespace rightsize::io
