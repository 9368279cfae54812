#pragma once
// Rendering helpers shared by estimate / recommend / check / sweep: fixed-precision numbers, unit
// formatting, JSON documents (docs/output-schema.md) and rejection reasons in words.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/bands.hpp"
#include "app/context.hpp"
#include "render/term_words.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Version of the JSON documents rightsize prints.
inline constexpr int k_output_schema_version = 1;

/// Rounds to `digits` significant digits so JSON output is stable across platforms.
double round_sig(double value, int digits = 6);
/// "16.06 GB" (decimal GB; output states GB everywhere, docs/output-schema.md).
std::string format_gb(double bytes);
/// "12.4 ms" with sensible precision; "-" for 0.
std::string format_ms(double seconds);
/// A wait of `e` (TTFT, end-to-end, queue): format_ms, or "unbounded" when `e` is an overloaded
/// open loop (its queue grows without end; the core keeps a finite stand-in no output shows).
std::string format_wait(const InferenceEstimate& e, double seconds);
/// "" for a mean, " p50" / " p90" / " p99" for a percentile: the suffix a latency's name takes when the
/// SLA judges that statistic ("TTFT p99"). A literal: no allocation on the sweep writer's path.
const char* stat_suffix(Statistic statistic);
/// "$4.32" / "$0.0012"; "n/a" when unknown.
std::string format_usd(double usd, bool known = true);
/// Totals: "$155.2k", "$1.25M", "$19.16".
std::string format_usd_total(double usd);
/// A percentage difference, its sign left to the words around it: "38%"; one decimal where the
/// whole number would read 0 ("0.3%"), "<0.1%" below that, so a real difference never prints as "0%".
std::string format_pct(double pct);
/// "3,835" style integer with thousands separators.
std::string format_count(double value);

/// A byte count for JSON: the rounded integer while it fits int64, else the rounded double (a
/// count past 9.2e18 bytes must never wrap to a negative number); null only for NaN / inf.
nlohmann::json json_bytes(double bytes);

/// The same count as CSV / JSONL text: digits while it fits int64, else exponent form ("1.2e+22").
std::string text_bytes(double bytes);
/// "7.50 B" parameter counts.
std::string format_params(double params);

/// The rejection in words with its numbers, e.g. "TPOT 71.0 ms > SLA 50 ms at concurrency 1": the
/// term's rejection form (term_words.hpp), for every command and format (sweep appends it
/// allocation-free).
void append_rejection(fmt::memory_buffer& out, const TermCheck& rejection, std::int64_t concurrency,
                      const Vocabulary& words = {});
/// A training run's rejection in the same words (budgets are per run): describe_training_rejection's.
void append_training_rejection(fmt::memory_buffer& out, const TermCheck& rejection);
std::string describe_rejection(const TermCheck& rejection, std::int64_t concurrency,
                               const Vocabulary& words = {});
std::string describe_rejection(const Candidate& candidate, const Vocabulary& words = {});
/// One judged SLA term in words, its check form: "TPOT 41.2 ms (band p90 44.0 ms) ≤ 50 ms".
std::string describe_term(const TermCheck& term, const Vocabulary& words = {});
/// The verdict as JSON (docs/output-schema.md "verdict").
nlohmann::json verdict_json(const Verdict& verdict, Confidence confidence, std::int64_t concurrency);
/// Goodput (methodology §6.1): "goodput 4.89 req/s: 40.7 % of requests within every latency target
/// (TTFT ≤ 300 ms 40.7 %, ...)", and its JSON object (docs/output-schema.md `inference.goodput`).
std::string goodput_line(const Goodput& goodput);
nlohmann::json goodput_json(const Goodput& goodput);

using app::gpu_index;
using app::layout_label;
using app::LoadedCatalog;
using app::price_of;
using app::SearchInputs;

/// "calibration  <label>": the table line commands print when --calibration is in force (their JSON
/// gets a "calibration" field with the label); outputs without an overlay keep their shape.
std::string calibration_table_line(const LoadedCatalog& loaded);

/// JSON of one inference estimate, the estimate document's body (model/deployment/memory/
/// inference/cost). `gpu_id` names the GPU.
/// The load an estimate assumes: engine profile, arrival model and rate (docs/output-schema.md).
nlohmann::json load_json(const InferenceWorkload& workload, const std::string& engine_name);

nlohmann::json estimate_json(const PreparedModel& model, const std::string& gpu_id,
                             const Deployment& deployment, const InferenceEstimate& estimate,
                             bool price_known);

/// Adds the served load and the cost over it to a "cost" object (docs/output-schema.md "Cost"):
/// `*_at_load` next to the estimate's `*_at_capacity`.
void add_cost_at_load(nlohmann::json& cost, const CostAtLoad& at_load, bool price_known);

/// The cost-per-1M-output-tokens lines of an estimate, aggregated or disaggregated: at capacity
/// always, and at the load served (core::cost_at_load) when it differs (an open loop, or a closed
/// loop whose SLA asks less than it serves), with what that load is.
struct CostLine {
  std::string label, value, note;
};
std::vector<CostLine> cost_per_million_lines(const InferenceEstimate& e, const CostAtLoad& at_load,
                                             bool price_known);

/// With a --calibration overlay that measured the figure's tail on this GPU: its p99 as the use case
/// computed it (app::OverlayTail), one table line; nothing otherwise.
void print_overlay_tail(FigureKind kind, const std::optional<app::OverlayTail>& tail);

/// Adds `*_low` / `*_high` siblings to the performance and memory figures of an estimate document
/// (docs/output-schema.md). Latency lows are optimistic; throughput lows are pessimistic.
void add_inference_bands(nlohmann::json& doc, const app::EstimateBands& bands);

/// The SLA terms met by the point estimate but missed at the pessimistic end of the band, in words
/// ("TPOT 49.9 ms meets 50 ms, but its band's p90 is 61.0 ms"). Empty when the SLA holds across the band.
std::vector<std::string> optimistic_only(const app::EstimateBands& bands);
/// "no published measurement of the <class> model class is scored: ..." when the bands are an unseen model
/// class's (app::EstimateBands::class_width); empty otherwise.
std::string unseen_class_note(const app::EstimateBands& bands);
/// For an estimate on a GPU without serving runs of its own: its reach and where its bands come
/// from ("" when measured or uncalibrated).
std::string reach_note(const app::EstimateBands& bands, const std::string& gpu_id, const std::string& model);

/// "113 ms (72–286)" for a latency with its band.
/// "12.3 ms (10.1 ms–20.4 ms)" from a band already computed.
std::string format_ms_band(const Band& band, bool calibrated);

/// The spec's assumptions as a JSON array (sorted as given).
nlohmann::json assumptions_json(const std::vector<std::string>& assumptions);

} // namespace rightsize::cli
