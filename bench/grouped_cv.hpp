#pragma once
// Grouped cross-validation of the serving rows (issue 37; docs/accuracy.md "Grouped cross-validation"):
// each group of a grouping (one model, one GPU, one engine version) is held out in turn, whatever is
// fitted from the rows is refitted without it, and the group's rows are predicted by that refit. The
// union of the held-out predictions scores each row once, by a fit that never saw its group.
// Header-only, bench only: the grouping and its bookkeeping; the refit itself is the caller's
// (bench/accuracy_report). Worked example: tests/unit/test_grouped_cv.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rightsize/calibration.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize::bench {

/// The rows left out of a fit (a held-out group); empty = none.
using RowExcluded = std::function<bool(const ServingRun&)>;

inline bool excluded_row(const RowExcluded& excluded, const ServingRun& run) {
  return excluded && excluded(run);
}

/// One way of grouping the rows: its name in the report, the suffix of its baseline keys and the key
/// that puts a row in its group.
struct CvGrouping {
  std::string name;   ///< "leave one model out"
  std::string suffix; ///< "lomo": the baseline keys serving_ttft_lomo, serving_tpot_lomo
  std::function<std::string(const ServingRun&)> key;
};

/// A row's engine version group: the engine and the version the file gives ("vllm 0.12.0"), or the
/// engine alone with "(version not given)"; rows without a version are one group per engine.
inline std::string engine_version_key(const ServingRun& run) {
  return run.engine + " " +
         (run.engine_version.empty() ? std::string("(version not given)") : run.engine_version);
}

/// The three groupings of the report: by model (preset), by GPU, by engine version.
inline std::vector<CvGrouping> cv_groupings() {
  return {
      {"leave one model out", "lomo", [](const ServingRun& r) { return r.preset; }},
      {"leave one GPU out", "logo", [](const ServingRun& r) { return r.gpu_id; }},
      {"leave one engine version out", "loevo", engine_version_key},
  };
}

/// The groups of `results` under `grouping`, sorted: one fold each.
inline std::vector<std::string> fold_keys(const std::vector<ServingResult>& results,
                                          const CvGrouping& grouping) {
  std::set<std::string> keys;
  for (const ServingResult& r : results)
    keys.insert(grouping.key(*r.run));
  return {keys.begin(), keys.end()};
}

/// The held-out predictions of every fold: for each group g of `results`, `predict_held_out(g,
/// held_out)` fits on the rows `held_out` rejects and returns its predictions of the rows it accepts
/// (each ServingResult.run pointing at the row it predicts). Their union, fold by fold in key order;
/// throws when the folds do not predict every row of `results` exactly once (a refit that cannot
/// express a row it could express on all rows would otherwise drop it from the figures unseen).
template <class PredictHeldOut>
std::vector<ServingResult> grouped_results(const std::vector<ServingResult>& results,
                                           const CvGrouping& grouping, PredictHeldOut&& predict_held_out) {
  std::vector<ServingResult> out;
  out.reserve(results.size());
  std::set<const ServingRun*> seen;
  for (const std::string& g : fold_keys(results, grouping)) {
    const RowExcluded held_out = [&grouping, g](const ServingRun& run) { return grouping.key(run) == g; };
    for (ServingResult& r : predict_held_out(g, held_out)) {
      if (!held_out(*r.run) || !seen.insert(r.run).second)
        throw std::logic_error("grouped_results: fold " + g + " predicted a row outside it, or twice");
      out.push_back(std::move(r));
    }
  }
  for (const ServingResult& r : results)
    if (seen.count(r.run) == 0)
      throw std::logic_error("grouped_results: no fold of " + grouping.name + " predicted row " + r.run->id);
  return out;
}

/// The index of the serving row a validation case copies, or `runs.size()` when none: cases.json
/// holds some of the CSV's own measurements (aiconfigurator's silicon references, quoted in
/// methodology §4.6), which the case fit then learns from. A case copies a row when its kind is TTFT or
/// TPOT and GPU, TP, PP, lengths and clients match an aggregated row whose measurement agrees to 0.5 %
/// (the cases round to three or four digits). A fold that holds the row out leaves the case out too.
inline std::size_t copied_row(const ValidationCase& c, const std::vector<ServingRun>& runs) {
  if (c.kind != FigureKind::ttft && c.kind != FigureKind::tpot) return runs.size();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ServingRun& r = runs[i];
    if (r.mode != "agg" || r.gpu_id != c.gpu_id || r.tp != c.deployment.tp || r.pp != c.deployment.pp ||
        r.input_tokens != c.workload.input_tokens || r.output_tokens != c.workload.output_tokens ||
        r.concurrency != c.workload.concurrency)
      continue;
    const double measured = c.kind == FigureKind::ttft ? r.ttft_s : r.tpot_s;
    if (measured > 0.0 && std::abs(c.measured / measured - 1.0) <= 0.005) return i;
  }
  return runs.size();
}

/// One named set of predictions of the same rows (in sample, leave one pair out, a grouping).
struct NamedResults {
  std::string name;
  const std::vector<ServingResult>* results = nullptr;
};

/// Groups for serving_table: for each group of `key` (in `order`, then sorted), one line per set of
/// `sets`, named "group, set".
template <typename Key>
std::vector<std::pair<std::string, std::vector<const ServingResult*>>>
by_group_and_set(const std::vector<NamedResults>& sets, Key key, const std::vector<std::string>& order = {}) {
  std::vector<std::string> groups = order;
  for (const NamedResults& s : sets)
    for (const ServingResult& r : *s.results)
      if (std::find(groups.begin(), groups.end(), key(r)) == groups.end()) groups.push_back(key(r));
  std::sort(groups.begin() + static_cast<std::ptrdiff_t>(order.size()), groups.end());
  std::vector<std::pair<std::string, std::vector<const ServingResult*>>> out;
  for (const std::string& g : groups) {
    for (const NamedResults& s : sets) {
      std::vector<const ServingResult*> rows;
      for (const ServingResult& r : *s.results)
        if (key(r) == g) rows.push_back(&r);
      if (!rows.empty()) out.emplace_back(g + ", " + s.name, std::move(rows));
    }
  }
  return out;
}

/// What turning one fitted value to its neutral value does to the grouped figures: per figure
/// (median abs. error, lower is better; within 25 %, higher is better), how much better the figure
/// is with the fitted value than without it, in points.
struct AblationDelta {
  std::vector<double> better_with_points; ///< one per grouped figure compared
};

/// The verdict of an ablation row. "pays": some grouped figure is better with the fitted value by
/// at least `margin` points and none worse by as much; "mixed": some better and some worse;
/// "does not pay": none better by `margin` (the grouped figures are not better with it).
inline const char* ablation_verdict(const AblationDelta& d, double margin = 0.5) {
  bool better = false, worse = false;
  for (const double x : d.better_with_points) {
    better = better || x >= margin;
    worse = worse || x <= -margin;
  }
  if (!better) return "does not pay";
  return worse ? "mixed" : "pays";
}

} // namespace rightsize::bench
