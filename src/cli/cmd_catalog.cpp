#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_catalog(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("catalog", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "catalog", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
