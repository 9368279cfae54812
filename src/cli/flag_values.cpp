#include "cli/flag_values.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

// A separator between a layout's degrees, as layout_label writes them ("·", " ") or as typed ("×",
// "*", ",", and "x" after a degree's digits): its length in bytes at `at`, 0 when none is there.
std::size_t layout_separator_bytes(const std::string& text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c == ' ' || c == '*' || c == ',') return 1;
  if ((c == 'x' || c == 'X') && at > 0 && std::isdigit(static_cast<unsigned char>(text[at - 1])) != 0)
    return 1;
  if (at + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[at + 1]);
    if ((c == 0xC2 && next == 0xB7) || (c == 0xC3 && next == 0x97)) return 2; // "·" and "×" in UTF-8
  }
  return 0;
}

// The degrees of a layout as recommend prints it (app::layout_label: "TP4", "TP4·PP2", "TP8 EP8",
// "ADP8 EP8", "TP2·ADP4 EP8"; "TP4xPP2" too) pinned on `d`: an unnamed TP or PP is 1, an unnamed EP
// or attention DP is left to the layout rule (1). Returns why the text is not one, or "".
std::string pin_deployment_layout(const std::string& layout, DeploymentSpec& d) {
  std::size_t at = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int adp = 0;
  while (at < layout.size()) {
    if (const std::size_t sep = layout_separator_bytes(layout, at); sep > 0) {
      at += sep;
      continue;
    }
    std::string name;
    while (at < layout.size() && std::isalpha(static_cast<unsigned char>(layout[at])) != 0)
      name += static_cast<char>(std::toupper(static_cast<unsigned char>(layout[at++])));
    std::string digits;
    while (at < layout.size() && std::isdigit(static_cast<unsigned char>(layout[at])) != 0)
      digits += layout[at++];
    if (name.empty() && digits.empty()) return fmt::format("unexpected \"{}\"", layout.substr(at));
    int* degree = name == "TP"    ? &tp
                  : name == "PP"  ? &pp
                  : name == "EP"  ? &ep
                  : name == "ADP" ? &adp
                                  : nullptr;
    if (degree == nullptr) return fmt::format("\"{}\" is not TP, PP, EP or ADP", name + digits);
    if (digits.empty()) return fmt::format("{} needs a degree like {}4", name, name);
    if (*degree != 0) return fmt::format("{} given twice", name);
    *degree = digits.size() > 6 ? 0 : std::stoi(digits);
    if (*degree < 1 || *degree > 65536) return fmt::format("{} must be 1 to 65536", name);
  }
  if (tp == 0 && adp == 0) return "it names no TP or ADP";
  d.tp = std::max(1, tp);
  d.pp = std::max(1, pp);
  d.ep = ep;
  d.attention_dp = adp;
  return "";
}

} // namespace

DeploymentSpec parse_deployment(const std::string& text) {
  DeploymentSpec d;
  const std::size_t colon = text.find(':');
  if (colon != std::string::npos) {
    // COUNTxGPU:LAYOUT, the layout as recommend prints it.
    d = parse_deployment(text.substr(0, colon));
    const std::string why = pin_deployment_layout(text.substr(colon + 1), d);
    if (!why.empty())
      throw Error(
          ErrorKind::usage, "--deployment", "",
          fmt::format("expected COUNTxGPU:LAYOUT with the layout as recommend prints it (TP4, TP4·PP2, "
                      "TP8 EP8, ADP8 EP8), got \"{}\": {}",
                      text, why));
    return d;
  }
  const std::size_t x = text.find_first_of("xX×");
  std::string count = x == std::string::npos ? "" : text.substr(0, x);
  while (!count.empty() && count.back() == ' ')
    count.pop_back();
  const bool numeric = !count.empty() && count.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) {
    const long n = std::stol(count.substr(0, 6));
    if (n < 1 || n > 65536)
      throw Error(ErrorKind::usage, "--deployment", "",
                  fmt::format("expected 1 to 65536 GPUs, got {}", count));
    d.gpus = static_cast<int>(n);
    std::size_t start = x + 1;
    if (static_cast<unsigned char>(text[x]) == 0xC3) start = x + 2; // "×" is two bytes in UTF-8
    d.gpu = text.substr(start);
    while (!d.gpu.empty() && d.gpu.front() == ' ')
      d.gpu.erase(d.gpu.begin());
  } else {
    d.gpu = text;
  }
  if (d.gpu.empty())
    throw Error(ErrorKind::usage, "--deployment", "",
                fmt::format("expected COUNTxGPU like 2xL40S, got \"{}\"", text));
  return d;
}

double parse_share(const std::string& text, const char* flag) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  const double share = percent ? v / 100.0 : v;
  if (t.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || share < 0.0 || share > 10.0) {
    throw Error(
        ErrorKind::usage, flag, "",
        fmt::format("expected a percentage like 20% or a fraction like 0.2 (at most 10), got \"{}\"{}", text,
                    !percent && std::isfinite(v) && v > 10.0 ? fmt::format(" (did you mean {}%?)", t) : ""));
  }
  return share;
}

RankBy parse_rank_by(const std::string& text) {
  if (text == "cost_per_token") return RankBy::cost_per_token;
  if (text == "cost_per_request") return RankBy::cost_per_request;
  if (text == "latency") return RankBy::latency;
  if (text == "gpus") return RankBy::gpus;
  if (text == "energy") return RankBy::energy;
  if (text == "goodput") return RankBy::goodput;
  throw Error(ErrorKind::usage, "--rank-by", "",
              fmt::format("unknown ranking \"{}\" (expected cost_per_token, cost_per_request, latency, gpus, "
                          "energy or goodput)",
                          text));
}

app::SweepMode parse_sweep_mode(const std::string& text) {
  if (text == "estimate") return app::SweepMode::estimate;
  if (text == "recommend") return app::SweepMode::recommend;
  throw Error(ErrorKind::usage, "--mode", "",
              fmt::format("unknown mode \"{}\" (expected estimate or recommend)", text));
}

int worker_threads(int threads) {
  if (threads < 0 || threads > 256)
    throw Error(ErrorKind::usage, "--threads", "", fmt::format("expected 0 to 256, got {}", threads));
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The run-context flags that need no file: each bad one is a usage error naming it.
void check_run_context(const io::RunContext& c) {
  if (!c.engine.empty() && !parse_engine_kind(c.engine)) {
    throw Error(ErrorKind::usage, "--engine", "",
                fmt::format("unknown engine \"{}\" (expected vllm, sglang or trtllm)", c.engine));
  }
  if (!c.recompute.empty() && !parse_recompute(c.recompute)) {
    throw Error(
        ErrorKind::usage, "--recompute", "",
        fmt::format("unknown recompute \"{}\" (expected none, selective, full or per_op)", c.recompute));
  }
  const std::vector<std::string> known = {"bf16", "fp16", "fp8", "fp4", "int4"};
  if (!c.precision.empty() && std::find(known.begin(), known.end(), c.precision) == known.end()) {
    throw Error(ErrorKind::usage, "--precision", "",
                fmt::format("unknown precision \"{}\" (expected bf16, fp16, fp8, fp4 or int4)", c.precision));
  }
}

void check_layout_count(int value, const char* flag) {
  if (value < 0 || value > 65536) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("expected a positive integer up to 65536, got {}", value));
  }
}

} // namespace rightsize::cli
