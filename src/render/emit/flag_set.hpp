#pragma once
// A set of engine flags one feature adds to an engine command, with the notes that explain them.
#include <string>
#include <utility>
#include <vector>

namespace rightsize::cli {

struct FlagSet {
  std::vector<std::pair<std::string, std::string>> flags; ///< flag, value ("" = a bare flag)
  std::vector<std::string> notes;
};

} // namespace rightsize::cli
