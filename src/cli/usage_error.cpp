// Command-line errors in rightsize's words: CLI11's own messages ("1 required TEXT missing", "a
// subcommand is required" for a misspelt command) are library text and never reach the user.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

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

// Strict decimal: an optional '-', then digits (no '+', hex, octal, binary, spaces or suffixes).
bool is_decimal_integer(const std::string& text) {
  const std::size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == start || text.size() > start + 18) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// Strict decimal number: digits with an optional '.', fraction and exponent (no hex floats, inf, nan).
bool is_decimal_number(const std::string& text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      ++i;
    return i - from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  std::size_t count = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    count += digits();
  }
  if (count == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size() && text.size() <= 64;
}

// An integer flag and the values it accepts; 0 never means "unset" on the command line.
struct IntegerFlag {
  const char* name;
  long long min;
  long long max;
  const char* expected;
};

constexpr IntegerFlag k_integer_flags[] = {
    {"--gpus", 1, 65536, "a positive integer up to 65536"},
    {"--tp", 1, 65536, "a positive integer up to 65536"},
    {"--pp", 1, 65536, "a positive integer up to 65536"},
    {"--ep", 1, 65536, "a positive integer up to 65536"},
    {"--attention-dp", 1, 65536, "a positive integer up to 65536"},
    {"--max-num-seqs", 1, 1'000'000, "1 to 1000000 sequences"},
    {"--max-batched-tokens", 16, 10'000'000, "16 to 10000000 tokens"},
    {"--max-gpus-per-replica", 1, 65536, "a positive integer up to 65536"},
    {"--max-nodes", 1, 65536, "a positive integer up to 65536"},
    {"--top", 1, 1000, "1 to 1000"},
    {"--rank", 1, 1'000'000, "1 to 1000000"},
    {"--threads", 0, 256, "0 to 256"},
    {"--concurrency", 1, 1'000'000, "1 to 1000000"},
    {"--seq-len", 1, 100'000'000, "1 to 100000000 tokens"},
    {"--global-batch", 1, 100'000'000, "1 to 100000000 sequences"},
    {"--warmup-steps", 0, 1'000'000'000, "0 to 1000000000 steps"},
    {"--max-price-age", 0, 36500, "0 to 36500 days"},
};

CLI::Validator integer_validator(const IntegerFlag& flag) {
  return CLI::Validator(
      [flag](std::string& value) -> std::string {
        if (!is_decimal_integer(value))
          return fmt::format("expected {} in decimal digits, got \"{}\"", flag.expected, value);
        const long long n = std::strtoll(value.c_str(), nullptr, 10); // at most 18 digits: fits
        if (n < flag.min || n > flag.max) return fmt::format("expected {}, got {}", flag.expected, value);
        return "";
      },
      "", "strict integer");
}

CLI::Validator fraction_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!is_decimal_number(value))
          return fmt::format("expected a fraction in (0.05, 1] in decimal digits, got \"{}\"", value);
        const double f = std::strtod(value.c_str(), nullptr); // syntax checked; never throws

        if (!(f > 0.05 && f <= 1.0)) return fmt::format("expected a fraction in (0.05, 1], got {}", value);
        return "";
      },
      "", "strict fraction");
}

// --headroom: a plain decimal from 0 to 10 (CLI11 would take "nan", "inf" or hex floats).
CLI::Validator headroom_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!is_decimal_number(value))
          return fmt::format("expected 0 to 10 in decimal digits, got \"{}\"", value);
        const double f = std::strtod(value.c_str(), nullptr);
        if (!(f >= 0.0 && f <= 10.0)) return fmt::format("expected 0 to 10, got {}", value);
        return "";
      },
      "", "strict headroom");
}

void add_number_checks(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    for (const IntegerFlag& flag : k_integer_flags) {
      if (option->check_lname(flag.name + 2)) option->check(integer_validator(flag));
    }
    if (option->check_lname("gpu-memory-utilization")) option->check(fraction_validator());
    if (option->check_lname("headroom")) option->check(headroom_validator());
  }
  for (CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; }))
    add_number_checks(*sub);
}

} // namespace

void strict_number_flags(CLI::App& app) {
  add_number_checks(app);
}

std::string usage_error_text(const CLI::App& app, const CLI::ParseError& error,
                             const std::vector<std::string>& args) {
  std::string what = error.what();
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
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && !app.get_subcommands().empty()) {
    // A command with subcommands of its own (`catalog list|show`) given none or a wrong one.
    const CLI::App& command = *app.get_subcommands().front();
    const std::vector<std::string> subs = command_names(command);
    if (!subs.empty() && command.get_subcommands().empty()) {
      const auto at = std::find(args.begin(), args.end(), command.get_name());
      const std::string word = at != args.end() && at + 1 != args.end() ? *(at + 1) : std::string();
      if (word.empty() || word[0] == '-')
        return fmt::format("{}: expected a subcommand ({})", command.get_name(), join(subs));
      const std::string hint = did_you_mean(word, subs);
      return hint.empty() ? fmt::format("{}: unknown subcommand \"{}\" (expected one of {})",
                                        command.get_name(), word, join(subs))
                          : fmt::format("{}: unknown subcommand \"{}\"; did you mean \"{}\"?",
                                        command.get_name(), word, hint);
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    const auto colon = what.find(':');
    if (colon != std::string::npos && what.find("At Most", colon) != std::string::npos)
      return fmt::format("{}: given more than once; give it once", what.substr(0, colon));
    if (colon != std::string::npos)
      return fmt::format("{}: expected a value, got none", what.substr(0, colon));
  }
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    return what; // our own validators below: "--gpus: expected ..., got ..."
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
