// Sizing a search before running it (app/search_limits.hpp, docs/reliability.md "Resource limits").
#include "app/search_limits.hpp"

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::app {

void check_search_gpu_types(std::size_t gpu_types, std::size_t limit, const char* flag,
                            const std::string& what) {
  if (gpu_types <= limit) return;
  throw Error(
      ErrorKind::usage, flag, "",
      fmt::format("{} searches at most {} GPU types within the 2 s / 512 MB limit, and this search has "
                  "{}: name at most {} with --gpu or constraints.gpus",
                  what, limit, gpu_types, limit));
}

} // namespace rightsize::app
