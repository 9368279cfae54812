#pragma once
// The output formats of the CLI's writers (no CLI11 here: writers do not parse flags).
#include <string>
#include <vector>

namespace rightsize::cli {

/// Output formats; not every command supports every format.
enum class Format { table, json, csv, markdown, jsonl };

/// Parses --format; throws a usage Error naming the allowed ones.
Format parse_format(const std::string& text, const std::vector<std::string>& allowed);

} // namespace rightsize::cli
