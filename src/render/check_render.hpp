#pragma once
// The writers of `check` (docs/output-schema.md "check"): the verdict as a table or a JSON
// document, or the checked deployment's --emit artifact, formatted from the use case's outcome
// (src/app/check.hpp); they decide nothing.
#include <string>

#include "app/check.hpp"
#include "app/diagnostics.hpp"
#include "render/emit/emit.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Prints a checked deployment, aggregated, disaggregated or a training run, in `format` (table or json) to
/// stdout.
void render_check(const app::CheckOutcome& outcome, Format format);

/// Prints an aggregated checked deployment in `format` (table or json) to stdout.
void render_check(const Spec& spec, const LoadedCatalog& catalog, const app::CheckResult& result,
                  double max_overspend, Format format);

/// Prints a checked training run in `format` (table or json) to stdout (issue 43 item 6).
void render_training_check(const Spec& spec, const app::TrainingCheckResult& result, double max_overspend,
                           Format format);

/// check --emit: the artifact of the deployment as judged (its layout, its replicas, its capacity
/// plan, as recommend --emit), handed to `write`; the verdict goes to notes through `diagnostics`.
/// A deployment that misses the SLA gets no artifact.
void render_checked_artifact(const app::CheckOutcome& outcome, const EmitFormat& format,
                             app::Diagnostics& diagnostics, const ArtifactWriter& write);

/// Why a checked deployment fails, in words: the first rejection, else the first missed SLA term.
std::string check_failure(const app::CheckResult& result);

} // namespace rightsize::cli
