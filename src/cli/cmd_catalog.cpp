// `rightsize catalog list` and `rightsize catalog show ID`: the GPU catalog with prices under the
// chosen price model (docs/catalog.md); results on stdout, diagnostics on stderr.
// Flow: flags -> app::CatalogRequest -> app::run_catalog -> render_catalog.
#include <memory>

#include "app/catalog.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "render/catalog_render.hpp"

namespace rightsize::cli {
namespace {

struct CatalogCommand {
  CatalogOptions catalog;
  std::string format = "table";
  std::string gpu;
};

int run_catalog(const CatalogCommand& command, bool show) {
  const Format format = show ? parse_format(command.format, {"table", "json"})
                             : parse_format(command.format, {"table", "json", "csv", "markdown"});
  app::CatalogRequest request;
  request.show = show;
  request.gpu = command.gpu;
  request.catalog = catalog_setup(command.catalog);
  request.environment = environment();
  LogDiagnostics diagnostics;
  const app::CatalogOutcome outcome = app::run_catalog(request, diagnostics);
  render_catalog(outcome, format);
  return 0;
}

} // namespace

void add_catalog(CLI::App& app, Action& action) {
  auto command = std::make_shared<CatalogCommand>();
  auto* catalog = app.add_subcommand("catalog", "list the GPU catalog, or show one GPU with its sources");
  catalog->require_subcommand(1, 1);

  auto* list = catalog->add_subcommand("list", "list GPUs with memory, bandwidth, dense TFLOPS and price");
  list->add_option("--format", command->format, "table (default), json, csv or markdown");
  add_catalog_options(list, command->catalog);
  list->callback([&action, command] { action = [command] { return run_catalog(*command, false); }; });

  auto* show =
      catalog->add_subcommand("show", "show every field of one GPU with its sources, prices and TCO");
  show->add_option("gpu", command->gpu, "GPU id or alias (case-insensitive), e.g. H100-SXM or h100")
      ->required();
  show->add_option("--format", command->format, "table (default) or json");
  add_catalog_options(show, command->catalog);
  show->callback([&action, command] { action = [command] { return run_catalog(*command, true); }; });
}

} // namespace rightsize::cli
