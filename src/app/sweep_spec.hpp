#pragma once
// Resolving the model keys of a sweep through the spec loader (docs/sweep.md "Keys").
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "app/sweep.hpp"

namespace rightsize::app {

/// Most distinct (model.*, precision.*) combinations one sweep may prepare.
inline constexpr std::uint64_t k_max_model_combinations = 4096;

/// Where the spec document came from, for parse_spec.
struct SpecSource {
  std::string path;       ///< the spec file, named in messages
  std::string base_dir;   ///< its folder (relative hf_config / checkpoint paths)
  std::string models_dir; ///< data/models
};

/// Fills plan.model_axes, plan.model_grid and plan.models: for every combination of the model
/// keys (last axis fastest) the spec document is edited (precision / model.preset first, then
/// fields inside them) and parsed again. A parse error keeps its pointer and names the values.
void prepare_sweep_models(SweepPlan& plan, const nlohmann::json& document, const SpecSource& source);

} // namespace rightsize::app
