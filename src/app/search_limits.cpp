// Sizing a search before running it (app/search_limits.hpp, docs/reliability.md "Resource limits").
#include "app/search_limits.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::app {

void check_search_gpu_types(std::size_t gpu_types, std::size_t precisions, std::size_t limit,
                            const char* flag, const std::string& what) {
  const std::size_t searched = gpu_types * std::max<std::size_t>(1, precisions);
  if (searched <= limit) return;
  if (precisions <= 1) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("{} searches at most {} GPU types within the 2 s / 512 MB limit, and this search "
                            "has {}: name at most {} with --gpu or constraints.gpus",
                            what, limit, gpu_types, limit));
  }
  // Each precision is a search of its own over every GPU type (recommend's --precisions).
  throw Error(
      ErrorKind::usage, flag, "",
      fmt::format("{} searches at most {} GPU types × precisions within the 2 s / 512 MB limit, and "
                  "this search has {} × {} = {}: name fewer GPU types with --gpu or constraints.gpus, "
                  "or fewer precisions with --precisions",
                  what, limit, gpu_types, precisions, searched));
}

void check_disagg_units(std::size_t units, std::size_t limit) {
  if (units <= limit) return;
  throw Error(
      ErrorKind::usage, "--disagg", "",
      fmt::format("recommend --disagg searches at most {} xPyD units within the 2 s / 512 MB limit, and "
                  "this search has up to {} (pool layouts² × worker counts per GPU pair): name fewer "
                  "GPU types with --gpu or constraints.gpus, or fewer precisions with --precisions",
                  limit, units));
}

} // namespace rightsize::app
