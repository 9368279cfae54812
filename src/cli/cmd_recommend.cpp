#include "app.hpp"

#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_recommend(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("recommend", "(being built)");
  command->callback([&action] {
    action = [] () -> int { throw Error(ErrorKind::usage, "recommend", "", "this subcommand is not built yet"); };
  });
}

}  // namespace rightsize::cli
