#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_models(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("models", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "models", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
