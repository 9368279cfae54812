#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_sweep(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("sweep", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "sweep", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
