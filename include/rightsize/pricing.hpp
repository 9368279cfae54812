#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/gpu.hpp"
#include "rightsize/instances.hpp"

namespace rightsize {

/// Which price a cost is computed at.
enum class PricingModel : std::uint8_t { on_demand, spot, on_prem };
/// "on_demand", "spot" or "on_prem".
const char* to_string(PricingModel model);
/// Parses a price model name (underscore or hyphen spelling); nullopt when unknown.
std::optional<PricingModel> parse_pricing_model(std::string_view text);

/// On-premises total cost of ownership inputs (methodology §6.4). Every field has a documented
/// default in docs/methodology.md and can be set in the spec or on the command line.
struct TcoParams {
  double amortization_years = 4.0;        ///< straight-line (cost_of_capital 0) or annuity
  double cost_of_capital = 0.0;           ///< yearly rate r; 0 = straight-line
  double utilization = 0.70;              ///< fraction of hours the GPU does useful work
  double power_usage_effectiveness = 1.3; ///< PUE
  double usd_per_kwh = 0.10;
  double power_fraction_of_tdp = 0.80;    ///< average draw as a fraction of TDP
  double grid_g_co2e_per_kwh = 0.0;       ///< grid carbon intensity for energy reports; 0 = not stated
  double server_overhead_fraction = 0.25; ///< host CPU/RAM/network share of the GPU price
  double ops_fraction_per_year = 0.15;    ///< maintenance, support, hosting, as a fraction of capex per year
};

/// Hours in the 365-day year the TCO formula uses (methodology §6.4).
inline constexpr double k_tco_hours_per_year = 8760.0;

/// TCO breakdown per GPU-hour at 100 % allocation and per useful GPU-hour.
struct TcoResult {
  double capex_usd_per_year = 0.0;
  double power_usd_per_year = 0.0;
  double ops_usd_per_year = 0.0;
  double usd_per_gpu_hour = 0.0;        ///< at 100 % allocation
  double usd_per_useful_gpu_hour = 0.0; ///< divided by utilization
};

/// On-prem cost of one GPU (purchase price `gpu_usd`, TDP `tdp_watts`). Methodology §6.4.
TcoResult on_prem_tco(double gpu_usd, double tdp_watts, const TcoParams& params);

/// Utilization at which owning costs the same per useful hour as renting at `cloud_usd_per_hour`
/// (can exceed 1: owning never pays off). `tco` was computed at `utilization`; infinity when the
/// cloud price is not positive.
double break_even_utilization(const TcoResult& tco, double utilization, double cloud_usd_per_hour);

/// Median of the given values (mean of the middle two for an even count); NaN for none.
double median(std::vector<double> values);

/// Quotes dated more than this many days before a GPU's newest quote of the same kind are listed but
/// left out of its median (gpu-specs.md caveat 5: prices older than ~1 month are indicative only).
inline constexpr std::int64_t k_price_window_days = 30;

/// Days since 1970-01-01 of an ISO 8601 calendar date "YYYY-MM-DD"; nullopt when malformed or not a
/// real calendar date.
std::optional<std::int64_t> parse_iso_date(std::string_view text);

/// "YYYY-MM-DD" of a day count since 1970-01-01 (the inverse of parse_iso_date; years 0-9999).
std::string format_iso_date(std::int64_t days);

/// The quotes a cloud price is computed from: spot or on-demand ones (only `provider`'s when not
/// empty, case-insensitive), less those dated more than k_price_window_days before the newest of
/// them. Undated quotes are kept. In catalog order.
std::vector<PriceQuote> current_quotes(const Gpu& gpu, bool spot, std::string_view provider);

/// A resolved price with where it came from.
struct ResolvedPrice {
  double usd_per_hour = 0.0; ///< 0 when unknown
  bool known = false;
  std::string basis; ///< e.g. "median of 12 providers", "aws", "on-prem TCO"
  std::string date;  ///< newest date of the quotes used
  /// How each provider the price rests on rents the GPU (by provider name): the union of the instance
  /// sizes of its quotes used, empty (per-GPU assumed) when any of them gives no shape. Empty for
  /// on-prem and `--price` (per-GPU).
  std::vector<RentalShape> shapes;
  /// Providers a catalog cloud price rests on (its median's); 0 for on-prem TCO and a user's
  /// --price, which the ranking does not rate (price_rank_margin).
  int providers = 0;
};

/// A catalog price is well quoted when it rests on at least this many providers, its newest quote
/// no older than k_fresh_quote_days (issue 43: what `winner_measured` requires).
inline constexpr int k_well_quoted_providers = 2;
inline constexpr std::int64_t k_fresh_quote_days = 90;
/// Price drift past k_fresh_quote_days, a fraction per day: gpu-specs.md caveat 5, the cheapest
/// 8×H100 node rose from $18.32/h (2026-02-18) to $26.00/h (2026-08-22), +42 % in 185 days.
inline constexpr double k_price_drift_per_day = 0.42 / 185.0;
/// Age beyond which a quote's drift grows no further (one year).
inline constexpr std::int64_t k_price_drift_max_days = 365;

/// How far one provider's price sits from its GPU's market: over every GPU whose `spot` (or
/// on-demand) price rests on two providers or more, the p90 of |provider median / GPU price − 1|
/// (docs/methodology.md §5.2 "Price quality"). 0 when no GPU has two providers.
double provider_spread(const std::vector<Gpu>& gpus, bool spot);

/// The uncertainty the ranking charges a price, as a fraction of it (methodology §5.2): 0 for a
/// price it does not rate (providers 0) or a well-quoted one; `spread` when it rests on one provider
/// not named by the user (`provider_named` false); plus k_price_drift_per_day for each day its
/// newest quote is older than k_fresh_quote_days (undated: k_price_drift_max_days), at most
/// k_price_drift_max_days' worth.
double price_rank_margin(const ResolvedPrice& price, std::int64_t age_days, double spread,
                         bool provider_named);

/// The price the estimator bills with: the rate (0 when unknown) and the providers' instance shapes.
GpuPrice gpu_price(const ResolvedPrice& price);

/// Removes quotes dated before `oldest_day` (days since 1970-01-01; see parse_iso_date) and undated
/// ones, for every GPU alike (`--max-price-age`). Returns how many quotes it removed.
std::size_t drop_quotes_before(Gpu& gpu, std::int64_t oldest_day);

/// Price per GPU-hour under a pricing model. on_demand: the median of per-provider medians over
/// current_quotes(), or the named provider's median; spot: same over spot quotes; on_prem: TCO per
/// useful GPU-hour (unknown without a purchase price). An unknown provider gives known = false; the
/// caller checks provider names.
ResolvedPrice resolve_price(const Gpu& gpu, PricingModel model, std::string_view provider,
                            const TcoParams& tco);

} // namespace rightsize
