#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_validate(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("validate", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "validate", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
