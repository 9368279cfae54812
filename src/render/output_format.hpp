#pragma once
// The output formats of the CLI's writers (no CLI11 here: writers do not parse flags).
namespace rightsize::cli {

/// Output formats; not every command supports every format.
enum class Format { table, json, csv, markdown, jsonl };

} // namespace rightsize::cli
