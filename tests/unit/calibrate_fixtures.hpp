#pragma once
// Shared by the calibrate tests: the shipped presets, the files of tests/calibrate/, and synthetic
// runs whose "measurements" are the estimator's own predictions at known factors.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "io/runs/validation_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::test {

inline const std::vector<io::Preset>& shipped_presets() {
  static const std::vector<io::Preset> p = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  return p;
}

inline std::string calibrate_fixture(const char* name) {
  return std::string(RIGHTSIZE_TEST_DATA_DIR) + "/calibrate/" + name;
}

/// `json` (io::calibration_to_json's text) read back as data/calibration.json is read, through the
/// file `name` in the temporary directory, which is removed again.
inline Calibration calibration_round_trip(const std::string& json, const char* name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  io::write_text_file(path, json);
  Calibration back = io::load_calibration(path);
  std::filesystem::remove(path);
  return back;
}

/// A vLLM run of Llama 3.1 8B on the H100 fixture at tp = 1, measured at efficiency `truth`, its
/// TTFT times `ttft_factor`.
inline StackRun synthetic_run(const std::string& id, std::int64_t isl, std::int64_t osl,
                              std::int64_t concurrency, const GpuEfficiency& truth, double ttft_factor = 1.0,
                              int tp = 1) {
  StackRun r;
  r.run.id = id;
  r.run.tp = tp;
  r.run.engine = "vllm";
  r.run.gpu_id = "H100-SXM";
  r.run.preset = "llama-3.1-8b";
  r.run.precision = "bf16";
  r.run.mode = "agg";
  r.run.input_tokens = isl;
  r.run.output_tokens = osl;
  r.run.concurrency = concurrency;
  r.model = llama31_8b();
  Gpu g = h100_sxm();
  g.efficiency = truth;
  const EngineConfig engine = shipped_engine(EngineKind::vllm);
  ValidationCase probe;
  probe.model = r.model;
  probe.precision = precision_of(r.run);
  probe.gpu_id = g.id;
  probe.deployment = deployment_of(r.run);
  probe.workload.input_tokens = isl;
  probe.workload.output_tokens = osl;
  probe.workload.concurrency = concurrency;
  probe.kind = FigureKind::ttft;
  r.run.ttft_s = predict_case(probe, g, engine) * ttft_factor;
  probe.kind = FigureKind::tpot;
  r.run.tpot_s = predict_case(probe, g, engine);
  return r;
}

} // namespace rightsize::test
