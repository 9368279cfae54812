// The accuracy report's markdown (docs/accuracy.md): the case tables, the serving tables and the
// grouped cross-validation's tables and ablation.
#pragma once

#include <string>
#include <vector>

#include "accuracy/cv.hpp"
#include "held_out_cases.hpp"
#include "rightsize/calibration.hpp"
#include "serving_score.hpp"

namespace rightsize::bench::accuracy {

std::string case_table(const std::vector<CaseResult>& results);
std::string summary_table(const std::vector<ErrorSummary>& rows, bool with_target);
std::string report_markdown(const std::vector<CaseResult>& results, const Calibration& cal,
                            const std::string& method, const std::string& discussion,
                            const std::string& grouped_summary);
// The measured serving runs (tests/validation/serving): tables overall and per engine, GPU, model,
// precision and concurrency bucket, and the rows that cannot be expressed, by reason.
std::string serving_markdown(const bench::ServingScore& score);

// The summary of TTFT and TPOT over one set of predictions.
struct Figures {
  ServingErrorSummary ttft, tpot;
};
Figures figures_of(const std::vector<ServingResult>& results);

// One ablation's grouped figures: leave one model out and leave one GPU out.
struct AblationRow {
  const Ablation* ablation = nullptr;
  Figures lomo, logo;
};

// The overall grouped table (in sample, leave one pair out, each grouping) and the targets
// for the two gated groupings.
std::string grouped_summary_markdown(const bench::ServingScore& serving, const bench::ServingScore& loo,
                                     const std::vector<GroupedSet>& grouped);
// TTFT and TPOT per vendor and GPU generation: each measured NVIDIA GPU's serving rows left out of
// the fit (`logo`, leave one GPU out) and the AMD cases, never fitted (`amd`).
std::string vendor_markdown(const std::vector<ServingResult>& logo, const std::vector<Gpu>& gpus,
                            const bench::HeldOutScore& amd);

// The band coverage of each reach (measured, model_unmeasured, gpu_sibling, extrapolated, another
// vendor), each reach's rows predicted as that reach is as shipped, with the shipped reach bands.
std::string reach_markdown(const std::vector<ServingResult>& in_sample,
                           const std::vector<ServingResult>& lomo, const std::vector<ServingResult>& logo,
                           const std::vector<Gpu>& gpus, const bench::HeldOutScore& amd,
                           const Calibration& cal);
std::string ablation_markdown(const AblationRow& shipped, const std::vector<AblationRow>& rows);
// The grouped tables at the end of the report: per engine, GPU family and model class (in sample
// beside each grouping), per held-out group, and the ablation table.
std::string grouped_markdown(const bench::ServingScore& serving, const std::vector<GroupedSet>& grouped,
                             const std::vector<Gpu>& gpus, const std::string& ablation_table,
                             const std::vector<std::string>& copies);

} // namespace rightsize::bench::accuracy
