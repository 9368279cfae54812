#pragma once
// data/gpus.json <-> validated Gpu values (docs/catalog.md). The whole file is validated and every
// error is reported together (ErrorList).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rightsize/gpu.hpp"

namespace rightsize::io {

/// A loaded GPU catalog.
struct Catalog {
  int schema_version = 1;
  std::string prices_as_of;                   ///< ISO date of the newest price evidence
  std::vector<Gpu> gpus;                      ///< sorted by id
  std::map<std::string, std::string> sources; ///< tag -> document
  std::string path;                           ///< file it came from
};

/// Loads and validates a catalog file. Throws ErrorList with every problem found. `latest_date`
/// ("YYYY-MM-DD", the caller's today; empty: unchecked): prices_as_of and every price date must be
/// no later.
Catalog load_catalog(const std::string& path, const std::string& latest_date = {});

/// Validates an already-parsed catalog document (tests, fuzzing); `source` names it in messages.
/// Throws ErrorList with every problem found, like load_catalog.
Catalog parse_catalog(const nlohmann::json& document, const std::string& source);

/// Adds the GPUs of `path` to `base`, replacing entries with the same id (a team's negotiated
/// prices, a GPU we don't ship). A GPU entry in an overlay may give only the fields it changes
/// when its id already exists. `latest_date` as for load_catalog.
void overlay_catalog(Catalog& base, const std::string& path, const std::string& latest_date = {});

/// The in-memory twin of overlay_catalog (tests, fuzzing): applies an already-parsed overlay
/// document named `source`. On any error `base` is left unchanged and ErrorList is thrown.
void overlay_catalog_document(Catalog& base, const nlohmann::json& document, const std::string& source);

/// Finds a GPU by id or alias, case-insensitively; nullptr when unknown.
const Gpu* find_gpu(const Catalog& catalog, std::string_view id_or_alias);

/// Ids of all GPUs, for did-you-mean messages.
std::vector<std::string> gpu_ids(const Catalog& catalog);

} // namespace rightsize::io
