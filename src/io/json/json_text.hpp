#pragma once
// The one way rightsize turns a JSON document into text (stdout, overlays, run files).
#include <string>

#include <nlohmann/json.hpp>

namespace rightsize::io {

/// `doc` as JSON text indented by `indent` (-1: one line). A string that is not UTF-8 (a file name in
/// another encoding, carried into a document as its source) is written with U+FFFD in place of each
/// bad byte instead of failing (nlohmann::json's dump throws type_error 316 on it; RFC 8259 §8.1:
/// JSON text is UTF-8).
inline std::string json_text(const nlohmann::json& doc, int indent = 2) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace rightsize::io
