#include "io/catalog/overlay_io.hpp"

#include <cmath>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/json/json_reader.hpp"
#include "io/json/json_text.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

namespace rightsize::io {
namespace {

constexpr int k_overlay_schema_version = 1;
constexpr const char* k_overlay_kind = "rightsize-calibration-overlay";

double rounded(double v) {
  return std::round(v * 1e4) / 1e4;
}

// A factor's range in the file: a multiple's (layer_overhead) or a fraction's of the peak.
OverlayRange fitted_range(const StackFactor& f) {
  return f.multiple ? k_overlay_multiple_range : k_overlay_efficiency_range;
}

OverlayRange shipped_range(const StackFactor& f) {
  return f.multiple ? k_overlay_multiple_range : k_overlay_shipped_range;
}

double rounded_pct(double v) {
  return std::round(v * 10.0) / 10.0;
}

bool in_overlay_range(double v, const OverlayRange& r) {
  return std::isfinite(v) && (r.min_exclusive ? v > r.min : v >= r.min) && v <= r.max;
}

double read_in_range(const JsonReader& v, const OverlayRange& r) {
  return r.min_exclusive ? v.as_positive(r.max) : v.as_number(r.min, r.max);
}

// One value of a stack as the file would hold it: a line naming it and its range when outside.
void check_overlay_value(const StackFit& s, const std::string& what, double written, double fitted,
                         const OverlayRange& r) {
  if (in_overlay_range(written, r)) return;
  throw Error(
      ErrorKind::input, "RUNS", "",
      fmt::format("{} x {}: {} is {:g}{}, outside what a calibration overlay holds ({} {:g} to {:g}); "
                  "the runs are implausible (check their measured figures), so no overlay is written",
                  s.gpu_id, s.engine, what, fitted,
                  written == fitted ? "" : fmt::format(" ({:g} as written)", written),
                  r.min_exclusive ? "above" : "from", r.min, r.max));
}

} // namespace

void check_overlay_ranges(const CalibrationOverlay& overlay) {
  for (const StackFit& s : overlay.stacks) {
    for (const StackFactor& f : k_stack_factors) {
      const double fitted = s.fitted.efficiency.*f.value;
      check_overlay_value(s, std::string("factor ") + f.name, rounded(fitted), fitted, fitted_range(f));
      const double shipped = s.shipped.*f.value;
      check_overlay_value(s, std::string("shipped ") + f.name, rounded(shipped), shipped, shipped_range(f));
    }
    for (const BandEntry& b : s.bands) {
      const std::string band = fmt::format("the {} band's ", to_string(b.kind));
      check_overlay_value(s, band + "ratio_low", rounded(b.ratio_low), b.ratio_low,
                          k_overlay_ratio_low_range);
      check_overlay_value(s, band + "ratio_high", rounded(b.ratio_high), b.ratio_high,
                          k_overlay_ratio_high_range);
    }
    for (const TailFit& t : s.tails) {
      check_overlay_value(s, fmt::format("the {} tail p99 / mean", to_string(t.kind)),
                          rounded(t.p99_over_mean), t.p99_over_mean, k_overlay_p99_over_mean_range);
      const std::string tail = fmt::format("the {} tail's median |error| % ", to_string(t.kind));
      check_overlay_value(s, tail + "(shipped)", rounded_pct(t.median_ape_shipped_pct),
                          t.median_ape_shipped_pct, k_overlay_ape_pct_range);
      check_overlay_value(s, tail + "(fitted)", rounded_pct(t.median_ape_fitted_pct), t.median_ape_fitted_pct,
                          k_overlay_ape_pct_range);
    }
    for (const StackResidual& r : s.residuals) {
      for (const ResidualTerm* t : {&r.ttft, &r.tpot})
        for (const double c : t->coefficients)
          check_overlay_value(s, fmt::format("a residual coefficient of {}", r.model), rounded(c), c,
                              k_overlay_residual_coefficient_range);
    }
    for (const LayoutFit& l : s.layouts) {
      if (!l.own) continue;
      for (const StackFactor& f : k_stack_factors) {
        const double v = l.fitted.efficiency.*f.value;
        check_overlay_value(s, fmt::format("the {} layouts' {}", to_string(l.family), f.name), rounded(v), v,
                            fitted_range(f));
      }
    }
  }
}

nlohmann::json figure_errors_json(const std::vector<FigureError>& errors) {
  nlohmann::json out = nlohmann::json::array();
  for (const FigureError& e : errors) {
    out.push_back({{"figure", to_string(e.kind)},
                   {"runs", e.runs},
                   {"median_ape_shipped_pct", rounded_pct(e.median_ape_shipped_pct)},
                   {"median_ape_fitted_pct", rounded_pct(e.median_ape_fitted_pct)}});
  }
  return out;
}

nlohmann::json tails_json(const std::vector<TailFit>& tails) {
  nlohmann::json out = nlohmann::json::array();
  for (const TailFit& t : tails) {
    out.push_back({{"kind", to_string(t.kind)},
                   {"p99_over_mean", rounded(t.p99_over_mean)},
                   {"runs", t.runs},
                   {"median_ape_shipped_pct", rounded_pct(t.median_ape_shipped_pct)},
                   {"median_ape_fitted_pct", rounded_pct(t.median_ape_fitted_pct)}});
  }
  return out;
}

nlohmann::json residuals_json(const std::vector<StackResidual>& residuals) {
  nlohmann::json out = nlohmann::json::array();
  const auto term = [](const ResidualTerm& t) {
    nlohmann::json c = nlohmann::json::array();
    for (const double x : t.coefficients)
      c.push_back(rounded(x));
    return nlohmann::json{{"coefficients", c},
                          {"loo_median_ape_before_pct", rounded_pct(t.loo_before_pct)},
                          {"loo_median_ape_after_pct", rounded_pct(t.loo_after_pct)}};
  };
  for (const StackResidual& r : residuals) {
    out.push_back({{"model", r.model},
                   {"weights", r.weights},
                   {"engine", r.engine},
                   {"tp", r.tp},
                   {"pp", r.pp},
                   {"ep", r.ep},
                   {"runs", r.runs},
                   {"concurrency", {r.concurrency_min, r.concurrency_max}},
                   {"input_tokens", {r.input_min, r.input_max}},
                   {"ttft", term(r.ttft)},
                   {"tpot", term(r.tpot)}});
  }
  return out;
}

namespace {

ResidualTerm read_residual_term(const JsonReader& t) {
  t.expect_keys({"coefficients", "loo_median_ape_before_pct", "loo_median_ape_after_pct"});
  ResidualTerm out;
  const std::vector<JsonReader> cs = t.at("coefficients").elements();
  if (cs.size() > 3)
    t.at("coefficients").fail(fmt::format("expected at most 3 coefficients, got {}", cs.size()));
  for (const JsonReader& c : cs)
    out.coefficients.push_back(read_in_range(c, k_overlay_residual_coefficient_range));
  out.loo_before_pct = read_in_range(t.at("loo_median_ape_before_pct"), k_overlay_ape_pct_range);
  out.loo_after_pct = read_in_range(t.at("loo_median_ape_after_pct"), k_overlay_ape_pct_range);
  return out;
}

// [min, max] with 1 ≤ min ≤ max.
std::pair<double, double> read_span(const JsonReader& v) {
  const std::vector<JsonReader> e = v.elements();
  if (e.size() != 2) v.fail("expected [min, max]");
  const double lo = read_in_range(e[0], k_overlay_residual_span_range);
  const double hi = read_in_range(e[1], k_overlay_residual_span_range);
  if (hi < lo) v.fail(fmt::format("expected min ≤ max, got [{:g}, {:g}]", lo, hi));
  return {lo, hi};
}

std::vector<StackResidual> read_residuals(const JsonReader& list, const std::string& engine) {
  std::vector<StackResidual> out;
  for (const JsonReader& r : list.elements()) {
    r.expect_keys({"model", "weights", "engine", "tp", "pp", "ep", "runs", "concurrency", "input_tokens",
                   "ttft", "tpot"});
    StackResidual x;
    x.model = r.at("model").as_string();
    x.weights = r.at("weights").as_string();
    const JsonReader e = r.at("engine");
    x.engine = e.as_string();
    if (x.engine != engine)
      e.fail(fmt::format("expected the stack's engine \"{}\", got \"{}\"", engine, x.engine));
    x.tp = static_cast<int>(r.at("tp").as_int(1, 4096));
    x.pp = static_cast<int>(r.at("pp").as_int(1, 4096));
    x.ep = static_cast<int>(r.at("ep").as_int(1, 4096));
    x.runs = static_cast<int>(r.at("runs").as_int(k_min_residual_runs, 1'000'000));
    std::tie(x.concurrency_min, x.concurrency_max) = read_span(r.at("concurrency"));
    std::tie(x.input_min, x.input_max) = read_span(r.at("input_tokens"));
    x.ttft = read_residual_term(r.at("ttft"));
    x.tpot = read_residual_term(r.at("tpot"));
    out.push_back(std::move(x));
  }
  return out;
}

// A stack's fitted factors, where they come from and the runs that informed each.
void read_factors(const JsonReader& s, StackFit& fit) {
  const JsonReader eff = s.at("efficiency");
  const JsonReader src = s.at("source");
  for (const StackFactor& f : k_stack_factors) {
    if (f.multiple && !eff.find(f.name)) { // an overlay older than the factor: its neutral 1
      fit.fitted.*f.source = "shipped";
      continue;
    }
    // The physical range of every factor; calibrate stays inside FitOptions'.
    fit.fitted.efficiency.*f.value = read_in_range(eff.at(f.name), fitted_range(f));
    fit.fitted.*f.source = src.at(f.name).as_choice({"fitted", "shipped"});
    if (const auto shipped = s.find("shipped"))
      fit.shipped.*f.value = read_in_range(shipped->at(f.name), shipped_range(f));
    if (const auto to = s.find("fitted_to")) {
      for (const JsonReader& id : to->at(f.name).elements())
        (fit.fitted.*f.cases).push_back(id.as_string());
    }
  }
}

// One band of a stack: its figure, p10 / p90 ratios, cases and rule.
BandEntry read_band(const JsonReader& b, const std::string& gpu_id) {
  BandEntry e;
  const JsonReader k = b.at("kind");
  const auto parsed = parse_figure_kind(k.as_string());
  if (!parsed) k.fail("unknown kind \"" + k.as_string() + "\"");
  e.kind = *parsed;
  e.gpu_id = gpu_id;
  e.ratio_low = read_in_range(b.at("ratio_low"), k_overlay_ratio_low_range);
  e.ratio_high = read_in_range(b.at("ratio_high"), k_overlay_ratio_high_range);
  e.cases = static_cast<int>(b.at("cases").as_int(0, 1'000'000));
  e.rule = b.at("rule").as_string();
  return e;
}

// One layout family's runs and, when it has its own, factors.
LayoutFit read_layout(const JsonReader& l) {
  LayoutFit fit_l;
  const JsonReader family = l.at("family");
  const auto parsed = parse_layout_family(family.as_string());
  if (!parsed)
    family.fail("unknown layout family \"" + family.as_string() + "\" (expected tp, tp+pp, ep or adp)");
  fit_l.family = *parsed;
  for (const JsonReader& r : l.at("runs").elements())
    fit_l.runs.push_back(r.as_string());
  fit_l.own = l.at("own_factors").as_bool();
  if (!fit_l.own) return fit_l;
  for (const StackFactor& f : k_stack_factors) {
    if (f.multiple && !l.at("efficiency").find(f.name)) {
      fit_l.fitted.*f.source = "stack";
      continue;
    }
    fit_l.fitted.efficiency.*f.value = read_in_range(l.at("efficiency").at(f.name), fitted_range(f));
    fit_l.fitted.*f.source = l.at("source").at(f.name).as_choice({"fitted", "stack"});
  }
  return fit_l;
}

// A latency figure's measured p99 / mean.
TailFit read_tail(const JsonReader& t) {
  TailFit tail;
  tail.kind = t.at("kind").as_choice({"ttft", "tpot"}) == "ttft" ? FigureKind::ttft : FigureKind::tpot;
  tail.p99_over_mean = read_in_range(t.at("p99_over_mean"), k_overlay_p99_over_mean_range);
  tail.runs = static_cast<int>(t.at("runs").as_int(k_min_tail_runs, 1'000'000));
  tail.median_ape_shipped_pct = read_in_range(t.at("median_ape_shipped_pct"), k_overlay_ape_pct_range);
  tail.median_ape_fitted_pct = read_in_range(t.at("median_ape_fitted_pct"), k_overlay_ape_pct_range);
  return tail;
}

// One GPU x engine stack; `earlier` are the stacks read before it (one serving engine per GPU).
StackFit read_stack(const JsonReader& s, const std::vector<StackFit>& earlier) {
  StackFit fit;
  fit.gpu_id = s.at("gpu").as_string();
  const JsonReader engine = s.at("engine");
  fit.engine = engine.as_string();
  if (fit.engine != "training" && !parse_engine_kind(fit.engine)) {
    engine.fail("unknown engine \"" + fit.engine + "\" (expected vllm, sglang, trtllm or training)");
  }
  for (const StackFit& other : earlier) {
    // One serving engine per GPU, plus at most one training stack.
    if (to_lower(other.gpu_id) == to_lower(fit.gpu_id) &&
        (other.engine == "training") == (fit.engine == "training")) {
      s.at("gpu").fail(fmt::format("a second stack for {}: an overlay holds one engine per GPU (write one "
                                   "file per engine)",
                                   fit.gpu_id));
    }
  }
  fit.fitted.gpu_id = fit.gpu_id;
  for (const JsonReader& r : s.at("runs").elements())
    fit.runs.push_back(r.as_string());
  read_factors(s, fit);
  for (const JsonReader& b : s.at("bands").elements())
    fit.bands.push_back(read_band(b, fit.gpu_id));
  if (const auto layouts = s.find("layouts")) { // absent in overlays written before layout families
    for (const JsonReader& l : layouts->elements())
      fit.layouts.push_back(read_layout(l));
  }
  if (const auto tails = s.find("tails")) { // absent in overlays written before tails existed
    for (const JsonReader& t : tails->elements())
      fit.tails.push_back(read_tail(t));
  }
  // Absent in overlays written before residuals existed.
  if (const auto residuals = s.find("residuals")) fit.residuals = read_residuals(*residuals, fit.engine);
  return fit;
}

} // namespace

nlohmann::json layouts_json(const std::vector<LayoutFit>& layouts) {
  nlohmann::json out = nlohmann::json::array();
  for (const LayoutFit& l : layouts) {
    nlohmann::json lj = {{"family", to_string(l.family)}, {"runs", l.runs}, {"own_factors", l.own}};
    if (l.own) {
      for (const StackFactor& f : k_stack_factors) {
        lj["efficiency"][f.name] = rounded(l.fitted.efficiency.*f.value);
        lj["source"][f.name] = l.fitted.*f.source;
        lj["fitted_to"][f.name] = l.fitted.*f.cases;
      }
      lj["error_leave_one_out"] = figure_errors_json(l.loo);
    }
    out.push_back(lj);
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
    for (const StackFactor& f : k_stack_factors) {
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
    j["tails"] = tails_json(s.tails);
    j["layouts"] = layouts_json(s.layouts);
    j["residuals"] = residuals_json(s.residuals);
    j["error_leave_one_out"] = figure_errors_json(s.loo);
    j["error_holdout"] = figure_errors_json(s.holdout);
    stacks.push_back(j);
  }
  doc["stacks"] = stacks;
  return io::json_text(doc, 1) + "\n";
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
  for (const JsonReader& s : root.at("stacks").elements())
    out.stacks.push_back(read_stack(s, out.stacks));
  return out;
}

} // namespace rightsize::io
