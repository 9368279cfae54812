// Issue 22 (reliability, round two): one error line per bad input, bounded work, no wrapped numbers.
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "io/json/json_reader.hpp"
#include "render/render.hpp"
#include "render/table.hpp"
#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

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
  // NOLINTNEXTLINE(bugprone-string-constructor): the 10 MB string is the point of this test
  const std::string huge(10'000'000, 'x');
  const std::string line = format_error(Error(ErrorKind::input, "s.json", "/model/preset",
                                              "unknown preset \"" + huge + "\" (expected one of a, b)"));
  CHECK(line.size() < 1100);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.rfind("s.json: /model/preset: unknown preset \"xxx", 0) == 0);
  CHECK(line.substr(line.size() - 22) == "(expected one of a, b)");
  // The bound holds after escaping (fuzz_cli_files): 900 DEL bytes are 3,600 bytes escaped; under
  // 1,000 raw bytes the line was once printed whole.
  const std::string dels =
      format_error(Error(ErrorKind::usage, "--out", "", "cannot write \"" + std::string(900, '\x7f') + "\""));
  CHECK(dels.size() <= 1000);
  CHECK(dels.rfind("--out: cannot write \"\\x7f", 0) == 0);
  CHECK(dels.find("bytes left out") != std::string::npos);
  CHECK(dels.substr(dels.size() - 5) == "\\x7f\"");
  // Under the bound once escaped: whole.
  CHECK(format_error(Error(ErrorKind::usage, "--out", "", std::string(200, '\x7f'))).size() == 7 + 800);
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

namespace {

// Elements a streamed parse hands over ("index: json"), then the document left, or the error.
std::vector<std::string> streamed_parse(const std::string& text) {
  std::vector<std::string> out;
  const io::ElementSink sink = [&](std::size_t index, const nlohmann::json& element) {
    out.push_back(std::to_string(index) + ": " + element.dump());
  };
  try {
    std::size_t streamed = 0;
    const nlohmann::json doc = io::parse_json_streaming(text, "f.json", "gpus", sink, streamed);
    out.push_back(std::to_string(streamed) + " streamed, left " + doc.dump());
  } catch (const Error& e) {
    out.push_back(format_error(e));
  }
  return out;
}

} // namespace

TEST_CASE("a streamed array hands over each element and keeps the checks and pointers (issue 22 item 10)",
          "[reliability]") {
  CHECK(streamed_parse(R"({"a": 1, "gpus": [{"x": [1, {"y": 2}]}, 3, [4]], "b": {"gpus": [5]}})") ==
        std::vector<std::string>{R"(0: {"x":[1,{"y":2}]})", "1: 3", "2: [4]",
                                 R"(3 streamed, left {"a":1,"b":{"gpus":[5]},"gpus":[]})"});
  // Only the root object's array is streamed; anything else is kept whole.
  CHECK(streamed_parse(R"({"gpus": {"x": 1}})") ==
        std::vector<std::string>{R"(0 streamed, left {"gpus":{"x":1}})"});
  CHECK(streamed_parse(R"([{"gpus": [1]}])") ==
        std::vector<std::string>{R"(0 streamed, left [{"gpus":[1]}])"});
  // Errors past streamed elements keep their index; the elements before them were handed over.
  CHECK(
      streamed_parse(R"({"gpus": [{}, {"x": 1, "x": 2}]})") ==
      std::vector<std::string>{"0: {}", "f.json: /gpus/1/x: duplicate key \"x\" (each key may appear once)"});
  CHECK(streamed_parse(R"({"gpus": [1, 2, {"a": [0, "b\u0000"]}]})") ==
        std::vector<std::string>{"0: 1", "1: 2",
                                 "f.json: /gpus/2/a/1: expected a string without NUL characters"});
  CHECK(streamed_parse(R"({"gpus": [1], "gpus": [2]})") ==
        std::vector<std::string>{"0: 1", "f.json: /gpus: duplicate key \"gpus\" (each key may appear once)"});
  CHECK(streamed_parse(R"({"gpus": [1, 2)") ==
        std::vector<std::string>{"0: 1", "1: 2", "f.json: malformed JSON: unexpected end of file at line 1"});
  // The same pointers without streaming, for an outer array whose element is open.
  CHECK(parse_error_of(R"([[1, 2], [3, {"k": "\u0000"}]])") ==
        "f.json: /1/1/k: expected a string without NUL characters");
}

TEST_CASE("UTF-8 validation: the first byte that breaks RFC 3629", "[reliability]") {
  constexpr auto ok = std::string_view::npos;
  CHECK(invalid_utf8_at("gpu=H100-SXM,L40S") == ok);
  CHECK(invalid_utf8_at("\xC2\xA7 \xE2\x80\x94 \xF0\x9F\x98\x80") == ok); // §, em dash, an emoji
  CHECK(invalid_utf8_at("gpu=L40S\xAC") == 8);                            // fuzz_sweep's byte
  CHECK(invalid_utf8_at("a\xC0\x80") == 1);                               // overlong NUL
  CHECK(invalid_utf8_at("\xE0\x80\x80") == 0);                            // overlong 3-byte form
  CHECK(invalid_utf8_at("\xED\xA0\x80") == 0);                            // a UTF-16 surrogate
  CHECK(invalid_utf8_at("\xF4\x90\x80\x80") == 0);                        // past U+10FFFF
  CHECK(invalid_utf8_at("ab\xE2\x80") == 2);                              // cut short
  CHECK(invalid_utf8_at("\xF5\x80\x80\x80") == 0);
}
