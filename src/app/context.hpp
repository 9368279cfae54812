#pragma once
// What every use case of the application layer runs on (docs/ARCHITECTURE.md "Application layer"):
// the priced, calibrated catalog and the search inputs a spec selects from it. Plain values: the CLI
// fills them from files and flags; a use case reads them and decides.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "app/diagnostics.hpp"
#include "app/engine_setup.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// A serving stack of a --calibration overlay as the outputs name it: the engine its runs used and
/// how many runs it was fitted to (fewer than k_min_band_runs: factors, but no bands of its own).
struct OverlayStack {
  std::string engine;
  int runs = 0;
};

/// A catalog ready for a command: the GPUs, the price model in force and each GPU's price.
struct LoadedCatalog {
  io::Catalog catalog;
  EngineProfiles engines; // data/engines.json: every serving engine's profile
  PricingModel pricing = PricingModel::on_demand;
  std::string provider;
  TcoParams tco;
  std::vector<ResolvedPrice> prices; // parallel to catalog.gpus
  Calibration calibration;           // data/calibration.json (empty with --no-calibration)
  bool calibrated = false;           // efficiency factors and error bands come from it
  /// Which calibration is in force, in words: "data/calibration.json" (shipped), "none"
  /// (--no-calibration) or "data/calibration.json + FILE (GPU x engine, N runs, DATE)".
  std::string calibration_label = "none";
  std::string calibration_overlay;                    // the --calibration FILE applied; empty when none
  std::map<std::string, OverlayStack> overlay_stacks; // GPU id -> its overlay stack (serving stacks only)
};

/// The calibration whose bands --confidence reads (null with --no-calibration or none loaded).
const Calibration* band_calibration(const LoadedCatalog& catalog);

/// A warning when --headroom (`headroom` >= 0) was given for a training spec, which has no serving
/// load to add it to.
void warn_unused_headroom(double headroom, const Spec& spec, Diagnostics& diagnostics);
/// A warning for each serving-engine flag (--engine, --gpu-memory-utilization, --max-batched-tokens,
/// --max-num-seqs, --capacity-scheduler-policy) given for a training spec, which has no engine.
void warn_unused_engine_flags(const EngineSetup& engine, const Spec& spec, Diagnostics& diagnostics);

/// The throughput headroom over the SLA's peak load that every command judges the load with and
/// recommend sizes replicas by (`--headroom`, 0 to 10; negative = SearchPolicy's default, 0.2).
double throughput_headroom(double requested);

/// The price of a GPU of `loaded.catalog` (by identity, else by id); an internal Error otherwise.
const ResolvedPrice& price_of(const LoadedCatalog& loaded, const Gpu& gpu);

/// Index of a GPU in the catalog.
std::size_t gpu_index(const LoadedCatalog& catalog, const Gpu& gpu);

/// Days from the newest quote behind a price to `today_days` (days since 1970-01-01; -1 when undated).
std::int64_t price_age_days(const ResolvedPrice& price, std::int64_t today_days);

/// The price margins a cost ranking charges `gpus` (each a GPU of `loaded.catalog`), in their order
/// (SearchPolicy::price_margins; docs/methodology.md §5.2 "Price quality"): price_rank_margin of each
/// price against the catalog's provider spread; empty at --confidence p50, which ranks on the quoted
/// prices.
std::vector<double> price_margins(const LoadedCatalog& loaded, std::span<const Gpu> gpus,
                                  Confidence confidence, std::int64_t today_days);

/// Finds a GPU named on the command line; unknown -> usage Error with did-you-mean, naming `source`
/// (a flag or argument name; may be empty). With a `pointer`, the GPU comes from the spec file
/// `source` at that JSON pointer: unknown -> input Error (exit 3) there.
const Gpu& require_gpu(const io::Catalog& catalog, const std::string& id_or_alias, const std::string& source,
                       const std::string& pointer = "");

/// What a search runs over: the chosen GPUs with their prices, and one prepared model per precision.
struct SearchInputs {
  std::vector<Gpu> gpus;                ///< sorted by id
  std::vector<ResolvedPrice> prices;    ///< parallel to gpus
  std::vector<double> usd_per_gpu_hour; ///< parallel to gpus; 0 = unknown
  std::vector<GpuPrice> gpu_prices;     ///< parallel to gpus: the rate with its instance shapes
  std::vector<Precision> precisions;
  std::vector<PreparedModel> models;          ///< parallel to precisions
  std::vector<std::string> excluded_consumer; ///< consumer GPUs a whole-catalog search left out
};
/// GPUs from --gpu (usage errors), else the spec's constraints.gpus (input errors with pointer),
/// else the whole catalog without consumer parts unless `include_consumer` (searched_by_default).
SearchInputs search_inputs(const Spec& spec, const LoadedCatalog& catalog,
                           const std::vector<std::string>& gpu_flags, const std::string& precision_list,
                           bool include_consumer = false);

/// True for a model sized per item (an image for kind dit, an encoded input for kind vit): recommend
/// speaks in items for it, not in output tokens.
bool is_item_model(const PreparedModel& model);

/// Layout label "TP2", "TP4·PP2", "TP8 EP8", "ADP8 EP8": the one name of a layout in every output
/// and error message.
std::string layout_label(const Deployment& layout);

/// Usage error (flag --ep or --attention-dp) when `ep` > 1 asks to split the experts of `model`, a
/// dense model, or `attention_dp` > 1 asks for the data-parallel attention that pairs with them:
/// estimate's and check's one wording of the rule the spec reader applies to `deployment.ep` and
/// `deployment.attention_dp`.
void reject_moe_layout_on_dense(const ModelSpec& model, int ep, int attention_dp);

/// Usage error (flag --attention-dp) when `attention_dp` > 1 is asked of a training run: estimate's
/// and check's one wording (attention data parallelism is a serving layout).
void reject_attention_dp_for_training(int attention_dp);

/// Where a pinned EP came from: the --ep flag (a usage error, exit 2) or a spec file's
/// /deployment/ep (bad input, exit 3).
struct EpOrigin {
  bool from_spec = false;
  std::string spec_source; ///< the spec file, when from_spec
};

/// Throws the one error for a layout core::fit_layout could not form around a pinned EP
/// (LayoutIssue::ep_exceeds_replica / ep_unplaceable); returns for any other issue.
void reject_ep_layout(const LayoutChoice& choice, const Gpu& gpu, const EpOrigin& origin);

/// Precisions to search from `--precisions bf16,fp8,int4` (empty = the spec's own).
std::vector<Precision> precisions_to_search(const Spec& spec, const std::string& list);

} // namespace rightsize::app
