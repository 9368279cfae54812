#pragma once
// The writers of `check` (docs/output-schema.md "check"): the verdict as a table or a JSON
// document, formatted from the use case's result (src/app/check.hpp); they decide nothing.
#include "app/check.hpp"
#include "cli/catalog_setup.hpp"
#include "cli/commands.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Prints a checked deployment in `format` (table or json) to stdout.
void render_check(const Spec& spec, const LoadedCatalog& catalog, const app::CheckResult& result,
                  double max_overspend, Format format);

/// Why a checked deployment fails, in words: the first rejection, else the first missed SLA term.
std::string check_failure(const app::CheckResult& result);

} // namespace rightsize::cli
