#include "cli/flag_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {

DeploymentSpec parse_deployment(const std::string& text) {
  DeploymentSpec d;
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
  throw Error(
      ErrorKind::usage, "--rank-by", "",
      fmt::format(
          "unknown ranking \"{}\" (expected cost_per_token, cost_per_request, latency, gpus or energy)",
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
