#pragma once
// The writers of `validate` (docs/cli.md "validate"): the resolved model, precision, workload, SLA
// and every assumption as a table or a JSON document, from the use case's outcome
// (src/app/validate.hpp).
#include "app/validate.hpp"
#include "render/output_format.hpp"

namespace rightsize::cli {

/// Prints a validated spec in `format` (table or json) to stdout.
void render_validate(const app::ValidateOutcome& outcome, Format format);

} // namespace rightsize::cli
