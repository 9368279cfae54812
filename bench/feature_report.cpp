// Do the 2026 serving features move the figures as much as measured? (issue 44 item 4,
// docs/accuracy-features.md). Every case of tests/validation/serving-features.json is a
// spec estimated twice, exactly as `rightsize estimate` does (app::run_estimate with the shipped
// catalog and the case's engine profile): its workload merged with `base`, then with `with`. The
// predicted gain (with over base for a throughput, base over with for a latency) is scored against
// the measured one. Prints a markdown table; `--write` replaces the table in docs/accuracy-features.md
// between its markers, `--check` fails when that table is out of date (CTest).
//
// Nothing here is fitted: the features' formulas (methodology §3.8–3.10) take these cases as given.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "accuracy/cv.hpp"
#include "accuracy/doc_markers.hpp"
#include "app/engine_setup.hpp"
#include "app/estimate.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp" // median()

namespace rs = rightsize;
namespace acc = rightsize::bench::accuracy;

namespace {

struct Row {
  std::string id, feature, metric;
  double measured = 0.0, predicted = 0.0;
  [[nodiscard]] double error_pct() const { return (predicted / measured - 1.0) * 100.0; }
};

// The figure a case is scored on, from one estimate.
double figure(const rs::InferenceEstimate& e, const std::string& metric) {
  if (metric == "tokens_per_s_per_user") return e.tpot_s > 0.0 ? 1.0 / e.tpot_s : 0.0;
  if (metric == "output_tokens_per_s") return e.output_tokens_per_s;
  if (metric == "tpot") return e.tpot_s;
  if (metric == "ttft") return e.ttft_s;
  throw std::runtime_error("unknown metric " + metric);
}

bool is_latency(const std::string& metric) {
  return metric == "tpot" || metric == "ttft";
}

// One estimate of the case's spec with `merge` applied to its workload.
rs::InferenceEstimate estimate(const nlohmann::json& c, const nlohmann::json& merge,
                               const rs::app::LoadedCatalog& catalog) {
  nlohmann::json doc = c.at("spec");
  for (const auto& [key, value] : merge.items())
    doc["workload"][key] = value;
  const rs::Spec spec = rs::io::parse_spec(doc, c.at("id").get<std::string>(), "", acc::k_models_dir);
  rs::app::EstimateSettings settings;
  settings.gpu = c.at("gpu").get<std::string>();
  settings.gpu_from_flag = true;
  settings.tp = c.at("tp").get<int>();
  settings.engine = rs::app::engine_config(rs::app::EngineSetup{}, spec.engine, catalog.engines);
  return rs::app::run_estimate(spec, catalog, settings).estimate;
}

Row score(const nlohmann::json& c, const rs::app::LoadedCatalog& catalog) {
  Row r;
  r.id = c.at("id").get<std::string>();
  r.feature = c.at("feature").get<std::string>();
  r.metric = c.at("metric").get<std::string>();
  const double base = figure(estimate(c, c.value("base", nlohmann::json::object()), catalog), r.metric);
  const double with = figure(estimate(c, c.at("with"), catalog), r.metric);
  const double m_base = c.at("measured").at("base").get<double>();
  const double m_with = c.at("measured").at("with").get<double>();
  const bool latency = is_latency(r.metric);
  r.predicted = latency ? base / with : with / base;
  r.measured = latency ? m_base / m_with : m_with / m_base;
  return r;
}

std::string table(const std::vector<Row>& rows) {
  std::string s = "| case | feature | scored on | measured gain | predicted gain | error |\n"
                  "|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<double>> errors;
  for (const Row& r : rows) {
    s += fmt::format("| {} | {} | {} | {:.3f}× | {:.3f}× | {:+.1f} % |\n", r.id, r.feature, r.metric,
                     r.measured, r.predicted, r.error_pct());
    errors[r.feature].push_back(std::fabs(r.error_pct()));
  }
  s += "\n";
  for (const auto& [feature, e] : errors)
    s += fmt::format("- {}: median |error| of the gain {:.1f} % over {} case{}\n", feature, rs::median(e),
                     e.size(), e.size() == 1 ? "" : "s");
  return s;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!mode.empty() && mode != "--write" && mode != "--check") {
    std::fprintf(stderr, "usage: feature_report [--write | --check]\n");
    return 2;
  }
  try {
    std::ifstream in(acc::k_root + "/tests/validation/serving-features.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    const rs::app::LoadedCatalog catalog = acc::shipped_catalog(false);
    std::vector<Row> rows;
    for (const nlohmann::json& c : doc.at("cases"))
      rows.push_back(score(c, catalog));
    const std::string out = table(rows);
    if (mode != "--check") std::fputs(out.c_str(), stdout);
    const std::string current =
        acc::between_markers(acc::k_root + "/docs/accuracy-features.md",
                             "<!-- features:begin (bench/feature_report --write) -->\n",
                             "<!-- features:end -->", out, mode == "--write");
    if (mode == "--check" && current != out) {
      std::fprintf(stderr, "docs/accuracy-features.md: the table differs from what the estimator gives "
                           "now; run ./build/bench/feature_report --write and read the diff\n");
      return 1;
    }
  } catch (const rs::Error& e) {
    std::fprintf(stderr, "feature_report: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "feature_report: %s\n", e.what());
    return 1;
  }
  return 0;
}
