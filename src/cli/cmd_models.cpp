// `rightsize models`: the shipped model presets (data/models).
// Flow: flags -> app::ModelsRequest -> app::run_models -> render_models.
#include <memory>

#include "app/models.hpp"
#include "cli/commands.hpp"
#include "render/models_render.hpp"

namespace rightsize::cli {
namespace {

int run_models(const std::string& format_text) {
  const Format format = parse_format(format_text, {"table", "json"});
  const app::ModelsRequest request{environment()};
  render_models(app::run_models(request), format);
  return 0;
}

} // namespace

void add_models(CLI::App& app, Action& action) {
  auto format = std::make_shared<std::string>("table");
  auto* command = app.add_subcommand("models", "list the shipped model presets");
  command->add_option("--format", *format, "output format: table (default) or json");
  command->callback([&action, format] { action = [format] { return run_models(*format); }; });
}

} // namespace rightsize::cli
