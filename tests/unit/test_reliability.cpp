// Issue 22 (reliability, round two): one error line per bad input, bounded work, no wrapped numbers.
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "json_reader.hpp"
#include "render.hpp"
#include "rightsize/error.hpp"
#include "table.hpp"

using namespace rightsize;

namespace {

std::string parse_error_of(const std::string& text) {
  try {
    (void)io::parse_json(text, "f.json");
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("errors are one line: control characters escaped, long lines cut in the middle", "[reliability]") {
  const Error newline(ErrorKind::input, "a\nb.json", "", "cannot open file: no such file");
  CHECK(format_error(newline) == "a\\nb.json: cannot open file: no such file");
  const Error escape(ErrorKind::usage, "--gpu", "", "unknown GPU \"\x1b[31mred\"");
  CHECK(format_error(escape) == "--gpu: unknown GPU \"\\x1b[31mred\"");
  const std::string huge(10'000'000, 'x');
  const std::string line = format_error(Error(ErrorKind::input, "s.json", "/model/preset",
                                              "unknown preset \"" + huge + "\" (expected one of a, b)"));
  CHECK(line.size() < 1100);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.rfind("s.json: /model/preset: unknown preset \"xxx", 0) == 0);
  CHECK(line.substr(line.size() - 22) == "(expected one of a, b)");
}

TEST_CASE("did-you-mean only for short names (issue 22 item 12)", "[reliability]") {
  const std::vector<std::string> names = {"llama-3.1-8b", "llama-3.1-70b"};
  CHECK(did_you_mean("llama-3.1-8", names) == "llama-3.1-8b");
  CHECK(did_you_mean(std::string(1'000'000, 'l'), names).empty());
}

TEST_CASE("JSON: duplicate keys, NUL bytes and deep nesting are refused (issue 22 items 8, 9, 12)",
          "[reliability]") {
  CHECK(parse_error_of(R"({"sla": {"tpot_ms": 50, "tpot_ms": 5000}})") ==
        "f.json: /sla/tpot_ms: duplicate key \"tpot_ms\" (each key may appear once)");
  CHECK(parse_error_of(R"({"a": [{"x": 1}, {"x": 1, "x": 2}]})") ==
        "f.json: /a/1/x: duplicate key \"x\" (each key may appear once)");
  CHECK(parse_error_of(std::string("{\"a\": 1}\n\0garbage", 17)) ==
        "f.json: malformed JSON at line 2, column 1: a NUL byte");
  CHECK(parse_error_of(R"({"path": "llama.json\u0000junk"})") ==
        "f.json: /path: expected a string without NUL characters");
  CHECK(parse_error_of(std::string(64, '[') + std::string(64, ']')) == "no error");
  CHECK(parse_error_of(std::string(5'000'000, '[')) == "f.json: " + [] {
    std::string p;
    for (int i = 0; i < 64; ++i)
      p += "/0";
    return p;
  }() + ": nested deeper than 64 levels (the limit)");
  CHECK(parse_error_of(R"({"a": 1} x)") == "f.json: malformed JSON at line 1, column 10");
}

TEST_CASE("byte counts past int64 never wrap (issue 22 item 2)", "[reliability]") {
  CHECK(cli::json_bytes(1234.4) == 1234);
  CHECK(cli::json_bytes(1.2e22).is_number_float());
  CHECK(cli::json_bytes(1.2e22).get<double>() == 1.2e22);
  CHECK(cli::json_bytes(1.2e22).dump() == "1.2e+22");
  CHECK(cli::text_bytes(9.3e18) == "9.3e+18");
  CHECK(cli::text_bytes(42.0) == "42");
}

TEST_CASE("markdown text escapes markdown and HTML (issue 22 item 14)", "[reliability]") {
  CHECK(cli::markdown_text("# <b>x</b> *y*\nz") == "\\# \\<b\\>x\\</b\\> \\*y\\* z");
  CHECK(cli::markdown_text("chat-8b") == "chat-8b");
}
