#pragma once
// Generated tables inside the docs: the text between a table's begin and end markers.
#include <string>

namespace rightsize::bench::accuracy {

/// The text of `path` between `begin` (a whole line, with its newline) and `end`; with `replace`,
/// `body` takes its place in the file. Exits 1 when the markers are missing.
std::string between_markers(const std::string& path, const std::string& begin, const std::string& end,
                            const std::string& body, bool replace);

} // namespace rightsize::bench::accuracy
