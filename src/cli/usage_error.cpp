// Command-line errors in rightsize's words: CLI11's own messages ("1 required TEXT missing", "a
// subcommand is required" for a misspelt command) are library text and never reach the user.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

std::string lower_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// Long option names of the command that was parsed (or of the top level).
std::vector<std::string> option_names(const CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const CLI::App& command = parsed.empty() ? app : *parsed.front();
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
  }
  return names;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

} // namespace

std::string usage_error_text(const CLI::App& app, const CLI::ParseError& error,
                             const std::vector<std::string>& args) {
  const std::string what = error.what();
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && app.get_subcommands().empty()) {
    const std::vector<std::string> commands = command_names(app);
    if (args.empty() || args.front().empty() || args.front()[0] == '-') {
      return fmt::format("expected a command ({})", join(commands));
    }
    const std::string hint = did_you_mean(args.front(), commands);
    return hint.empty()
               ? fmt::format("unknown command \"{}\" (expected one of {})", args.front(), join(commands))
               : fmt::format("unknown command \"{}\"; did you mean \"{}\"?", args.front(), hint);
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    const auto colon = what.find(':');
    if (colon != std::string::npos)
      return fmt::format("{}: expected a value, got none", what.substr(0, colon));
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // CLI11 lists the extras last first; an unknown option explains the rest, so report it first.
    const auto start = what.find(": ");
    std::vector<std::string> extras;
    for (std::size_t at = start == std::string::npos ? 0 : start + 2; at < what.size();) {
      const std::size_t end = std::min(what.find(' ', at), what.size());
      if (end > at) extras.push_back(what.substr(at, end - at));
      at = end + 1;
    }
    const auto option =
        std::find_if(extras.begin(), extras.end(), [](const std::string& e) { return e[0] == '-'; });
    const std::string extra = option != extras.end() ? *option : extras.empty() ? what : extras.back();
    if (!extra.empty() && extra[0] == '-') {
      const std::string name = extra.substr(0, extra.find('='));
      const std::string hint = did_you_mean(name, option_names(app));
      return hint.empty() ? fmt::format("unknown option \"{}\"", name)
                          : fmt::format("unknown option \"{}\"; did you mean \"{}\"?", name, hint);
    }
    return fmt::format("unexpected argument \"{}\"", extra);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    // "Could not convert: --gpus = abc"
    const auto colon = what.find(": ");
    const auto equals = what.find(" = ");
    if (colon != std::string::npos && equals != std::string::npos && equals > colon) {
      return fmt::format("{}: expected a number, got \"{}\"", what.substr(colon + 2, equals - colon - 2),
                         what.substr(equals + 3));
    }
  }
  return lower_first(what);
}

} // namespace rightsize::cli
