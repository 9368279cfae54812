// `rightsize validate SPEC`: load the spec and print the resolved model, precision, workload and
// every assumption made, so the user can check what rightsize will estimate.
// Flow: flags -> app::ValidateRequest -> app::run_validate -> render_validate.
#include <memory>

#include "app/validate.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_flags.hpp"
#include "render/validate_render.hpp"

namespace rightsize::cli {
namespace {

struct ValidateOptions {
  std::string spec;
  std::string format = "table";
  CatalogOptions catalog; ///< --catalog / --catalog-add only: the GPUs the spec may name
};

int run_validate(const ValidateOptions& options) {
  const Format format = parse_format(options.format, {"table", "json"});
  const app::ValidateRequest request{spec_inputs(options.spec, options.catalog, EngineOptions{})};
  LogDiagnostics diagnostics;
  const app::ValidateOutcome outcome = app::run_validate(request, diagnostics);
  render_validate(outcome, format);
  return 0;
}

} // namespace

void add_validate(CLI::App& app, Action& action) {
  auto options = std::make_shared<ValidateOptions>();
  auto* command =
      app.add_subcommand("validate", "check a spec file and print the resolved model and assumptions");
  command->add_option("spec", options->spec, "spec file (docs/model-spec.md)")->required();
  command->add_option("--format", options->format, "output format: table (default) or json");
  command->add_option("--catalog", options->catalog.catalog,
                      "GPU catalog file replacing the shipped data/gpus.json (the GPUs the spec may name)");
  command->add_option("--catalog-add", options->catalog.catalog_add,
                      "catalog file whose GPUs add to or override the catalog (repeatable)");
  command->callback([&action, options] { action = [options] { return run_validate(*options); }; });
}

} // namespace rightsize::cli
