#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_estimate(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("estimate", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "estimate", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
