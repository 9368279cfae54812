// Does `calibrate` land? (issue 38, docs/calibration.md "Five runs per group"). For every group of
// the measured serving CSV (model preset, precision, GPU, engine, layout) with at least
// k_min_group_runs scored rows, five rows calibrate exactly as `rightsize calibrate` does
// (app::run_calibrate) and the group's other rows are scored held out, before (shipped factors)
// and after (the overlay). Prints a markdown table; `--write` replaces the table in
// docs/calibration.md between its markers, `--check` fails when that table is out of date (CTest).
//
// Before is in-sample for the shipped factors (data/calibration.json was fitted to these rows);
// after is out-of-sample for the overlay (fitted to the five rows only).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "accuracy/cv.hpp"
#include "accuracy/doc_markers.hpp"
#include "app/calibrate.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"
#include "serving_score.hpp"

namespace rs = rightsize;
namespace acc = rightsize::bench::accuracy;

namespace {

constexpr std::size_t k_fit_runs = 5;
constexpr std::size_t k_min_group_runs = k_fit_runs + 3; // at least 3 scored rows

struct Group {
  std::string name;
  std::vector<const rs::ServingRun*> runs;
};

std::string group_key(const rs::ServingRun& r) {
  return fmt::format("{} {} · {} × {} · {} · TP{}{}{}", r.preset,
                     rs::format_info(rs::precision_of(r).weights).name, rs::layout_gpus(r), r.gpu_id,
                     r.engine, r.tp, r.pp > 1 ? fmt::format(" PP{}", r.pp) : "",
                     r.moe_ep > 1 ? fmt::format(" EP{}", r.moe_ep) : "");
}

// The five fit rows: sorted by (input, output, concurrency), evenly spaced from first to last, so
// the fit sees the group's range of prompts and loads as a user benchmarking about five points would.
std::vector<std::size_t> fit_indices(std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < k_fit_runs; ++k)
    out.push_back(k * (n - 1) / (k_fit_runs - 1));
  return out;
}

rs::StackRun stack_run(const rs::ServingRun& r, const std::vector<rs::io::Preset>& presets) {
  rs::StackRun s;
  s.run = r;
  for (const rs::io::Preset& p : presets)
    if (p.id == r.preset) s.model = p.model;
  s.source = "serving-measurements.csv";
  return s;
}

struct Row {
  std::string group;
  std::size_t fit = 0, scored = 0;
  double ttft_before = 0, ttft_after = 0, tpot_before = 0, tpot_after = 0;
  double ttft_factors = 0, tpot_factors = 0; ///< after, the fitted factors alone
  int ttft_terms = 0, tpot_terms = 0;
  std::string bounds; ///< factors fitted to a bound
  std::string refused;
  /// Held-out runs whose requests/s as their TTFT and TPOT imply it (core::implied_throughput_ratio)
  /// falls inside the overlay's throughput band, and inside the shipped one with shipped predictions.
  std::size_t throughput_scored = 0, throughput_in_overlay = 0, throughput_in_shipped = 0;
  std::size_t ttft_in_overlay = 0, tpot_in_overlay = 0; ///< the same runs' TTFT and TPOT in their bands
};

// The held-out median |error| with the fitted factors alone (no residual), for the table's middle
// column: what the residual adds is the difference to "after".
void factors_only(const std::vector<rs::StackRun>& held, const rs::StackFit& s,
                  const rs::app::LoadedCatalog& catalog, Row& row) {
  std::vector<rs::Gpu> gpus{*rs::io::find_gpu(catalog.catalog, s.gpu_id)};
  rs::StackFit no_residual = s;
  no_residual.residuals.clear();
  rs::Calibration unused;
  rs::apply_stack_fits({no_residual}, gpus, unused);
  const rs::EngineConfig& engine = catalog.engines.of(*rs::parse_engine_kind(s.engine));
  std::vector<double> ttft, tpot;
  for (const rs::StackRun& r : held)
    for (const rs::ValidationCase& c : rs::stack_cases(r)) {
      const double ape = 100.0 * std::abs(rs::predict_case(c, gpus.front(), engine) / c.measured - 1.0);
      if (c.kind == rs::FigureKind::ttft) ttft.push_back(ape);
      if (c.kind == rs::FigureKind::tpot) tpot.push_back(ape);
    }
  row.ttft_factors = rs::median(ttft);
  row.tpot_factors = rs::median(tpot);
  for (const rs::StackResidual& res : s.residuals) {
    row.ttft_terms = static_cast<int>(res.ttft.coefficients.size());
    row.tpot_terms = static_cast<int>(res.tpot.coefficients.size());
  }
}

// The held-out runs' implied requests/s against the throughput band: the overlay's (its factors and
// residual predicting) and the shipped one (shipped factors predicting), issue 38's p90 sizing.
void throughput_coverage(const std::vector<rs::StackRun>& held, const rs::StackFit& s,
                         const rs::app::LoadedCatalog& catalog, Row& row) {
  const auto band = std::find_if(s.bands.begin(), s.bands.end(),
                                 [](const rs::BandEntry& b) { return b.kind == rs::FigureKind::throughput; });
  if (band == s.bands.end()) return;
  const rs::Gpu& shipped = *rs::io::find_gpu(catalog.catalog, s.gpu_id);
  std::vector<rs::Gpu> overlay{shipped};
  rs::Calibration unused;
  rs::apply_stack_fits({s}, overlay, unused);
  const rs::Band shipped_band = rs::band_for(catalog.calibration, rs::FigureKind::throughput, s.gpu_id, 1.0);
  const rs::EngineConfig& engine = catalog.engines.of(*rs::parse_engine_kind(s.engine));
  for (const rs::StackRun& r : held) {
    std::array<double, 2> ttft{}, tpot{}, ttft_shipped{}, tpot_shipped{};
    for (const rs::ValidationCase& c : rs::stack_cases(r)) {
      const std::array<double, 2> with_overlay{c.measured, rs::predict_case(c, overlay.front(), engine)};
      const std::array<double, 2> with_shipped{c.measured, rs::predict_case(c, shipped, engine)};
      if (c.kind == rs::FigureKind::ttft) {
        ttft = with_overlay;
        ttft_shipped = with_shipped;
      } else if (c.kind == rs::FigureKind::tpot) {
        tpot = with_overlay;
        tpot_shipped = with_shipped;
      }
    }
    const auto inside = [&s](rs::FigureKind kind, const std::array<double, 2>& v) {
      for (const rs::BandEntry& b : s.bands) {
        if (b.kind != kind || v[1] <= 0.0) continue;
        const double ratio = v[0] / v[1];
        return ratio >= b.ratio_low && ratio <= b.ratio_high ? 1U : 0U;
      }
      return 0U;
    };
    row.ttft_in_overlay += inside(rs::FigureKind::ttft, ttft);
    row.tpot_in_overlay += inside(rs::FigureKind::tpot, tpot);
    const double ratio = rs::implied_throughput_ratio(ttft, tpot, r.run.output_tokens);
    const double ratio_shipped =
        rs::implied_throughput_ratio(ttft_shipped, tpot_shipped, r.run.output_tokens);
    if (ratio <= 0.0 || ratio_shipped <= 0.0) continue;
    ++row.throughput_scored;
    row.throughput_in_overlay += ratio >= band->ratio_low && ratio <= band->ratio_high ? 1U : 0U;
    row.throughput_in_shipped +=
        ratio_shipped >= shipped_band.low && ratio_shipped <= shipped_band.high ? 1U : 0U;
  }
}

Row calibrate_group(const Group& g, const rs::app::LoadedCatalog& catalog,
                    const std::vector<rs::io::Preset>& presets, std::int64_t today) {
  Row row;
  row.group = g.name;
  std::vector<const rs::ServingRun*> sorted = g.runs;
  std::sort(sorted.begin(), sorted.end(), [](const rs::ServingRun* a, const rs::ServingRun* b) {
    return std::tie(a->input_tokens, a->output_tokens, a->concurrency, a->id) <
           std::tie(b->input_tokens, b->output_tokens, b->concurrency, b->id);
  });
  const std::vector<std::size_t> picks = fit_indices(sorted.size());
  std::vector<rs::StackRun> fit, held;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool picked = std::find(picks.begin(), picks.end(), i) != picks.end();
    (picked ? fit : held).push_back(stack_run(*sorted[i], presets));
  }
  row.fit = fit.size();
  row.scored = held.size();
  rs::app::CalibrationRuns runs;
  try {
    rs::app::add_runs(runs, "fit", fit, false, catalog.catalog);
    rs::app::add_runs(runs, "held", held, true, catalog.catalog);
    const rs::app::CalibrateResult result = rs::app::run_calibrate(runs, catalog, today);
    const rs::StackFit& s = result.overlay.stacks.front();
    for (const rs::FigureError& e : s.holdout) {
      if (e.kind == rs::FigureKind::ttft) {
        row.ttft_before = e.median_ape_shipped_pct;
        row.ttft_after = e.median_ape_fitted_pct;
      } else if (e.kind == rs::FigureKind::tpot) {
        row.tpot_before = e.median_ape_shipped_pct;
        row.tpot_after = e.median_ape_fitted_pct;
      }
    }
    factors_only(held, s, catalog, row);
    throughput_coverage(held, s, catalog, row);
    for (const rs::app::CalibratedFactor& f : result.stacks.front().factors)
      if (f.at_bound)
        row.bounds += fmt::format("{}{} {:.2f}", row.bounds.empty() ? "" : ", ", f.name, f.fitted);
  } catch (const rs::Error& e) {
    row.refused = e.what();
  }
  return row;
}

std::string table(const std::vector<Row>& rows) {
  std::string s =
      "| group (preset weights · GPUs × GPU · engine · layout) | scored | TTFT: shipped → factors → "
      "with residual | TPOT: shipped → factors → with residual | residual terms TTFT / TPOT | factor "
      "at a bound |\n|---|---:|---:|---:|---:|---|\n";
  std::vector<double> tb, tf, ta, pb, pf, pa;
  std::size_t ttft_met = 0, tpot_met = 0, n = 0, tput_scored = 0, tput_overlay = 0, tput_shipped = 0;
  std::size_t ttft_overlay = 0, tpot_overlay = 0;
  for (const Row& r : rows) {
    if (!r.refused.empty()) {
      s += fmt::format("| {} | {} | refused: {} | | | |\n", r.group, r.scored, r.refused);
      continue;
    }
    ++n;
    tput_scored += r.throughput_scored;
    tput_overlay += r.throughput_in_overlay;
    tput_shipped += r.throughput_in_shipped;
    ttft_overlay += r.ttft_in_overlay;
    tpot_overlay += r.tpot_in_overlay;
    ttft_met += r.ttft_after <= 15.0 ? 1 : 0;
    tpot_met += r.tpot_after <= 10.0 ? 1 : 0;
    tb.push_back(r.ttft_before);
    tf.push_back(r.ttft_factors);
    ta.push_back(r.ttft_after);
    pb.push_back(r.tpot_before);
    pf.push_back(r.tpot_factors);
    pa.push_back(r.tpot_after);
    s += fmt::format("| {} | {} | {:.0f} → {:.0f} → {:.0f} % | {:.0f} → {:.0f} → {:.0f} % | {} / {} | {} |\n",
                     r.group, r.scored, r.ttft_before, r.ttft_factors, r.ttft_after, r.tpot_before,
                     r.tpot_factors, r.tpot_after, r.ttft_terms, r.tpot_terms,
                     r.bounds.empty() ? "none" : r.bounds);
  }
  s += fmt::format(
      "| **median of the {} groups** | | {:.0f} → {:.0f} → {:.0f} % | {:.0f} → {:.0f} → {:.0f} % | | |\n", n,
      rs::median(tb), rs::median(tf), rs::median(ta), rs::median(pb), rs::median(pf), rs::median(pa));
  s +=
      fmt::format("\nGroups within the targets after `calibrate` (held-out median): TTFT ≤ 15 % in {} of {}, "
                  "TPOT ≤ 10 % in {} of {}.\n",
                  ttft_met, n, tpot_met, n);
  const auto pct = [tput_scored](std::size_t k) {
    return tput_scored > 0 ? 100.0 * static_cast<double>(k) / static_cast<double>(tput_scored) : 0.0;
  };
  s += fmt::format(
      "\nThe overlay's bands (e^±q, q the split-conformal radius of the five leave-one-out ratios, "
      "for 80 %) on the held-out runs of the {} scored groups: TTFT inside {:.0f} %, TPOT {:.0f} %, "
      "and requests/s as each run's TTFT and TPOT imply it (concurrency / E2E: the band "
      "`--confidence p90` sizes replicas by) {:.0f} % of {} runs; the shipped throughput band with "
      "the shipped factors holds {:.0f} %.\n",
      n, pct(ttft_overlay), pct(tpot_overlay), pct(tput_overlay), tput_scored, pct(tput_shipped));
  return s;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!mode.empty() && mode != "--write" && mode != "--check") {
    std::fprintf(stderr, "usage: calibrate_groups [--write | --check]\n");
    return 2;
  }
  const rs::bench::ServingInputs& in = rs::bench::serving_inputs(acc::k_serving_csv, acc::k_models_dir);
  const rs::app::LoadedCatalog catalog = acc::shipped_catalog(false);
  std::map<std::string, Group> groups;
  for (std::size_t i = 0; i < in.runs.size(); ++i) {
    const rs::ServingRun& r = in.runs[i];
    if (in.scored[i] != i || r.mode != "agg" || r.attention_dp > 1 || r.preset.empty()) continue;
    Group& g = groups[group_key(r)];
    g.name = group_key(r);
    g.runs.push_back(&r);
  }
  std::vector<Row> rows;
  const std::int64_t today = 20'000; // the overlay's date; no figure depends on it
  for (const auto& [key, g] : groups)
    if (g.runs.size() >= k_min_group_runs) rows.push_back(calibrate_group(g, catalog, in.presets, today));
  const std::string out = table(rows);
  if (mode != "--check") std::fputs(out.c_str(), stdout);
  const std::string docs = acc::k_root + "/docs/calibration.md";
  const std::string current =
      acc::between_markers(docs, "<!-- calibrate-groups:begin (bench/calibrate_groups --write) -->\n",
                           "<!-- calibrate-groups:end -->", out, mode == "--write");
  if (mode == "--check" && current != out) {
    std::fprintf(stderr, "docs/calibration.md: the \"Five runs per group\" table differs from what calibrate "
                         "gives now; run ./build/bench/calibrate_groups --write and read the diff\n");
    return 1;
  }
  return 0;
}
