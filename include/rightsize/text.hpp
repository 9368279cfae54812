#pragma once
// Small text helpers shared by every layer (the core builds its assumption strings with them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

/// An integer with thousands separators: 8030261248 -> "8,030,261,248".
std::string with_commas(std::int64_t value);

/// Byte offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, surrogates or
/// code points past U+10FFFF), or npos when `text` is valid UTF-8.
std::size_t invalid_utf8_at(std::string_view text);

/// Byte offset of the first character that would break the line or the document a name is written
/// into (a terminal line, a YAML or shell comment, a JSON string): a byte that is not UTF-8
/// (invalid_utf8_at), a C0 control character or DEL, a C1 control character (U+0080–U+009F, NEL
/// U+0085 among them) or a Unicode line or paragraph separator (U+2028, U+2029: YAML 1.1 scanners
/// end a comment there). npos when there is none.
std::size_t unsafe_text_at(std::string_view text);

/// What sits at `at` (from unsafe_text_at), worded for an error line: "byte 0xFF at offset 4 (not
/// UTF-8)", "U+2028 (a line separator) at offset 3", "U+000A (a control character) at offset 0".
std::string describe_unsafe_text(std::string_view text, std::size_t at);

/// `text` with every unsafe character (unsafe_text_at) replaced by '?': names derived from file
/// names, which may be in any encoding.
std::string safe_text(std::string_view text);

/// ASCII lower-case copy, for case-insensitive names (GPU ids, formats, did-you-mean).
std::string to_lower(std::string_view text);

/// A container image reference pinned to one build: a digest ("name@sha256:…") or a tag other than
/// the moving "latest" ("vllm/vllm-openai:v0.11.2"; a registry port, "host:5000/name", is not a tag).
/// Docker reference grammar: the tag follows the last ':' after the last '/'.
bool pinned_image_reference(std::string_view image);

/// The items with `separator` between them: {"a", "b"} -> "a, b".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

} // namespace rightsize
