#pragma once
// How far a factor could go (docs/accuracy.md "Factor ceiling"; a diagnostic, never a prediction):
// for a grouping of the scored serving rows, the share of rows within 25 % of their measurement when
// every group gets the one factor that, chosen with hindsight, brings the most of its rows within
// 25 %. Each group's factor is read off its own measurements, so the share is an upper bound on what
// calibrating one factor per group on top of today's formulas can reach, in sample; it answers which
// targets a factor could still meet and which need structure a row's inputs do not give.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rightsize/calibration.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize::bench {

/// The width, in ln(predicted / measured), of the band "within `tolerance`":
/// |predicted / measured − 1| ≤ t ⇔ ln(1 − t) ≤ ln(predicted / measured) ≤ ln(1 + t).
inline double within_log_width(double tolerance) {
  return std::log(1.0 + tolerance) - std::log(1.0 - tolerance);
}

/// ln(1.25) − ln(0.75): the width of the band "within 25 %".
inline const double k_within_25_log_width = within_log_width(0.25);

/// The densest window of `log_ratios` (ln(predicted / measured) per row) of width `log_width`: how
/// many rows it holds and its lowest and highest value. One factor f moves every value by ln f, and a
/// value is within t when it lies in [ln(1 − t), ln(1 + t)], so no factor brings more rows within t.
/// Sorted sweep, O(n log n).
struct BestFactor {
  int count = 0;
  double ln_low = 0.0, ln_high = 0.0; ///< the densest window's lowest and highest ln ratio
};
inline BestFactor best_factor(std::vector<double> log_ratios, double log_width) {
  std::sort(log_ratios.begin(), log_ratios.end());
  BestFactor best;
  std::size_t first = 0;
  for (std::size_t last = 0; last < log_ratios.size(); ++last) {
    // 1e-12 keeps a pair exactly one width apart inside the window despite rounding.
    while (log_ratios[last] - log_ratios[first] > log_width + 1e-12)
      ++first;
    if (static_cast<int>(last - first + 1) > best.count) {
      best.count = static_cast<int>(last - first + 1);
      best.ln_low = log_ratios[first];
      best.ln_high = log_ratios[last];
    }
  }
  return best;
}

/// The most of `log_ratios` one factor brings within 25 %.
inline int best_factor_count(std::vector<double> log_ratios) {
  return best_factor(std::move(log_ratios), k_within_25_log_width).count;
}

/// One grouping of the ceiling table: its name and the key that puts a row in its group.
struct CeilingGrouping {
  std::string name;
  std::function<std::string(const ServingResult&)> key;
};

inline double ln_ratio(const ServingResult& r, bool ttft) {
  return std::log(ttft ? r.ttft_pred_s / r.run->ttft_s : r.tpot_pred_s / r.run->tpot_s);
}

/// Share, in percent, of TTFT (ttft = true) or TPOT over `results` within `tolerance` of the
/// measurement with the best factor per group of `grouping`.
inline double ceiling_within_pct(const std::vector<ServingResult>& results, const CeilingGrouping& grouping,
                                 bool ttft, double tolerance) {
  if (results.empty()) return 0.0;
  std::map<std::string, std::vector<double>> groups;
  for (const ServingResult& r : results)
    groups[grouping.key(r)].push_back(ln_ratio(r, ttft));
  int within = 0;
  for (auto& [key, values] : groups)
    within += best_factor(std::move(values), within_log_width(tolerance)).count;
  return 100.0 * within / static_cast<double>(results.size());
}

inline double ceiling_within_25_pct(const std::vector<ServingResult>& results,
                                    const CeilingGrouping& grouping, bool ttft) {
  return ceiling_within_pct(results, grouping, ttft, 0.25);
}

/// The groupings of the report, coarse to fine; "one factor for every row" is the global calibration,
/// the (engine, GPU, model, precision) pair is what leave-one-pair-out holds out.
inline std::vector<CeilingGrouping> ceiling_groupings() {
  const auto pair = [](const ServingResult& r) {
    return r.run->engine + "|" + r.run->gpu_id + "|" + r.run->preset + "|" + r.run->precision;
  };
  return {
      {"one factor for every row", [](const ServingResult&) { return std::string(); }},
      {"per engine", [](const ServingResult& r) { return r.run->engine; }},
      {"per engine × GPU", [](const ServingResult& r) { return r.run->engine + "|" + r.run->gpu_id; }},
      {"per engine × version × GPU",
       [](const ServingResult& r) {
         return r.run->engine + "|" + r.run->engine_version + "|" + r.run->gpu_id;
       }},
      {"per (engine, GPU, model, precision) pair", pair},
      {"per pair × engine version",
       [pair](const ServingResult& r) { return pair(r) + "|" + r.run->engine_version; }},
      {"per pair × input and output length",
       [pair](const ServingResult& r) {
         return fmt::format("{}|{}|{}", pair(r), r.run->input_tokens, r.run->output_tokens);
       }},
  };
}

/// The markdown table: rows within 25 % as predicted, then with the best factor per group of each
/// grouping, for TTFT and TPOT.
inline std::string factor_ceiling_table(const std::vector<ServingResult>& results) {
  std::string s = "| factor, chosen with hindsight | groups | TTFT within 25 % | TPOT within 25 % |\n"
                  "|---|---:|---:|---:|\n";
  const auto share = [&results](bool ttft) {
    int within = 0;
    for (const ServingResult& r : results) {
      const double ratio = ttft ? r.ttft_pred_s / r.run->ttft_s : r.tpot_pred_s / r.run->tpot_s;
      within += std::abs(ratio - 1.0) <= 0.25 ? 1 : 0;
    }
    return results.empty() ? 0.0 : 100.0 * within / static_cast<double>(results.size());
  };
  s += fmt::format("| none (as predicted) | - | {:.1f} % | {:.1f} % |\n", share(true), share(false));
  for (const CeilingGrouping& g : ceiling_groupings()) {
    std::map<std::string, int> groups;
    for (const ServingResult& r : results)
      ++groups[g.key(r)];
    s += fmt::format("| {} | {} | {:.1f} % | {:.1f} % |\n", g.name, groups.size(),
                     ceiling_within_25_pct(results, g, true), ceiling_within_25_pct(results, g, false));
  }
  return s;
}

/// A median absolute error of at most t needs at least half the rows within t, so the share one
/// factor per group brings within t bounds which median targets any calibration of those groups
/// can reach (docs/accuracy.md "Layout targets"). The table: per grouping, the shares within
/// `ttft_tolerance` and `tpot_tolerance` (the targets of issue 17: 30 % and 20 %).
inline std::string target_ceiling_table(const std::vector<ServingResult>& results, double ttft_tolerance,
                                        double tpot_tolerance) {
  std::string s = fmt::format("| factor, chosen with hindsight | groups | TTFT within {:.0f} % | TPOT within "
                              "{:.0f} % |\n|---|---:|---:|---:|\n",
                              100.0 * ttft_tolerance, 100.0 * tpot_tolerance);
  int ttft_within = 0, tpot_within = 0;
  for (const ServingResult& r : results) {
    ttft_within += std::abs(std::exp(ln_ratio(r, true)) - 1.0) <= ttft_tolerance ? 1 : 0;
    tpot_within += std::abs(std::exp(ln_ratio(r, false)) - 1.0) <= tpot_tolerance ? 1 : 0;
  }
  const double n = std::max<double>(1.0, static_cast<double>(results.size()));
  s += fmt::format("| none (as predicted) | - | {:.1f} % | {:.1f} % |\n", 100.0 * ttft_within / n,
                   100.0 * tpot_within / n);
  for (const CeilingGrouping& g : ceiling_groupings()) {
    std::map<std::string, int> groups;
    for (const ServingResult& r : results)
      ++groups[g.key(r)];
    s += fmt::format("| {} | {} | {:.1f} % | {:.1f} % |\n", g.name, groups.size(),
                     ceiling_within_pct(results, g, true, ttft_tolerance),
                     ceiling_within_pct(results, g, false, tpot_tolerance));
  }
  return s;
}

/// The ln of the factor that brings a densest window within `tolerance`: the one that maps the
/// window's middle onto ratio 1 (no bias), moved just enough to keep the whole window inside
/// [ln(1 − t), ln(1 + t)] (ln f between ln_high − ln(1 + t) and ln_low − ln(1 − t), a non-empty
/// range since the window is no wider than the band).
inline double band_factor_ln(const BestFactor& window, double tolerance) {
  const double middle = 0.5 * (window.ln_low + window.ln_high);
  return std::clamp(middle, window.ln_high - std::log(1.0 + tolerance),
                    window.ln_low - std::log(1.0 - tolerance));
}

/// Median absolute error, in percent, when each row is corrected by the factor that brings the
/// most of its engine's rows from the other (engine, GPU, model, precision) pairs within
/// `tolerance` (band_factor_ln): an engine-level factor judged on the pairs it was not fitted on, as
/// leave-one-pair-out judges the shipped calibration. A row whose engine has no other pair keeps its
/// prediction.
inline double engine_factor_leave_pair_out_median_pct(const std::vector<ServingResult>& results, bool ttft,
                                                      double tolerance) {
  const auto pair = [](const ServingResult& r) {
    return r.run->engine + "|" + r.run->gpu_id + "|" + r.run->preset + "|" + r.run->precision;
  };
  std::vector<double> errors;
  errors.reserve(results.size());
  for (const ServingResult& r : results) {
    std::vector<double> others;
    for (const ServingResult& o : results)
      if (o.run->engine == r.run->engine && pair(o) != pair(r)) others.push_back(ln_ratio(o, ttft));
    double ln_factor = 0.0;
    if (!others.empty())
      ln_factor = band_factor_ln(best_factor(std::move(others), within_log_width(tolerance)), tolerance);
    errors.push_back(std::abs(std::exp(ln_ratio(r, ttft) - ln_factor) - 1.0));
  }
  // The median as the report's tables take it (summarize_serving).
  return errors.empty() ? 0.0 : 100.0 * quantile(std::move(errors), 0.5);
}

/// Rows that differ only in output length (same engine and version, GPU, model, quantization,
/// input length, clients, batch setting and layout) at low load: how often the longest output's
/// measured TTFT is more than 1.25× the shortest's, or less than 1 / 1.25 of it (a 1.25× ratio
/// either way; repeats of one length: their geometric mean).
struct OutputLengthSpread {
  int groups = 0;               ///< groups of two or more output lengths
  int rows = 0;                 ///< rows in them
  int longer_slower = 0;        ///< longest output's TTFT > 1.25 × the shortest's
  int longer_faster = 0;        ///< longest output's TTFT < the shortest's / 1.25
  int predicted_slower = 0;     ///< groups whose predicted TTFT rises by more than 25 %
  int predicted_faster = 0;     ///< groups whose predicted TTFT falls by more than 25 %
  std::int64_t max_clients = 0; ///< rows with more clients are left out
};

/// Over `results` with at most `max_clients` clients. At low load a new prompt waits for at most
/// one step of the running batch, so its TTFT is its prefill plus up to a step: a longer output makes
/// prompts arrive less often (fewer prefills to share a step with) and the running contexts longer
/// (a slower step), both modelled by the estimate; `predicted_slower` says how often that alone
/// moves TTFT by more than 25 %, against what was measured.
inline OutputLengthSpread output_length_spread(const std::vector<ServingResult>& results,
                                               std::int64_t max_clients) {
  // group key -> output length -> ln measured and ln predicted TTFT of its rows
  std::map<std::string, std::map<std::int64_t, std::vector<std::pair<double, double>>>> groups;
  for (const ServingResult& r : results) {
    const ServingRun& x = *r.run;
    if (x.concurrency > max_clients) continue;
    groups[fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", x.engine, x.engine_version, x.gpu_id,
                       x.preset, x.precision, x.gemm_quant, x.moe_quant, x.input_tokens, x.concurrency,
                       x.batch_size, x.tp, x.pp, x.attention_dp, x.moe_tp, x.moe_ep)][x.output_tokens]
        .emplace_back(std::log(x.ttft_s), std::log(r.ttft_pred_s));
  }
  const auto mean = [](const std::vector<std::pair<double, double>>& v, bool measured) {
    double sum = 0.0;
    for (const auto& [m, p] : v)
      sum += measured ? m : p;
    return sum / static_cast<double>(v.size());
  };
  OutputLengthSpread out;
  out.max_clients = max_clients;
  for (const auto& [key, by_length] : groups) {
    if (by_length.size() < 2) continue;
    ++out.groups;
    for (const auto& [length, ln_ttft] : by_length)
      out.rows += static_cast<int>(ln_ttft.size());
    const auto& shortest = by_length.begin()->second;
    const auto& longest = by_length.rbegin()->second;
    const double ln_ratio = mean(longest, true) - mean(shortest, true);
    out.longer_slower += ln_ratio > std::log(1.25) ? 1 : 0;
    out.longer_faster += ln_ratio < -std::log(1.25) ? 1 : 0;
    const double ln_predicted = mean(longest, false) - mean(shortest, false);
    out.predicted_slower += ln_predicted > std::log(1.25) ? 1 : 0;
    out.predicted_faster += ln_predicted < -std::log(1.25) ? 1 : 0;
  }
  return out;
}

} // namespace rightsize::bench
