#pragma once
// One GPU entry of a catalog file -> Gpu, collecting every error instead of stopping at the first.
// Internal to rightsize_io (catalog_io.cpp is the public face); docs/catalog.md describes the format.
#include <string>
#include <string_view>
#include <vector>

#include "io/json/json_reader.hpp"
#include "rightsize/gpu.hpp"

namespace rightsize::io {

/// A place in a catalog file that names a `sources` tag, checked once all sources are known.
struct TagUse {
  std::string pointer; ///< e.g. "/gpus/3/prices/0/source"
  std::string tag;
};

/// A parsed GPU entry: the merged value, where it sits in its file, and the tags it uses.
struct GpuEntry {
  Gpu gpu;
  std::string pointer; ///< "/gpus/3"
  std::vector<TagUse> tags;
};

/// Runs `check`, recording an Error it throws in `errors` instead of stopping; true when it passed.
template <typename Check> bool attempt(std::vector<Error>& errors, Check&& check) {
  try {
    check();
    return true;
  } catch (const Error& e) {
    errors.push_back(e);
    return false;
  }
}

/// Reads `key` of `object` through `assign` when present (null counts as absent); a missing
/// required key is an error. Errors go to `errors`.
template <typename Assign>
void read_field(const JsonReader& object, std::string_view key, bool required, std::vector<Error>& errors,
                Assign&& assign) {
  attempt(errors, [&] {
    const auto child = object.find(key);
    if (child) {
      assign(*child);
    } else if (required) {
      (void)object.at(key); // throws "missing required key" at <pointer>/<key>
    }
  });
}

/// Reads the fields `entry` gives onto `gpu`. With `full` every required field must be present
/// (a new GPU); without it only the given fields change (an overlay of an existing id). Every
/// problem, including physical sanity (fp8 >= bf16 >= fp32 where given), goes to `errors`.
GpuEntry parse_gpu_entry(const JsonReader& entry, Gpu gpu, bool full, std::vector<Error>& errors);

} // namespace rightsize::io
