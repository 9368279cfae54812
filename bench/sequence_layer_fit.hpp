// The per-sequence decode time of a GPU (GpuEfficiency::decode_sequence_layer_s, methodology §3
// "per-sequence time"), fitted to published static-batch runs of tests/validation/amd-serving.json:
// end-to-end latency of one batch of B sequences on a tensor-parallel replica (closed loop, a stated
// batch, TP ≥ 2). Each case is predicted as the CLI predicts it at t_seq = 0 and at a probe value;
// the prediction is linear in t_seq (every decode step adds B·L·t_seq), so its slope and the
// least-squares fit of the relative error are closed-form. The grouped folds leave one model and
// one engine build out in turn, each predicted with the t_seq fitted without it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "accuracy/cv.hpp"
#include "held_out_cases.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize::bench {

/// One fit case: measured, predicted at t_seq = 0, and the prediction's slope in t_seq (s per s).
struct SequenceLayerCase {
  double measured = 0.0, at_zero = 0.0, slope = 0.0;
  std::string model, build; ///< the fold groups: model name, engine build (the framework up to " (")
};

/// One grouped fold: the group held out, the t_seq fitted without it and its cases' figures.
struct SequenceLayerFold {
  std::string fold, group;
  std::size_t cases = 0;
  double fitted_s = 0.0;
  ServingErrorSummary before, after;
};

struct SequenceLayerFit {
  std::string gpu_id;
  double fitted_s = 0.0; ///< over every case of the GPU
  std::vector<std::string> ids;
  ServingErrorSummary before, after; ///< in sample
  /// Largest gap between the linear form the figures use and the CLI's prediction at fitted_s (%).
  double linear_gap_pct = 0.0;
  std::vector<SequenceLayerFold> folds;
};

/// The probe t_seq for the slope (1 µs, the order of the fitted values).
inline constexpr double k_sequence_layer_probe_s = 1e-6;

inline bool is_sequence_layer_case(const ValidationCase& c) {
  return c.scored && c.kind == FigureKind::e2e && c.workload.arrival == Arrival::closed_loop &&
         c.workload.concurrency > 0 && c.deployment.tp >= 2;
}

/// Least squares of the relative error (p0 + s·t − m) / m over `cases`, t ≥ 0.
inline double fit_sequence_layer_s(const std::vector<const SequenceLayerCase*>& cases) {
  double num = 0.0, den = 0.0;
  for (const SequenceLayerCase* k : cases) {
    const double w = 1.0 / (k->measured * k->measured);
    num += k->slope * (k->measured - k->at_zero) * w;
    den += k->slope * k->slope * w;
  }
  return den > 0.0 ? std::max(0.0, num / den) : 0.0;
}

/// Median abs. error and share within 25 % of `cases` at one t_seq (summarize_figures; no band).
inline ServingErrorSummary sequence_layer_figures(const std::vector<const SequenceLayerCase*>& cases,
                                                  double t_s) {
  std::vector<ScoredFigure> figures;
  figures.reserve(cases.size());
  for (const SequenceLayerCase* k : cases) {
    const double predicted = k->at_zero + k->slope * t_s;
    figures.push_back({k->measured, predicted, predicted, predicted});
  }
  return summarize_figures("", figures);
}

/// `cal` with `gpu_id`'s t_seq set to `t_s` as a fitted value.
inline Calibration with_sequence_layer(Calibration cal, const std::string& gpu_id, double t_s,
                                       const std::vector<std::string>& ids) {
  for (FittedEfficiency& f : cal.gpus) {
    if (f.gpu_id != gpu_id) continue;
    f.efficiency.decode_sequence_layer_s = t_s;
    f.sequence_layer_source = "fitted";
    f.sequence_layer_cases = ids;
    return cal;
  }
  FittedEfficiency f;
  f.gpu_id = gpu_id;
  f.efficiency.decode_sequence_layer_s = t_s;
  f.sequence_layer_source = "fitted";
  f.sequence_layer_cases = ids;
  cal.gpus.push_back(f);
  return cal;
}

/// The fit cases of `cases` (is_sequence_layer_case), in their order.
inline std::vector<ValidationCase> sequence_layer_inputs(const std::vector<ValidationCase>& cases) {
  std::vector<ValidationCase> chosen;
  for (const ValidationCase& c : cases)
    if (is_sequence_layer_case(c)) chosen.push_back(c);
  return chosen;
}

/// Each GPU's cases of `chosen` with their predictions at t_seq = 0 and their slopes under `cal`.
inline std::map<std::string, std::vector<SequenceLayerCase>>
sequence_layer_cases(const std::vector<ValidationCase>& chosen, const Calibration& cal) {
  std::map<std::string, std::vector<std::string>> ids;
  for (const ValidationCase& c : chosen)
    ids[c.gpu_id].push_back(c.id);
  std::map<std::string, std::vector<SequenceLayerCase>> out;
  for (const auto& [gpu, gpu_ids] : ids) {
    const HeldOutScore zero =
        score_held_out(chosen, accuracy::calibrated_catalog(with_sequence_layer(cal, gpu, 0.0, {})));
    const HeldOutScore probe = score_held_out(
        chosen, accuracy::calibrated_catalog(with_sequence_layer(cal, gpu, k_sequence_layer_probe_s, {})));
    for (std::size_t i = 0; i < zero.results.size(); ++i) {
      const ValidationCase& c = *zero.results[i].c;
      if (c.gpu_id != gpu) continue;
      const std::string build = c.framework.substr(0, c.framework.find(" ("));
      out[gpu].push_back(
          {c.measured, zero.results[i].predicted.value,
           (probe.results[i].predicted.value - zero.results[i].predicted.value) / k_sequence_layer_probe_s,
           c.model.name, build});
    }
  }
  return out;
}

/// Fits every GPU with static-batch cases in `cases`, with its grouped folds.
inline std::vector<SequenceLayerFit> fit_sequence_layers(const std::vector<ValidationCase>& cases,
                                                         const Calibration& cal) {
  std::vector<SequenceLayerFit> fits;
  const std::vector<ValidationCase> chosen = sequence_layer_inputs(cases);
  for (const auto& [gpu, rows] : sequence_layer_cases(chosen, cal)) {
    SequenceLayerFit fit;
    fit.gpu_id = gpu;
    std::vector<const SequenceLayerCase*> all;
    for (const SequenceLayerCase& k : rows)
      all.push_back(&k);
    for (const ValidationCase& c : chosen)
      if (c.gpu_id == gpu) fit.ids.push_back(c.id);
    fit.fitted_s = fit_sequence_layer_s(all);
    fit.before = sequence_layer_figures(all, 0.0);
    fit.after = sequence_layer_figures(all, fit.fitted_s);
    // The folds use the linear form; the CLI at the fitted value says how far it holds.
    const HeldOutScore at =
        score_held_out(chosen, accuracy::calibrated_catalog(with_sequence_layer(cal, gpu, fit.fitted_s, {})));
    std::size_t j = 0;
    for (const HeldOutResult& r : at.results) {
      if (r.c->gpu_id != gpu) continue;
      const SequenceLayerCase& k = rows[j++];
      const double linear = k.at_zero + k.slope * fit.fitted_s;
      fit.linear_gap_pct =
          std::max(fit.linear_gap_pct, std::fabs(r.predicted.value - linear) / linear * 100.0);
    }
    for (const bool by_model : {true, false}) {
      const auto group_of = [&](const SequenceLayerCase* k) -> const std::string& {
        return by_model ? k->model : k->build;
      };
      std::map<std::string, std::vector<const SequenceLayerCase*>> held_out;
      for (const SequenceLayerCase* k : all)
        held_out[group_of(k)].push_back(k);
      for (const auto& [group, held] : held_out) {
        std::vector<const SequenceLayerCase*> train;
        for (const SequenceLayerCase* k : all)
          if (group_of(k) != group) train.push_back(k);
        const double t = fit_sequence_layer_s(train);
        fit.folds.push_back({by_model ? "leave one model out" : "leave one engine build out", group,
                             held.size(), t, sequence_layer_figures(held, 0.0),
                             sequence_layer_figures(held, t)});
      }
    }
    fits.push_back(fit);
  }
  return fits;
}

/// docs/accuracy.md's table of the fits and their folds.
inline std::string sequence_layer_markdown(const std::vector<SequenceLayerFit>& fits) {
  std::string s = "| GPU | fold | held out | cases | t_seq fitted (µs) | median abs., t_seq 0 → fitted | "
                  "within 25 %, t_seq 0 → fitted |\n|---|---|---|---:|---:|---:|---:|\n";
  for (const SequenceLayerFit& f : fits) {
    s += fmt::format("| {} | in sample | none | {} | {:.3f} | {:.1f} → {:.1f} % | {:.0f} → {:.0f} % |\n",
                     f.gpu_id, f.ids.size(), f.fitted_s * 1e6, f.before.median_ape_pct,
                     f.after.median_ape_pct, f.before.within_25_pct, f.after.within_25_pct);
    for (const SequenceLayerFold& k : f.folds)
      s += fmt::format("| {} | {} | {} | {} | {:.3f} | {:.1f} → {:.1f} % | {:.0f} → {:.0f} % |\n", f.gpu_id,
                       k.fold, k.group, k.cases, k.fitted_s * 1e6, k.before.median_ape_pct,
                       k.after.median_ape_pct, k.before.within_25_pct, k.after.within_25_pct);
  }
  for (const SequenceLayerFit& f : fits)
    s += fmt::format(
        "\n{}: the figures take each prediction as linear in t_seq (its value at 0 plus its slope "
        "times t_seq); at the fitted value the CLI's predictions differ from that by at most "
        "{:.2f} %.\n",
        f.gpu_id, f.linear_gap_pct);
  return s;
}

} // namespace rightsize::bench
