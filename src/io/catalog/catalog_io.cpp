#include "io/catalog/catalog_io.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "io/catalog/catalog_entry.hpp"
#include "io/json/json_reader.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/text.hpp"

namespace rightsize::io {
namespace {

constexpr int k_schema_version = 1;

std::vector<std::string> keys_of(const std::map<std::string, std::string>& map) {
  std::vector<std::string> out;
  out.reserve(map.size());
  for (const auto& [key, value] : map)
    out.push_back(key);
  return out;
}

// Lower-case id -> index, built once per document: looking each entry up by a scan made loading
// quadratic in the number of GPUs (40k GPUs took 40 s; issue 22 item 10).
using IdIndex = std::unordered_map<std::string, std::size_t>;

IdIndex index_ids(const std::vector<Gpu>& gpus) {
  IdIndex index;
  index.reserve(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i)
    index.emplace(to_lower(gpus[i].id), i);
  return index;
}

// The GPUs an overlay may name: by id or by one of their aliases ("h100"), as --price names them;
// either overrides that GPU and keeps its canonical id. An id wins over an alias of the same
// spelling.
IdIndex index_names(const std::vector<Gpu>& gpus) {
  IdIndex index = index_ids(gpus);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (const auto& alias : gpus[i].aliases)
      index.emplace(to_lower(alias), i);
  return index;
}

// Index of the GPU with this id (case-insensitive), or -1.
std::ptrdiff_t index_of(const IdIndex& index, std::string_view id) {
  const auto it = index.find(to_lower(id));
  return it == index.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

// The id an entry gives, if it gives a usable one (errors are reported by parse_gpu_entry).
std::string peek_id(const JsonReader& item) {
  if (!item.is_object()) return "";
  const auto it = item.value().find("id");
  return it != item.value().end() && it->is_string() ? it->get<std::string>() : "";
}

// One catalog file's top level, before it is merged.
struct FileContents {
  std::string latest_date; ///< no date after this one ("YYYY-MM-DD", today); empty: unchecked
  std::string prices_as_of;
  std::map<std::string, std::string> sources;
  std::vector<GpuEntry> entries;
};

void read_top_level(const JsonReader& root, bool overlay, FileContents& file, std::vector<Error>& errors) {
  attempt(errors, [&] {
    root.expect_keys({"schema_version", "description", "prices_as_of", "sources", "gpus"});
  });
  read_field(root, "schema_version", true, errors, [&](const JsonReader& v) {
    if (v.as_int(0, 1'000'000) != k_schema_version) {
      v.fail(fmt::format("unsupported schema_version {} (this rightsize reads {})", v.value().dump(),
                         k_schema_version));
    }
  });
  read_field(root, "description", false, errors, [](const JsonReader& v) { (void)v.as_string(); });
  read_field(root, "prices_as_of", !overlay, errors, [&](const JsonReader& v) {
    file.prices_as_of = v.as_string();
    if (!parse_iso_date(file.prices_as_of)) {
      v.fail(fmt::format("expected a date YYYY-MM-DD, got \"{}\"", file.prices_as_of));
    }
  });
  read_field(root, "sources", !overlay, errors, [&](const JsonReader& v) {
    for (const auto& tag : v.keys()) {
      attempt(errors, [&] { file.sources[tag] = v.at(tag).as_string(); });
    }
  });
}

// Reads one "gpus" element onto `file` (an overlay entry may give only the fields it changes when
// its id names a GPU of `base`).
void read_gpu(const JsonReader& item, const std::vector<Gpu>& base, const IdIndex& base_index, bool overlay,
              FileContents& file, std::vector<Error>& errors) {
  const std::ptrdiff_t existing = overlay ? index_of(base_index, peek_id(item)) : -1;
  if (existing >= 0) {
    const Gpu& known = base[static_cast<std::size_t>(existing)];
    file.entries.push_back(parse_gpu_entry(item, known, false, errors));
    file.entries.back().gpu.id = known.id; // "h100-sxm" in an overlay keeps the canonical spelling
  } else {
    file.entries.push_back(parse_gpu_entry(item, Gpu{}, true, errors));
  }
}

// The "gpus" array. `streamed` elements were already read while the file was parsed
// (parse_json_streaming); their errors are in `streamed_errors`, after the array's own.
void read_gpus(const JsonReader& gpus, const std::vector<Gpu>& base, bool overlay, std::size_t streamed,
               std::vector<Error>& streamed_errors, FileContents& file, std::vector<Error>& errors) {
  std::vector<JsonReader> items;
  if (!attempt(errors, [&] { items = gpus.elements(); })) return;
  if (items.empty() && streamed == 0 && !overlay)
    attempt(errors, [&] { gpus.fail("expected at least one GPU, got an empty array"); });
  errors.insert(errors.end(), std::make_move_iterator(streamed_errors.begin()),
                std::make_move_iterator(streamed_errors.end()));
  if (items.empty()) return;
  const IdIndex base_index = overlay ? index_names(base) : IdIndex{};
  for (const auto& item : items)
    read_gpu(item, base, base_index, overlay, file, errors);
}

// Ids and aliases must name one GPU each, case-insensitively, across the merged catalog.
void check_names(const std::vector<Gpu>& base, const FileContents& file, const std::string& source,
                 std::vector<Error>& errors) {
  std::unordered_map<std::string, std::string> owner; // lower-case name -> id
  std::unordered_set<std::string> replaced_ids;
  for (const auto& entry : file.entries)
    replaced_ids.insert(to_lower(entry.gpu.id));
  for (const auto& gpu : base) {
    if (replaced_ids.count(to_lower(gpu.id)) != 0) continue;
    owner[to_lower(gpu.id)] = gpu.id;
    for (const auto& alias : gpu.aliases)
      owner[to_lower(alias)] = gpu.id;
  }
  const auto claim = [&](const std::string& name, const std::string& id, const std::string& pointer) {
    const auto [it, inserted] = owner.emplace(to_lower(name), id);
    if (inserted) return;
    const std::string message = to_lower(it->second) == to_lower(id) && to_lower(name) == to_lower(id)
                                    ? fmt::format("duplicate id \"{}\"", id)
                                    : fmt::format("\"{}\" is already used by \"{}\"", name, it->second);
    errors.emplace_back(ErrorKind::input, source, pointer, message);
  };
  for (const auto& entry : file.entries) {
    if (entry.gpu.id.empty()) continue;
    claim(entry.gpu.id, entry.gpu.id, entry.pointer + "/id");
    for (std::size_t i = 0; i < entry.gpu.aliases.size(); ++i) {
      claim(entry.gpu.aliases[i], entry.gpu.id, entry.pointer + "/aliases/" + std::to_string(i));
    }
  }
}

// A price from the future would win on cost and date the whole catalog "as of" that day (issue 42).
std::string future_date(const std::string& today, const std::string& date) {
  return fmt::format("expected a date no later than today ({}), got \"{}\"", today, date);
}

// Every tag names a source; no price is newer than the date the file says its prices are as of, nor
// than today.
void check_references(const FileContents& file, const std::map<std::string, std::string>& sources,
                      const std::string& source, std::vector<Error>& errors) {
  for (const auto& entry : file.entries) {
    for (const auto& use : entry.tags) {
      if (sources.count(use.tag) != 0) continue;
      const std::string hint = did_you_mean(use.tag, keys_of(sources));
      errors.emplace_back(
          ErrorKind::input, source, use.pointer,
          hint.empty() ? fmt::format("unknown source tag \"{}\" (not in /sources)", use.tag)
                       : fmt::format("unknown source tag \"{}\"; did you mean \"{}\"?", use.tag, hint));
    }
    for (std::size_t i = 0; i < entry.gpu.prices.size(); ++i) {
      const std::string& date = entry.gpu.prices[i].date;
      const std::string pointer = entry.pointer + "/prices/" + std::to_string(i) + "/date";
      if (date.empty()) continue;
      if (!file.latest_date.empty() && date > file.latest_date) {
        errors.emplace_back(ErrorKind::input, source, pointer, future_date(file.latest_date, date));
      } else if (!file.prices_as_of.empty() && date > file.prices_as_of) {
        errors.emplace_back(ErrorKind::input, source, pointer,
                            fmt::format("expected a date no later than prices_as_of ({}), got \"{}\"",
                                        file.prices_as_of, date));
      }
    }
  }
  if (!file.latest_date.empty() && file.prices_as_of > file.latest_date) {
    errors.emplace_back(ErrorKind::input, source, "/prices_as_of",
                        future_date(file.latest_date, file.prices_as_of));
  }
}

// Sorts GPUs by id through a permutation: each GPU is moved once, not swapped about by std::sort.
void sort_by_id(std::vector<Gpu>& gpus) {
  const auto by_id = [](const Gpu& a, const Gpu& b) { return a.id < b.id; };
  if (std::is_sorted(gpus.begin(), gpus.end(), by_id)) return;
  std::vector<std::size_t> order(gpus.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return gpus[a].id < gpus[b].id; });
  std::vector<Gpu> sorted;
  sorted.reserve(gpus.size());
  for (const std::size_t i : order)
    sorted.push_back(std::move(gpus[i]));
  gpus = std::move(sorted);
}

// Applies one parsed catalog document onto `catalog`; on any error `catalog` is left unchanged and
// ErrorList is thrown. `path` names the document in messages. `file` may hold entries already read
// from a streamed "gpus" array (`streamed` of them, their errors in `streamed_errors`).
void apply_document(Catalog& catalog, const nlohmann::json& document, const std::string& path, bool overlay,
                    FileContents file = {}, std::size_t streamed = 0,
                    std::vector<Error> streamed_errors = {}) {
  std::vector<Error> errors;
  const JsonReader root(document, path);
  if (!attempt(errors, [&] { root.expect_object(); })) throw ErrorList(std::move(errors));
  read_top_level(root, overlay, file, errors);
  read_field(root, "gpus", true, errors, [&](const JsonReader& v) {
    read_gpus(v, catalog.gpus, overlay, streamed, streamed_errors, file, errors);
  });
  Catalog merged = catalog;
  for (auto& [tag, document_name] : file.sources)
    merged.sources[tag] = document_name;
  check_names(catalog.gpus, file, path, errors);
  check_references(file, merged.sources, path, errors);
  if (!errors.empty()) throw ErrorList(std::move(errors));

  std::string newest = std::max(merged.prices_as_of, file.prices_as_of);
  IdIndex merged_index = index_ids(merged.gpus);
  merged.gpus.reserve(merged.gpus.size() + file.entries.size());
  for (auto& entry : file.entries) {
    if (file.prices_as_of.empty()) {
      for (const auto& q : entry.gpu.prices)
        newest = std::max(newest, q.date);
    }
    const std::ptrdiff_t existing = index_of(merged_index, entry.gpu.id);
    if (existing >= 0) {
      merged.gpus[static_cast<std::size_t>(existing)] = std::move(entry.gpu);
    } else {
      merged_index.emplace(to_lower(entry.gpu.id), merged.gpus.size());
      merged.gpus.push_back(std::move(entry.gpu));
    }
  }
  merged.prices_as_of = newest;
  sort_by_id(merged.gpus);
  catalog = std::move(merged);
}

// Reads one file onto `catalog` (see apply_document). The "gpus" array is read element by element
// while the file is parsed, so a 60 MB catalog never stands in memory as one JSON tree (building
// and freeing that tree was most of the 4 s a 40,000-GPU catalog took; issue 22).
void apply_file(Catalog& catalog, const std::string& path, bool overlay, const std::string& latest_date) {
  FileContents file;
  file.latest_date = latest_date;
  std::vector<Error> streamed_errors;
  std::size_t streamed = 0;
  const IdIndex base_index = overlay ? index_names(catalog.gpus) : IdIndex{};
  const ElementSink read_element = [&](std::size_t index, const nlohmann::json& element) {
    const JsonReader item(element, path, "/gpus/" + std::to_string(index));
    read_gpu(item, catalog.gpus, base_index, overlay, file, streamed_errors);
  };
  nlohmann::json document;
  try {
    document = parse_json_streaming(read_text_file(path), path, "gpus", read_element, streamed);
  } catch (const Error& e) {
    throw ErrorList({e});
  }
  apply_document(catalog, document, path, overlay, std::move(file), streamed, std::move(streamed_errors));
}

} // namespace

Catalog parse_catalog(const nlohmann::json& document, const std::string& source) {
  Catalog catalog;
  apply_document(catalog, document, source, false);
  catalog.schema_version = k_schema_version;
  catalog.path = source;
  return catalog;
}

Catalog load_catalog(const std::string& path, const std::string& latest_date) {
  Catalog catalog;
  apply_file(catalog, path, false, latest_date);
  catalog.schema_version = k_schema_version;
  catalog.path = path;
  return catalog;
}

void overlay_catalog(Catalog& base, const std::string& path, const std::string& latest_date) {
  apply_file(base, path, true, latest_date);
}

void overlay_catalog_document(Catalog& base, const nlohmann::json& document, const std::string& source) {
  apply_document(base, document, source, true);
}

const Gpu* find_gpu(const Catalog& catalog, std::string_view id_or_alias) {
  const std::string needle = to_lower(id_or_alias);
  for (const auto& gpu : catalog.gpus) {
    if (to_lower(gpu.id) == needle) return &gpu;
    for (const auto& alias : gpu.aliases) {
      if (alias == needle) return &gpu;
    }
  }
  return nullptr;
}

std::vector<std::string> gpu_ids(const Catalog& catalog) {
  std::vector<std::string> out;
  out.reserve(catalog.gpus.size());
  for (const auto& gpu : catalog.gpus)
    out.push_back(gpu.id);
  return out;
}

} // namespace rightsize::io
