#pragma once
// Rendering of `recommend` and `check` results: ranked table, winner line, closest misses,
// capacity plan; JSON / CSV / markdown documents (docs/output-schema.md).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/diagnostics.hpp"
#include "app/recommend.hpp"
#include "render/emit/emit.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"
#include "render/table.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::cli {

struct RenderOptions {
  Format format = Format::table;
  std::size_t top = 5; ///< the request's --top (the rows themselves come from the use case)
  bool explain = false;
  bool searched_precisions = false;
  /// Extra top-level keys for the JSON document (`recommend --disagg`: "disaggregated").
  nlohmann::json extra_json = nlohmann::json::object();
};

/// The CSV writers' shared pieces (docs/output-schema.md "recommend --format csv"): a table of
/// machine-named columns, numbers to 6 significant digits (empty when not finite), prices empty when
/// unknown.
Table csv_columns(std::initializer_list<const char*> headers);
std::string csv_number(double value);
std::string csv_usd(double usd, bool known);

/// "fp8", "int8 w/ bf16 math", "fp8, fp8 KV": a candidate's precision in a table, CSV or JSON. An
/// item model (image, ViT) has no KV cache to name.
std::string precision_name(const SearchInputs& in, const Precision& p);

/// The recommend CSV (docs/output-schema.md "recommend CSV"): one row per candidate, passing then
/// rejected.
Table candidate_csv(const SearchInputs& in, const std::vector<Candidate>& rows);

/// One candidate as a JSON object: the estimate document plus rank, meets_sla, reasons, precision.
nlohmann::json candidate_json(const SearchInputs& in, const Candidate& c);

/// The SLA in words: "TTFT ≤ 1000 ms, TPOT ≤ 50 ms, 20 req/s peak" ("none" when empty).
/// The SLA in words; `headroom` (> 0) follows the load term as " + 20 % headroom".
std::string describe_sla(const Sla& sla, double headroom = 0.0);

/// Prints a recommendation in the chosen format to stdout: formats the use case's result, decides nothing.
void render_recommendation(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                           const LoadedCatalog& catalog, const RenderOptions& options);

/// Prints a training recommendation in the chosen format to stdout.
void render_training_recommendation(const Spec& spec, const SearchInputs& in,
                                    const app::TrainingRecommendResult& result, const LoadedCatalog& catalog,
                                    const RenderOptions& options);

/// Prints a recommendation, training or inference (with --disagg's section), in `options.format`;
/// the inference writers' time goes to `diagnostics` as the "render" stage.
void render_recommend(const app::RecommendOutcome& outcome, const RenderOptions& options,
                      app::Diagnostics& diagnostics);

/// recommend --emit: the artifact of the candidate the use case planned, handed to `write`; a note
/// through `diagnostics` when nothing meets the requirements (no artifact).
void render_recommended_artifact(const app::RecommendOutcome& outcome, const EmitFormat& format,
                                 app::Diagnostics& diagnostics, const ArtifactWriter& write);

} // namespace rightsize::cli
