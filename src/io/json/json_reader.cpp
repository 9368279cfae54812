#include "io/json/json_reader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

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

// Builds the DOM in one SAX pass and checks it on the way: refuses duplicate keys (nlohmann keeps
// the last one silently), NUL characters inside strings and keys, and nesting deeper than
// k_max_json_depth (a 64 MiB file of '[' would otherwise build gigabytes of empty arrays). One pass
// instead of a checking pass and a parse: the lexer ran twice on every input (a 60 MB catalog,
// issue 22). Pointers are built only for an error. Syntax errors are thrown as nlohmann builds them.
class CheckedDomBuilder {
public:
  using json = nlohmann::json;

  CheckedDomBuilder(json& root, const std::string& source, std::string_view streamed_key = {},
                    const ElementSink* sink = nullptr)
      : m_root(root), m_source(source), m_streamed_key(streamed_key), m_sink(sink) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(json(v)); }
  bool string(json::string_t& text) {
    if (text.find('\0') != std::string::npos) fail(pointer(), "expected a string without NUL characters");
    return scalar(json(std::move(text)));
  }
  bool binary(json::binary_t& v) { return scalar(json(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool key(json::string_t& name) {
    Frame& top = m_frames.back();
    if (name.find('\0') != std::string::npos)
      fail(key_pointer(name), "expected a key without NUL characters");
    if (top.node->contains(name)) {
      fail(key_pointer(name), fmt::format("duplicate key \"{}\" (each key may appear once)", name));
    }
    top.key = std::move(name);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  /// Elements handed to the sink (and left out of the document).
  [[nodiscard]] std::size_t streamed() const { return m_streamed; }
  template <typename Exception> bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e; // parse_json turns it into a line and column
  }

private:
  struct Frame {
    json* node = nullptr;
    std::string key;       // objects: the key whose value is being read
    std::size_t count = 0; // arrays: elements added so far (streamed ones included)
  };

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(ErrorKind::input, m_source, pointer.empty() ? "/" : pointer, message);
  }

  // The pointer of the first `frames` containers: an outer array's open element is its last one.
  std::string outer_pointer(std::size_t frames) const {
    std::string out;
    for (std::size_t i = 0; i < frames; ++i) {
      const Frame& f = m_frames[i];
      out.push_back('/');
      out.append(f.node->is_object() ? pointer_token(f.key) : std::to_string(f.count - 1));
    }
    return out;
  }

  // The pointer of the value being read (an array's next element is at its current size).
  std::string pointer() const {
    if (m_frames.empty()) return "";
    std::string out = outer_pointer(m_frames.size() - 1);
    const Frame& top = m_frames.back();
    out.push_back('/');
    out.append(top.node->is_object() ? pointer_token(top.key) : std::to_string(top.count));
    return out;
  }

  // The pointer of a key being read in the innermost object.
  std::string key_pointer(const std::string& name) const {
    std::string out = outer_pointer(m_frames.size() - 1);
    out.push_back('/');
    out.append(pointer_token(name));
    return out;
  }

  bool scalar(json&& value) {
    (void)add(std::move(value));
    stream_finished_element();
    return true;
  }

  // Places a value where the parser is; returns it.
  json* add(json&& value) {
    if (m_frames.empty()) {
      m_root = std::move(value);
      return &m_root;
    }
    json& parent = *m_frames.back().node;
    if (parent.is_array()) {
      ++m_frames.back().count;
      parent.get_ref<json::array_t&>().push_back(std::move(value));
      return &parent.get_ref<json::array_t&>().back();
    }
    return &parent.get_ref<json::object_t&>().emplace(m_frames.back().key, std::move(value)).first->second;
  }

  bool open(json&& container) {
    if (m_frames.size() >= k_max_json_depth) {
      fail(pointer(), fmt::format("nested deeper than {} levels (the limit)", k_max_json_depth));
    }
    json* node = add(std::move(container));
    m_frames.push_back(Frame{node, {}, 0});
    return true;
  }

  bool close() {
    m_frames.pop_back();
    stream_finished_element();
    return true;
  }

  // Whether values added now are elements of the streamed array: the root object's
  // `m_streamed_key` member, when it is an array.
  [[nodiscard]] bool in_streamed_array() const {
    return m_sink != nullptr && m_frames.size() == 2 && m_frames[0].node->is_object() &&
           m_frames[0].key == m_streamed_key && m_frames[1].node->is_array();
  }

  // Hands a finished element of the streamed array to the sink and drops it from the document.
  void stream_finished_element() {
    if (!in_streamed_array()) return;
    json::array_t& array = m_frames[1].node->get_ref<json::array_t&>();
    (*m_sink)(m_frames[1].count - 1, array.back());
    array.pop_back();
    ++m_streamed;
  }

  json& m_root;
  const std::string& m_source;
  std::string_view m_streamed_key;
  const ElementSink* m_sink;
  std::vector<Frame> m_frames;
  std::size_t m_streamed = 0;
};

} // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec) && !ec;
}

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
  if (!ec) text.reserve(static_cast<std::size_t>(size) + 1); // no regrowth while a 60 MB file is read
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

namespace {

nlohmann::json parse_checked(const std::string& text, const std::string& source,
                             std::string_view streamed_key, const ElementSink* sink, std::size_t* streamed) {
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
    nlohmann::json document;
    CheckedDomBuilder builder(document, source, streamed_key, sink);
    (void)nlohmann::json::sax_parse(text, &builder);
    if (streamed != nullptr) *streamed = builder.streamed();
    return document;
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

} // namespace

nlohmann::json parse_json(const std::string& text, const std::string& source) {
  return parse_checked(text, source, {}, nullptr, nullptr);
}

nlohmann::json parse_json_streaming(const std::string& text, const std::string& source, std::string_view key,
                                    const ElementSink& sink, std::size_t& streamed) {
  streamed = 0;
  return parse_checked(text, source, key, &sink, &streamed);
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
    : m_value(&value), m_source(std::make_shared<const std::string>(std::move(source))),
      m_pointer(std::move(pointer)) {}

JsonReader::JsonReader(const nlohmann::json& value, std::shared_ptr<const std::string> source,
                       std::string pointer)
    : m_value(&value), m_source(std::move(source)), m_pointer(std::move(pointer)) {}

Error JsonReader::error(const std::string& message) const {
  return Error(ErrorKind::input, *m_source, m_pointer.empty() ? "/" : m_pointer, message);
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
    if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
    const JsonReader child(item.value(), m_source, m_pointer + "/" + pointer_token(item.key()));
    const std::string hint = did_you_mean(item.key(), allowed);
    child.fail(hint.empty()
                   ? fmt::format("unknown key \"{}\" (expected one of {})", item.key(), join_choices(allowed))
                   : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", item.key(), hint));
  }
}

std::optional<JsonReader> JsonReader::find(std::string_view key) const {
  expect_object();
  auto it = m_value->find(key); // std::less<> keys: no string is made for the lookup
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
  std::string s = as_string();
  for (const auto& c : choices) {
    if (c == s) return s;
  }
  const std::string hint = did_you_mean(s, choices);
  if (!hint.empty()) fail(fmt::format("unknown value \"{}\"; did you mean \"{}\"?", s, hint));
  fail(fmt::format("unknown value \"{}\" (expected one of {})", s, join_choices(choices)));
}

} // namespace rightsize::io
