// Text for the workload enums of spec.hpp.
#include "rightsize/spec.hpp"

namespace rightsize {

const char* to_string(TrainingMethod value) {
  switch (value) {
  case TrainingMethod::full: return "full";
  case TrainingMethod::lora: return "lora";
  case TrainingMethod::qlora: return "qlora";
  }
  return "full";
}

const char* to_string(Optimizer value) {
  switch (value) {
  case Optimizer::adamw: return "adamw";
  case Optimizer::adamw_8bit: return "adamw-8bit";
  case Optimizer::sgd: return "sgd";
  }
  return "adamw";
}

const char* to_string(Arrival value) {
  return value == Arrival::poisson ? "poisson" : "closed_loop";
}

const char* to_string(Statistic value) {
  switch (value) {
  case Statistic::mean: return "mean";
  case Statistic::p50: return "p50";
  case Statistic::p90: return "p90";
  case Statistic::p99: return "p99";
  }
  return "mean";
}

const char* to_string(Recompute value) {
  switch (value) {
  case Recompute::none: return "none";
  case Recompute::selective: return "selective";
  case Recompute::full: return "full";
  case Recompute::per_op: return "per_op";
  }
  return "none";
}

std::optional<Recompute> parse_recompute(std::string_view text) {
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full, Recompute::per_op})
    if (text == to_string(r)) return r;
  return std::nullopt;
}

const char* to_string(TrainingFramework value) {
  switch (value) {
  case TrainingFramework::generic: return "generic";
  case TrainingFramework::megatron: return "megatron";
  case TrainingFramework::nemo: return "nemo";
  case TrainingFramework::torchtitan: return "torchtitan";
  }
  return "generic";
}

const char* to_string(LoraTargets value) {
  switch (value) {
  case LoraTargets::all_linear: return "all_linear";
  case LoraTargets::attention: return "attention";
  case LoraTargets::qv: return "qv";
  }
  return "all_linear";
}

} // namespace rightsize
