#include "render/calibrate_render.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/catalog/overlay_io.hpp"
#include "io/json/json_text.hpp"

namespace rightsize::cli {
namespace {

const char* figure_title(FigureKind k) {
  switch (k) {
  case FigureKind::ttft: return "TTFT (mean)";
  case FigureKind::tpot: return "TPOT (mean)";
  case FigureKind::throughput: return "output tokens/s";
  case FigureKind::training_throughput: return "training tokens/s";
  case FigureKind::training_memory: return "training memory";
  default: return to_string(k);
  }
}

std::string pct(double v) {
  return fmt::format("{:.0f} %", v);
}

void print_errors(const char* title, const std::vector<FigureError>& errors) {
  if (errors.empty()) return;
  fmt::print("  {}\n", title);
  fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", "figure", "runs", "shipped", "fitted");
  for (const FigureError& e : errors) {
    fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", figure_title(e.kind), e.runs, pct(e.median_ape_shipped_pct),
               pct(e.median_ape_fitted_pct));
  }
}

// Layout families (docs/calibration.md): own factors, or the GPU x engine factors and why.
void print_layouts(const StackFit& s, const app::CalibratedStack& c) {
  if (c.layouts.empty()) return;
  fmt::print("  layout families ({} or more runs get factors of their own)\n", k_min_layout_runs);
  for (const app::CalibratedLayout& l : c.layouts) {
    if (!l.own) {
      fmt::print("    {:<7}{:>3} run{}  fewer than {}: the {} x {} factors above apply\n",
                 to_string(l.family), l.runs, l.runs == 1 ? " " : "s", k_min_layout_runs, s.gpu_id, s.engine);
      continue;
    }
    std::string factors;
    for (const app::CalibratedFactor& f : l.fitted)
      factors += fmt::format("{}{} {:.3f}", factors.empty() ? "" : ", ", f.name, f.fitted);
    fmt::print("    {:<7}{:>3} runs  {}\n", to_string(l.family), l.runs,
               factors.empty() ? std::string("no factor informed: the stack's apply") : factors);
  }
  fmt::print("  median |error| by layout, leave-one-out\n");
  fmt::print("    {:<7}{:<18}{:>6}{:>14}{:>10}\n", "layout", "figure", "runs", "gpu x engine", "layout");
  for (const app::CalibratedLayout& l : c.layouts) {
    for (const FigureError& e : l.loo) {
      fmt::print("    {:<7}{:<18}{:>6}{:>14}{:>10}\n", to_string(l.family), figure_title(e.kind), e.runs,
                 pct(e.median_ape_shipped_pct), pct(e.median_ape_fitted_pct));
    }
  }
}

// A factor fitted to its bound: the runs wanted it further, and what stays off sits in terms it
// does not move (issue 38).
std::string at_bound_note(const app::CalibratedFactor& f) {
  if (!f.at_bound) return "";
  return fmt::format("; at its {} bound {:.2f}: the runs want it further, the rest of the error is in terms "
                     "this factor does not move",
                     f.bound < f.shipped ? "lower" : "upper", f.bound);
}

// ln r = a + b·ln C + c·ln ISL, the terms the runs selected.
std::string residual_formula(const ResidualTerm& t) {
  static constexpr const char* k_names[] = {"", " ln C", " ln ISL"};
  std::string out = "ln(measured / predicted) =";
  for (std::size_t i = 0; i < t.coefficients.size() && i < 3; ++i) {
    const double c = t.coefficients[i];
    out += fmt::format("{}{} {:.3f}{}", i == 0 ? "" : " ", i == 0 ? (c < 0 ? " -" : "") : (c < 0 ? "-" : "+"),
                       std::abs(c), k_names[i]);
  }
  return out;
}

void print_residuals(const StackFit& s) {
  for (const StackResidual& r : s.residuals) {
    fmt::print(
        "  residual {} {} TP{}{}{} ({} runs; concurrency {:g}-{:g}, input {:g}-{:g} tokens; applied to "
        "this stack only, clamped to that range, none beyond x{:g} of it)\n",
        r.model, r.weights, r.tp, r.pp > 1 ? fmt::format(" PP{}", r.pp) : "",
        r.ep > 1 ? fmt::format(" EP{}", r.ep) : "", r.runs, r.concurrency_min, r.concurrency_max, r.input_min,
        r.input_max, k_residual_reach);
    for (const auto& [name, t] : {std::pair<const char*, const ResidualTerm&>{"TTFT", r.ttft},
                                  std::pair<const char*, const ResidualTerm&>{"TPOT", r.tpot}}) {
      if (t.coefficients.empty()) {
        fmt::print("    {}  none: the factors alone predict these runs best ({} leave-one-out)\n", name,
                   pct(t.loo_before_pct));
      } else {
        fmt::print("    {}  {}  leave-one-out {} -> {}\n", name, residual_formula(t), pct(t.loo_before_pct),
                   pct(t.loo_after_pct));
      }
    }
  }
}

void print_stack(const StackFit& s, const app::CalibratedStack& c) {
  fmt::print("{} x {}: fitted to {} run{}{}\n", s.gpu_id, s.engine, s.runs.size(),
             s.runs.size() == 1 ? "" : "s",
             c.holdout_runs > 0 ? fmt::format(", {} held out", c.holdout_runs) : std::string());
  fmt::print("  {:<18}{:>9}{:>9}  {}\n", "factor", "shipped", "fitted", "from");
  for (const app::CalibratedFactor& f : c.factors) {
    const std::size_t n = f.measurements;
    fmt::print("  {:<18}{:>9.3f}{:>9}  {}\n", f.name, f.shipped,
               f.is_fitted ? fmt::format("{:.3f}", f.fitted) : std::string("kept"),
               f.is_fitted ? fmt::format("{} measurements of {} runs{}", n, f.runs, at_bound_note(f))
               : n == 0
                   ? fmt::format("shipped: no measurement is sensitive to it (candidates: {})", f.informed_by)
                   : fmt::format("shipped: {} measurement{} of {} run depend{} on it, a fit needs 2 runs", n,
                                 n == 1 ? "" : "s", f.runs, n == 1 ? "s" : ""));
  }
  print_errors("median |error|, leave-one-out over the fit runs", s.loo);
  for (const TailFit& t : s.tails) {
    // The p99 before: the estimator's own queueing-model p99; after: leave-one-out mean x ratio.
    fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", t.kind == FigureKind::ttft ? "TTFT p99" : "TPOT p99", t.runs,
               pct(t.median_ape_shipped_pct), pct(t.median_ape_fitted_pct));
  }
  if (c.few_fit_runs) {
    fmt::print("  note: {} fit run{}: leave-one-out refits on {} run{}, too few to show a gain; add runs\n",
               s.runs.size(), s.runs.size() == 1 ? "" : "s", s.runs.size() - 1,
               s.runs.size() == 2 ? "" : "s");
  }
  print_errors("median |error| on the held-out runs (not used in the fit)", s.holdout);
  for (const BandEntry& b : s.bands) {
    std::string before;
    for (const BandEntry& sb : c.shipped_bands) {
      if (sb.kind != b.kind) continue;
      // How much narrower (or wider) the band is: the ratio of high / low spreads in log space.
      const double was = std::log(sb.ratio_high / sb.ratio_low), now = std::log(b.ratio_high / b.ratio_low);
      before = fmt::format("; shipped x{:.2f} .. x{:.2f}, {}", sb.ratio_low, sb.ratio_high,
                           now < was ? fmt::format("{:.1f}x narrower", was / std::max(now, 1e-9))
                                     : fmt::format("{:.1f}x wider", now / std::max(was, 1e-9)));
    }
    const bool implied = b.rule.ends_with(k_implied_throughput_rule); // no throughput reported
    // e^±q, q the conformal radius of |ln(measured / predicted)| (core::conformal_radius).
    fmt::print("  band {:<11} x{:.2f} .. x{:.2f} ({:.0f} % band, split-conformal over |ln measured / "
               "predicted|{}, {} runs{})\n",
               to_string(b.kind), b.ratio_low, b.ratio_high, k_user_band_coverage * 100.0,
               implied ? " of requests/s, each concurrency / E2E from its TTFT and TPOT" : "", b.cases,
               before);
  }
  if (s.bands.empty()) fmt::print("  bands: shipped (fewer than {} runs per figure)\n", k_min_band_runs);
  for (const TailFit& t : s.tails) {
    fmt::print("  tail {:<11} p99 = mean x{:.2f} (median of measured p99 / mean, {} runs)\n",
               to_string(t.kind), t.p99_over_mean, t.runs);
  }
  print_layouts(s, c);
  print_residuals(s);
}

// The overlay file written, or null when the fit did not hold and --force was not given.
nlohmann::json result_overlay_path(const app::CalibrateResult& r, const std::string& out) {
  return r.write_overlay ? nlohmann::json(out) : nlohmann::json(nullptr);
}

void print_json(const app::CalibrateResult& r, const std::string& out) {
  nlohmann::json doc;
  doc["schema_version"] = 1;
  doc["overlay"] = result_overlay_path(r, out);
  doc["weak_fits"] = r.weak_fits;
  doc["date"] = r.overlay.date;
  doc["stacks"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.stacks.size(); ++i) {
    const StackFit& s = r.overlay.stacks[i];
    nlohmann::json j = {{"gpu", s.gpu_id}, {"engine", s.engine}, {"runs", s.runs.size()}};
    for (const app::CalibratedFactor& f : r.stacks[i].factors) {
      j["factors"][f.name] = {{"shipped", std::round(f.shipped * 1e4) / 1e4},
                              {"fitted", std::round(f.fitted * 1e4) / 1e4},
                              {"source", f.source}};
      if (f.at_bound) j["factors"][f.name]["at_bound"] = std::round(f.bound * 1e4) / 1e4;
    }
    j["error_leave_one_out"] = io::figure_errors_json(s.loo);
    j["error_holdout"] = io::figure_errors_json(s.holdout);
    j["tails"] = io::tails_json(s.tails);
    j["layouts"] = io::layouts_json(s.layouts);
    j["residuals"] = io::residuals_json(s.residuals);
    doc["stacks"].push_back(j);
  }
  doc["gpus_keeping_shipped_factors"] = r.gpus_keeping_shipped;
  fmt::print("{}\n", io::json_text(doc));
}

} // namespace

void render_calibrate(const LoadedCatalog& catalog, const app::CalibrateResult& result,
                      const std::string& out, Format format) {
  if (format == Format::json) {
    print_json(result, out);
    return;
  }
  fmt::print("calibration on top of {}\n", catalog.calibration_label);
  for (std::size_t i = 0; i < result.stacks.size(); ++i)
    print_stack(result.overlay.stacks[i], result.stacks[i]);
  fmt::print("no runs, shipped factors kept: the other {} GPUs of the catalog, and other engines on {}\n",
             result.gpus_keeping_shipped,
             result.fitted_gpus.empty() ? std::string("any GPU")
                                        : fmt::format("{}", fmt::join(result.fitted_gpus, ", ")));
  if (result.write_overlay) {
    fmt::print("wrote {} (use it with --calibration {})\n", out, out);
  } else {
    fmt::print("no overlay written: the leave-one-out error stays above {:g} % ({}); add runs that cover "
               "your workload, or --force to write {} anyway\n",
               app::k_weak_fit_pct, fmt::join(result.weak_fits, "; "), out);
  }
}

std::string overlay_text(const app::CalibrateResult& result) {
  return io::overlay_to_json(result.overlay);
}

} // namespace rightsize::cli
