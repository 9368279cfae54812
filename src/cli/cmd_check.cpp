#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_check(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("check", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "check", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
