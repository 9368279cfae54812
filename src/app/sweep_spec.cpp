// Model keys of a sweep (model.*, precision.*): each distinct combination edits the spec JSON and
// goes through parse_spec + prepare_model once, so every value is validated exactly like a spec
// file and reported with its JSON pointer (docs/sweep.md "Keys").
#include "app/sweep_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"

namespace rightsize::app {
namespace {

nlohmann::json value_json(const SweepAxis& axis, std::size_t digit) {
  if (!axis.values.numeric) return axis.values.texts[digit];
  const double v = axis.values.numbers[digit];
  if (axis.values.integral) return static_cast<std::int64_t>(v);
  return v;
}

// Whole values first (precision, model.preset), then fields inside them, so the order of the
// --vary flags does not change the result.
void apply_model_keys(nlohmann::json& doc, const SweepPlan& plan, std::span<const std::size_t> digits) {
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < plan.model_axes.size(); ++i) {
      const SweepAxis& axis = plan.axes[plan.model_axes[i]];
      const std::string_view name = axis.key->name;
      const bool whole = name == "precision" || name == "model.preset";
      if (whole != (pass == 0)) continue;
      const nlohmann::json value = value_json(axis, digits[i]);
      if (name == "precision") {
        doc["precision"] = value;
      } else if (name == "model.preset") {
        nlohmann::json& model = doc["model"];
        if (!model.is_object()) model = nlohmann::json::object();
        model.erase("hf_config"); // a preset replaces the model's source
        model.erase("checkpoint");
        model["preset"] = value;
      } else if (name.starts_with("precision.")) {
        nlohmann::json& p = doc["precision"];
        // A precision name is shorthand for {"weights": name} (docs/model-spec.md).
        if (p.is_string()) p = nlohmann::json{{"weights", p}};
        if (!p.is_object()) p = nlohmann::json::object();
        p[std::string(name.substr(10))] = value;
      } else {
        std::string pointer(1, '/'); // appended: GCC 12 warns falsely (-Wrestrict) on "/" + string
        pointer.append(name);
        std::replace(pointer.begin(), pointer.end(), '.', '/');
        doc[nlohmann::json::json_pointer(pointer)] = value;
      }
    }
  }
}

std::string combination_text(const SweepPlan& plan, std::span<const std::size_t> digits) {
  std::string out;
  for (std::size_t i = 0; i < plan.model_axes.size(); ++i) {
    const SweepAxis& axis = plan.axes[plan.model_axes[i]];
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", axis.key->name, axis.values.texts[digits[i]]);
  }
  return out;
}

} // namespace

void prepare_sweep_models(SweepPlan& plan, const nlohmann::json& document, const SpecSource& source) {
  plan.model_axes.clear();
  std::vector<std::size_t> sizes;
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    if (plan.axes[a].key->field != SweepField::model_json) continue;
    plan.model_axes.push_back(a);
    sizes.push_back(plan.axes[a].values.texts.size());
  }
  const std::uint64_t combinations = grid_points(sizes, k_max_model_combinations);
  if (combinations == 0) {
    throw Error(
        ErrorKind::usage, "--vary", "",
        fmt::format("model and precision keys give more than {} combinations", k_max_model_combinations));
  }
  plan.model_grid = GridShape(sizes);
  plan.models.clear();
  std::array<std::size_t, k_max_sweep_axes> digits{};
  for (std::uint64_t c = 0; c < combinations; ++c) {
    plan.model_grid.decode(c, digits);
    nlohmann::json doc = document;
    apply_model_keys(doc, plan, digits);
    Spec spec;
    try {
      spec = io::parse_spec(doc, source.path, source.base_dir, source.models_dir);
    } catch (const Error& e) {
      // The spec file is fine on its own: say which swept values made it invalid.
      throw Error(e.kind(), e.source(), e.pointer(),
                  fmt::format("{} (with --vary {})", e.message(), combination_text(plan, digits)));
    }
    plan.models.push_back(prepare_model(spec.model, spec.precision));
  }
}

} // namespace rightsize::app
