// Calibration and accuracy-baseline files <-> checked values (tests/validation/README.md,
// docs/calibration.md): data/calibration.json, tests/validation/baseline.json.
#include <cmath>
#include <fstream>

#include "io/json/json_reader.hpp"
#include "io/json/json_text.hpp"
#include "io/runs/validation_io.hpp"

namespace rightsize::io {
namespace {

constexpr int k_calibration_schema_version = 1;

// Rounds for stable, readable files: 4 significant decimals are far below the errors discussed.
double rounded_for_json(double v) {
  return std::round(v * 1e4) / 1e4;
}

// A small time in seconds to 4 significant digits (rounded_for_json would round microseconds away).
double significant_for_json(double v) {
  if (v == 0.0) return 0.0;
  const double scale = std::pow(10.0, 3.0 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

} // namespace

std::string calibration_to_json(const Calibration& cal) {
  nlohmann::json doc;
  doc["schema_version"] = cal.schema_version;
  doc["description"] =
      "Efficiency factors fitted to tests/validation/cases.json and error bands (ratio measured/predicted, "
      "p10/p90 of leave-one-out residuals). Written by bench/accuracy_report; see docs/accuracy.md.";
  nlohmann::json gpus = nlohmann::json::array();
  for (const FittedEfficiency& f : cal.gpus) {
    nlohmann::json g;
    g["gpu"] = f.gpu_id;
    g["efficiency"] = {{"decode_bandwidth", rounded_for_json(f.efficiency.decode_bandwidth)},
                       {"prefill_compute", rounded_for_json(f.efficiency.prefill_compute)},
                       {"training_mfu", rounded_for_json(f.efficiency.training_mfu)},
                       {"communication", rounded_for_json(f.efficiency.communication)}};
    g["source"] = {{"decode_bandwidth", f.decode_source},
                   {"prefill_compute", f.prefill_source},
                   {"training_mfu", f.training_source},
                   {"communication", f.communication_source}};
    g["fitted_to"] = {{"decode_bandwidth", f.decode_cases},
                      {"prefill_compute", f.prefill_cases},
                      {"training_mfu", f.training_cases},
                      {"communication", f.communication_cases}};
    // The expert-read fraction only where the MoE serving rows fitted one (methodology §4.3).
    if (f.expert_read_source != "default") {
      g["efficiency"]["expert_read"] = rounded_for_json(f.efficiency.expert_read);
      g["source"]["expert_read"] = f.expert_read_source;
      g["fitted_to"]["expert_read"] = f.expert_read_cases;
    }
    // The per-sequence decode time only where published static-batch runs fitted one (methodology §3).
    if (f.sequence_layer_source != "default") {
      g["efficiency"]["decode_sequence_layer_s"] = significant_for_json(f.efficiency.decode_sequence_layer_s);
      g["source"]["decode_sequence_layer_s"] = f.sequence_layer_source;
      g["fitted_to"]["decode_sequence_layer_s"] = f.sequence_layer_cases;
    }
    // One UNet rate for every GPU, on the pooled entry only (methodology §3.7 "UNet rate").
    if (!f.unet_cases.empty()) {
      g["efficiency"]["unet_gemm_fraction"] = rounded_for_json(f.efficiency.unet_gemm_fraction);
      g["fitted_to"]["unet_gemm_fraction"] = f.unet_cases;
    }
    gpus.push_back(g);
  }
  doc["gpus"] = gpus;
  nlohmann::json bands = nlohmann::json::array();
  for (const BandEntry& b : cal.bands) {
    bands.push_back({{"kind", to_string(b.kind)},
                     {"gpu", b.gpu_id},
                     {"ratio_low", rounded_for_json(b.ratio_low)},
                     {"ratio_high", rounded_for_json(b.ratio_high)},
                     {"cases", b.cases},
                     {"rule", b.rule}});
    if (!b.model_class.empty()) bands.back()["model_class"] = b.model_class;
  }
  doc["bands"] = bands;
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassWidening& c : cal.classes) {
    classes.push_back(
        {{"model_class", c.model_class}, {"cases", c.cases}, {"factor", rounded_for_json(c.factor)}});
  }
  doc["model_classes"] = classes;
  nlohmann::json reach = nlohmann::json::array();
  for (const ReachBand& r : cal.reach_bands) {
    reach.push_back({{"kind", to_string(r.kind)},
                     {"reach", to_string(r.reach)},
                     {"ratio_low", rounded_for_json(r.ratio_low)},
                     {"ratio_high", rounded_for_json(r.ratio_high)},
                     {"rows", r.rows},
                     {"held_out", r.held_out}});
  }
  if (!reach.empty()) doc["reach_bands"] = reach;
  nlohmann::json measured = nlohmann::json::array();
  for (const MeasuredModels& m : cal.measured_models)
    measured.push_back({{"gpu", m.gpu_id}, {"models", m.models}});
  if (!measured.empty()) doc["measured_models"] = measured;
  return io::json_text(doc, 1) + "\n";
}

namespace {

// "reach_bands": [{kind, reach, ratio_low, ratio_high, rows, held_out}] (docs/accuracy.md "Bands by
// reach"): TTFT or TPOT bands of estimates that are not measured: model_unmeasured, gpu_sibling or
// extrapolated.
std::vector<ReachBand> read_reach_bands(const JsonReader& list) {
  std::vector<ReachBand> out;
  for (const JsonReader& r : list.elements()) {
    ReachBand band;
    const JsonReader kind = r.at("kind");
    const auto k = parse_figure_kind(kind.as_string());
    if (!k || (*k != FigureKind::ttft && *k != FigureKind::tpot)) kind.fail("expected \"ttft\" or \"tpot\"");
    band.kind = *k;
    const JsonReader reach = r.at("reach");
    if (reach.as_string() == "model_unmeasured") {
      band.reach = Reach::model_unmeasured;
    } else if (reach.as_string() == "gpu_sibling") {
      band.reach = Reach::gpu_sibling;
    } else if (reach.as_string() == "extrapolated") {
      band.reach = Reach::extrapolated;
    } else {
      reach.fail("expected \"model_unmeasured\", \"gpu_sibling\" or \"extrapolated\"");
    }
    band.ratio_low = r.at("ratio_low").as_positive(1.0);
    band.ratio_high = r.at("ratio_high").as_positive(1e6);
    if (band.ratio_high < 1.0) r.at("ratio_high").fail("expected a number of at least 1");
    band.rows = static_cast<int>(r.at("rows").as_int(0, 1'000'000));
    for (const JsonReader& id : r.at("held_out").elements())
      band.held_out.push_back(id.as_string());
    out.push_back(std::move(band));
  }
  return out;
}

// "measured_models": [{gpu, models}]: the models whose serving rows made each GPU's bands
// (serving_reach); each list sorted, each GPU once.
std::vector<MeasuredModels> read_measured_models(const JsonReader& list) {
  std::vector<MeasuredModels> out;
  for (const JsonReader& m : list.elements()) {
    MeasuredModels entry;
    entry.gpu_id = m.at("gpu").as_string();
    const JsonReader models = m.at("models");
    for (const JsonReader& name : models.elements())
      entry.models.push_back(name.as_string());
    if (!std::is_sorted(entry.models.begin(), entry.models.end()))
      models.fail("expected the model names sorted");
    if (std::any_of(out.begin(), out.end(),
                    [&](const MeasuredModels& x) { return x.gpu_id == entry.gpu_id; }))
      m.at("gpu").fail("expected each GPU once");
    out.push_back(std::move(entry));
  }
  return out;
}

} // namespace

Calibration load_calibration(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  Calibration cal;
  cal.schema_version = static_cast<int>(
      root.at("schema_version").as_int(k_calibration_schema_version, k_calibration_schema_version));
  for (const JsonReader& g : root.at("gpus").elements()) {
    FittedEfficiency f;
    f.gpu_id = g.at("gpu").as_string();
    const JsonReader e = g.at("efficiency");
    f.efficiency.decode_bandwidth = e.at("decode_bandwidth").as_positive(1.0);
    f.efficiency.prefill_compute = e.at("prefill_compute").as_positive(1.0);
    f.efficiency.training_mfu = e.at("training_mfu").as_positive(1.0);
    f.efficiency.communication = e.at("communication").as_positive(1.0);
    if (auto u = e.find("unet_gemm_fraction")) f.efficiency.unet_gemm_fraction = u->as_positive(1.0);
    if (auto x = e.find("expert_read")) f.efficiency.expert_read = x->as_positive(1.0);
    if (auto x = e.find("decode_sequence_layer_s"))
      f.efficiency.decode_sequence_layer_s = x->as_number(0.0, 1e-3);
    if (auto src = g.find("source")) {
      f.decode_source = src->at("decode_bandwidth").as_string();
      f.prefill_source = src->at("prefill_compute").as_string();
      f.training_source = src->at("training_mfu").as_string();
      f.communication_source = src->at("communication").as_string();
      if (auto x = src->find("expert_read")) f.expert_read_source = x->as_string();
      if (auto x = src->find("decode_sequence_layer_s")) f.sequence_layer_source = x->as_string();
    }
    if (auto fitted = g.find("fitted_to")) {
      auto ids = [](const JsonReader& list) {
        std::vector<std::string> out;
        for (const JsonReader& id : list.elements())
          out.push_back(id.as_string());
        return out;
      };
      f.decode_cases = ids(fitted->at("decode_bandwidth"));
      f.prefill_cases = ids(fitted->at("prefill_compute"));
      f.training_cases = ids(fitted->at("training_mfu"));
      f.communication_cases = ids(fitted->at("communication"));
      if (auto u = fitted->find("unet_gemm_fraction")) f.unet_cases = ids(*u);
      if (auto x = fitted->find("expert_read")) f.expert_read_cases = ids(*x);
      if (auto x = fitted->find("decode_sequence_layer_s")) f.sequence_layer_cases = ids(*x);
    }
    cal.gpus.push_back(f);
  }
  for (const JsonReader& b : root.at("bands").elements()) {
    BandEntry e;
    const JsonReader kind = b.at("kind");
    const auto k = parse_figure_kind(kind.as_string());
    if (!k) kind.fail("unknown kind \"" + kind.as_string() + "\"");
    e.kind = *k;
    e.gpu_id = b.at("gpu").as_string();
    e.ratio_low = b.at("ratio_low").as_positive(1e6);
    e.ratio_high = b.at("ratio_high").as_positive(1e6);
    e.cases = static_cast<int>(b.at("cases").as_int(0, 1'000'000));
    e.rule = b.at("rule").as_string();
    if (auto cls = b.find("model_class")) e.model_class = cls->as_string();
    cal.bands.push_back(e);
  }
  if (const auto classes = root.find("model_classes")) {
    for (const JsonReader& c : classes->elements()) {
      cal.classes.push_back(ClassWidening{c.at("model_class").as_string(),
                                          static_cast<int>(c.at("cases").as_int(0, 1'000'000)),
                                          c.at("factor").as_positive(100.0)});
    }
  }
  if (const auto reach = root.find("reach_bands")) cal.reach_bands = read_reach_bands(*reach);
  if (const auto measured = root.find("measured_models"))
    cal.measured_models = read_measured_models(*measured);
  return cal;
}

std::string baseline_to_json(const AccuracyBaseline& baseline, const std::string& description) {
  nlohmann::json doc;
  doc["schema_version"] = 1;
  doc["description"] =
      !description.empty()
          ? description
          : "Median APE (percent, leave-one-out) per figure kind; accuracy.regression fails when a kind "
            "gets worse by more than 2 points. Regenerate with accuracy_report --write-baseline. "
            "serving_ttft/serving_tpot: median APE over the scored rows of tests/validation/serving (shipped "
            "calibration, in-sample; the leave-one-pair-out figures are in docs/accuracy.md); *_new: the "
            "rows "
            "of the models issue 19 added (MiniMax-M2.5, Qwen3.5-397B-A17B, Kimi-K2.5, GLM-5), mapped by "
            "Hugging Face id; *_disagg: the disaggregated prefill/decode rows (issue 17); image_latency: the "
            "FLUX.1 / SD3 image cases (issue 19). Each gated separately.";
  nlohmann::json m = nlohmann::json::object();
  for (const auto& [kind, v] : baseline)
    m[kind] = std::round(v * 100.0) / 100.0;
  doc["median_ape_loo_pct"] = m;
  return io::json_text(doc, 1) + "\n";
}

std::string load_baseline_description(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  const auto description = root.find("description");
  return description ? description->as_string() : std::string();
}

AccuracyBaseline load_baseline(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  AccuracyBaseline b;
  const JsonReader m = root.at("median_ape_loo_pct");
  for (const std::string& key : m.keys())
    b[key] = m.at(key).as_number(0.0, 1e6);
  return b;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw Error(ErrorKind::input, path, "", "cannot write the file");
}

} // namespace rightsize::io
