#pragma once
// The measured serving runs CSV (tests/validation/serving/README.md) -> checked ServingRun values.
#include <string>
#include <vector>

#include "rightsize/serving_validation.hpp"

namespace rightsize::io {

/// Parses the CSV text; `source` names the file in messages ("file:line: column ...").
/// Throws Error (input) on a missing column, a bad number or a ragged row.
std::vector<ServingRun> parse_serving_csv(const std::string& text, const std::string& source);

/// read_text_file + parse_serving_csv.
std::vector<ServingRun> load_serving_csv(const std::string& path);

} // namespace rightsize::io
