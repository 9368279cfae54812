#include "overlay_io.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_reader.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

namespace rightsize::io {
namespace {

constexpr int k_overlay_schema_version = 1;
constexpr const char* k_overlay_kind = "rightsize-calibration-overlay";

double rounded(double v) {
  return std::round(v * 1e4) / 1e4;
}

struct FactorSlot {
  const char* name;
  double GpuEfficiency::*value;
  std::string FittedEfficiency::*source;
  std::vector<std::string> FittedEfficiency::*cases;
};

const FactorSlot k_slots[] = {
    {"decode_bandwidth", &GpuEfficiency::decode_bandwidth, &FittedEfficiency::decode_source,
     &FittedEfficiency::decode_cases},
    {"prefill_compute", &GpuEfficiency::prefill_compute, &FittedEfficiency::prefill_source,
     &FittedEfficiency::prefill_cases},
    {"communication", &GpuEfficiency::communication, &FittedEfficiency::communication_source,
     &FittedEfficiency::communication_cases},
    {"training_mfu", &GpuEfficiency::training_mfu, &FittedEfficiency::training_source,
     &FittedEfficiency::training_cases},
};

} // namespace

nlohmann::json figure_errors_json(const std::vector<FigureError>& errors) {
  nlohmann::json out = nlohmann::json::array();
  for (const FigureError& e : errors) {
    out.push_back({{"figure", to_string(e.kind)},
                   {"runs", e.runs},
                   {"median_ape_shipped_pct", std::round(e.median_ape_shipped_pct * 10.0) / 10.0},
                   {"median_ape_fitted_pct", std::round(e.median_ape_fitted_pct * 10.0) / 10.0}});
  }
  return out;
}

std::string overlay_to_json(const CalibrationOverlay& overlay) {
  nlohmann::json doc;
  doc["schema_version"] = k_overlay_schema_version;
  doc["kind"] = k_overlay_kind;
  doc["description"] =
      "Efficiency factors fitted by 'rightsize calibrate' to the user's benchmark runs, applied "
      "on top of data/calibration.json with --calibration FILE (docs/calibration.md).";
  doc["date"] = overlay.date;
  doc["inputs"] = overlay.inputs;
  doc["holdout_inputs"] = overlay.holdout_inputs;
  nlohmann::json stacks = nlohmann::json::array();
  for (const StackFit& s : overlay.stacks) {
    nlohmann::json j;
    j["gpu"] = s.gpu_id;
    j["engine"] = s.engine;
    j["runs"] = s.runs;
    for (const FactorSlot& f : k_slots) {
      j["efficiency"][f.name] = rounded(s.fitted.efficiency.*f.value);
      j["shipped"][f.name] = rounded(s.shipped.*f.value);
      j["source"][f.name] = s.fitted.*f.source;
      j["fitted_to"][f.name] = s.fitted.*f.cases;
    }
    nlohmann::json bands = nlohmann::json::array();
    for (const BandEntry& b : s.bands) {
      bands.push_back({{"kind", to_string(b.kind)},
                       {"ratio_low", rounded(b.ratio_low)},
                       {"ratio_high", rounded(b.ratio_high)},
                       {"cases", b.cases},
                       {"rule", b.rule}});
    }
    j["bands"] = bands;
    j["error_leave_one_out"] = figure_errors_json(s.loo);
    j["error_holdout"] = figure_errors_json(s.holdout);
    stacks.push_back(j);
  }
  doc["stacks"] = stacks;
  return doc.dump(1) + "\n";
}

CalibrationOverlay load_overlay(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  root.expect_object();
  const auto found = root.find("kind");
  if (!found) {
    throw Error(
        ErrorKind::input, path, "/kind",
        fmt::format("missing: expected an overlay written by 'rightsize calibrate' (\"kind\": \"{}\"); "
                    "the shipped data/calibration.json is applied already",
                    k_overlay_kind));
  }
  const JsonReader& kind = *found;
  if (kind.as_string() != k_overlay_kind) {
    kind.fail(fmt::format("expected \"{}\" (a file written by 'rightsize calibrate'), got \"{}\"",
                          k_overlay_kind, kind.as_string()));
  }
  (void)root.at("schema_version").as_int(k_overlay_schema_version, k_overlay_schema_version);
  CalibrationOverlay out;
  out.date = root.at("date").as_string();
  if (const auto inputs = root.find("inputs")) {
    for (const JsonReader& i : inputs->elements())
      out.inputs.push_back(i.as_string());
  }
  if (const auto held = root.find("holdout_inputs")) {
    for (const JsonReader& i : held->elements())
      out.holdout_inputs.push_back(i.as_string());
  }
  for (const JsonReader& s : root.at("stacks").elements()) {
    StackFit fit;
    fit.gpu_id = s.at("gpu").as_string();
    const JsonReader engine = s.at("engine");
    fit.engine = engine.as_string();
    if (fit.engine != "training" && !parse_engine_kind(fit.engine)) {
      engine.fail("unknown engine \"" + fit.engine + "\" (expected vllm, sglang, trtllm or training)");
    }
    for (const StackFit& other : out.stacks) {
      // One serving engine per GPU, plus at most one training stack.
      if (other.gpu_id == fit.gpu_id && (other.engine == "training") == (fit.engine == "training")) {
        s.at("gpu").fail(fmt::format("a second stack for {}: an overlay holds one engine per GPU (write one "
                                     "file per engine)",
                                     fit.gpu_id));
      }
    }
    fit.fitted.gpu_id = fit.gpu_id;
    for (const JsonReader& r : s.at("runs").elements())
      fit.runs.push_back(r.as_string());
    const JsonReader eff = s.at("efficiency");
    const JsonReader src = s.at("source");
    for (const FactorSlot& f : k_slots) {
      // The physical range of every factor (a fraction of the peak); calibrate stays inside FitOptions'.
      fit.fitted.efficiency.*f.value = eff.at(f.name).as_number(0.01, 1.0);
      fit.fitted.*f.source = src.at(f.name).as_choice({"fitted", "shipped"});
      if (const auto shipped = s.find("shipped"))
        fit.shipped.*f.value = shipped->at(f.name).as_number(0.0, 1.0);
      if (const auto to = s.find("fitted_to")) {
        for (const JsonReader& id : to->at(f.name).elements())
          (fit.fitted.*f.cases).push_back(id.as_string());
      }
    }
    for (const JsonReader& b : s.at("bands").elements()) {
      BandEntry e;
      const JsonReader k = b.at("kind");
      const auto parsed = parse_figure_kind(k.as_string());
      if (!parsed) k.fail("unknown kind \"" + k.as_string() + "\"");
      e.kind = *parsed;
      e.gpu_id = fit.gpu_id;
      e.ratio_low = b.at("ratio_low").as_positive(1.0);
      e.ratio_high = b.at("ratio_high").as_number(1.0, 1e6);
      e.cases = static_cast<int>(b.at("cases").as_int(0, 1'000'000));
      e.rule = b.at("rule").as_string();
      fit.bands.push_back(e);
    }
    out.stacks.push_back(std::move(fit));
  }
  return out;
}

} // namespace rightsize::io
