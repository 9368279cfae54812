// Text for the workload enums of spec.hpp.
#include "rightsize/spec.hpp"

#include <cmath>

namespace rightsize {

const char* to_string(SpeculativeMethod value) {
  switch (value) {
  case SpeculativeMethod::none: return "none";
  case SpeculativeMethod::mtp: return "mtp";
  case SpeculativeMethod::eagle3: return "eagle3";
  case SpeculativeMethod::ngram: return "ngram";
  case SpeculativeMethod::draft_model: return "draft_model";
  }
  return "none";
}

const char* to_string(OffloadTier value) {
  switch (value) {
  case OffloadTier::none: return "none";
  case OffloadTier::cpu: return "cpu";
  case OffloadTier::nvme: return "nvme";
  }
  return "none";
}

// Leviathan, Kalman, Matias, "Fast Inference from Transformers via Speculative Decoding" (ICML
// 2023) eq. 1: with each of k drafted tokens accepted with probability a (i.i.d.), a verification
// step yields (1 − a^(k+1)) / (1 − a) tokens (the accepted run plus the model's own next token).
// By position, the i-th drafted token counts when it and every one before it are accepted: E = 1 +
// Σ_{i=1..k} Π_{j≤i} a_j (the same expectation without the i.i.d. assumption; methodology §3.8).
double Speculative::tokens_per_step() const {
  if (method == SpeculativeMethod::none || draft_tokens <= 0) return 1.0;
  if (!acceptance_by_position.empty()) {
    double e = 1.0, run = 1.0;
    for (const double a : acceptance_by_position) {
      run *= a;
      e += run;
    }
    return e;
  }
  const double k = static_cast<double>(draft_tokens);
  if (acceptance_rate >= 1.0) return k + 1.0;
  return (1.0 - std::pow(acceptance_rate, k + 1.0)) / (1.0 - acceptance_rate);
}

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

const char* to_string(LengthShape value) {
  switch (value) {
  case LengthShape::fixed: return "fixed";
  case LengthShape::percentiles: return "p50/p99";
  case LengthShape::lognormal: return "lognormal";
  case LengthShape::exponential: return "exponential";
  case LengthShape::uniform: return "uniform";
  case LengthShape::trace: return "trace";
  }
  return "fixed";
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
  case TrainingFramework::transformers: return "transformers";
  }
  return "generic";
}

std::optional<TrainingFramework> parse_training_framework(std::string_view text) {
  for (const TrainingFramework f : k_training_frameworks)
    if (text == to_string(f)) return f;
  return std::nullopt;
}

std::vector<std::string> training_framework_names() {
  std::vector<std::string> names;
  for (const TrainingFramework f : k_training_frameworks)
    names.emplace_back(to_string(f));
  return names;
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
