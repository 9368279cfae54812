// Price resolution and on-premises TCO. Formulas: methodology §6.4 (shared/reference/methodology.md);
// price selection: gpu-specs.md §1 ("median of provider medians") and caveat 5 (price age).
#include "rightsize/pricing.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "rightsize/calibration.hpp" // quantile
#include "rightsize/text.hpp"

namespace rightsize {
namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms", days_from_civil).
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool is_leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

std::optional<std::int64_t> parse_digits(std::string_view text) {
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// Median of each provider's quotes, keyed by lower-case provider name.
std::map<std::string, double> provider_medians(const std::vector<PriceQuote>& quotes) {
  std::map<std::string, std::vector<double>> by_provider;
  for (const auto& q : quotes) {
    by_provider[to_lower(q.provider)].push_back(q.usd_per_hour);
  }
  std::map<std::string, double> out;
  for (auto& [provider, values] : by_provider)
    out[provider] = median(std::move(values));
  return out;
}

std::string newest_date(const std::vector<PriceQuote>& quotes) {
  std::string newest;
  for (const auto& q : quotes)
    newest = std::max(newest, q.date); // ISO dates sort as text
  return newest.empty() ? "undated" : newest;
}

// docs/catalog.md "Instance shapes": one shape per provider, keyed like provider_medians. A provider
// with a quote of unknown shape is per-GPU (its median may rest on that quote).
std::vector<RentalShape> provider_shapes(const std::vector<PriceQuote>& quotes) {
  std::map<std::string, RentalShape> by_provider;
  std::map<std::string, bool> unknown;
  for (const auto& q : quotes) {
    const std::string key = to_lower(q.provider);
    RentalShape& shape = by_provider[key];
    shape.provider = key;
    if (q.gpus_per_instance.empty()) {
      unknown[key] = true;
      continue;
    }
    if (shape.instance.empty()) {
      shape.instance = q.instance;
    } else if (!q.instance.empty() && shape.instance.find(q.instance) == std::string::npos) {
      shape.instance += ", " + q.instance;
    }
    shape.gpus_per_instance.insert(shape.gpus_per_instance.end(), q.gpus_per_instance.begin(),
                                   q.gpus_per_instance.end());
  }
  std::vector<RentalShape> out;
  for (auto& [key, shape] : by_provider) {
    if (unknown.contains(key)) {
      shape.instance.clear();
      shape.gpus_per_instance.clear();
    }
    std::sort(shape.gpus_per_instance.begin(), shape.gpus_per_instance.end());
    shape.gpus_per_instance.erase(std::unique(shape.gpus_per_instance.begin(), shape.gpus_per_instance.end()),
                                  shape.gpus_per_instance.end());
    out.push_back(std::move(shape));
  }
  return out;
}

ResolvedPrice resolve_cloud(const Gpu& gpu, bool spot, std::string_view provider) {
  ResolvedPrice out;
  const std::vector<PriceQuote> quotes = current_quotes(gpu, spot, provider);
  if (quotes.empty()) {
    const std::string kind = spot ? "spot" : "on-demand";
    out.basis =
        provider.empty() ? "no " + kind + " price" : "no " + std::string(provider) + " " + kind + " price";
    return out;
  }
  const std::map<std::string, double> medians = provider_medians(quotes);
  std::vector<double> values;
  values.reserve(medians.size());
  for (const auto& [name, value] : medians)
    values.push_back(value);
  // gpu-specs.md §1: the median over providers of each provider's median, so a provider listing
  // many SKUs or regions counts once.
  out.usd_per_hour = median(values);
  out.known = true;
  out.date = newest_date(quotes);
  out.basis = medians.size() == 1 ? quotes.front().provider
                                  : "median of " + std::to_string(medians.size()) + " providers";
  out.shapes = provider_shapes(quotes);
  out.providers = static_cast<int>(medians.size());
  return out;
}

} // namespace

double provider_spread(const std::vector<Gpu>& gpus, bool spot) {
  std::vector<double> offsets;
  for (const Gpu& gpu : gpus) {
    const std::map<std::string, double> medians = provider_medians(current_quotes(gpu, spot, ""));
    if (medians.size() < 2) continue;
    std::vector<double> values;
    values.reserve(medians.size());
    for (const auto& [name, value] : medians)
      values.push_back(value);
    const double market = median(values);
    for (const double v : values)
      offsets.push_back(std::abs(v / market - 1.0));
  }
  // The p90 (the error bands' quantile): one provider's quote is within it of the market 9 times in 10.
  return offsets.empty() ? 0.0 : quantile(std::move(offsets), 0.9);
}

double price_rank_margin(const ResolvedPrice& price, std::int64_t age_days, double spread,
                         bool provider_named) {
  if (!price.known || price.providers <= 0) return 0.0;
  const std::int64_t age = age_days < 0 ? k_price_drift_max_days : std::min(age_days, k_price_drift_max_days);
  const double drift =
      static_cast<double>(std::max<std::int64_t>(0, age - k_fresh_quote_days)) * k_price_drift_per_day;
  const double single = price.providers < k_well_quoted_providers && !provider_named ? spread : 0.0;
  return single + drift;
}

const char* to_string(PricingModel model) {
  switch (model) {
  case PricingModel::on_demand: return "on_demand";
  case PricingModel::spot: return "spot";
  case PricingModel::on_prem: return "on_prem";
  }
  return "on_demand";
}

std::optional<PricingModel> parse_pricing_model(std::string_view text) {
  if (text == "on_demand" || text == "on-demand") return PricingModel::on_demand;
  if (text == "spot") return PricingModel::spot;
  if (text == "on_prem" || text == "on-prem") return PricingModel::on_prem;
  return std::nullopt;
}

TcoResult on_prem_tco(double gpu_usd, double tdp_watts, const TcoParams& params) {
  TcoResult out;
  // C: what is bought per GPU, the GPU plus its share of the host (CPU, RAM, NICs, chassis).
  const double capital = gpu_usd * (1.0 + params.server_overhead_fraction);
  const double r = params.cost_of_capital;
  const double years = params.amortization_years;
  // methodology §6.4: annual_capex = C·r / (1 − (1 + r)^−Y), straight-line C / Y when r = 0.
  out.capex_usd_per_year = r > 0.0 ? capital * r / (1.0 - std::pow(1.0 + r, -years)) : capital / years;
  // methodology §6.4: annual_power = P_avg_kW · PUE · price_kWh · 8760, P_avg = TDP · fraction.
  const double average_kw = tdp_watts * params.power_fraction_of_tdp / 1000.0;
  out.power_usd_per_year =
      average_kw * params.power_usage_effectiveness * params.usd_per_kwh * k_tco_hours_per_year;
  // methodology §6.4: maintenance/support as a fraction of capex (the purchase), per year.
  out.ops_usd_per_year = params.ops_fraction_per_year * capital;
  // methodology §6.4: cost_per_GPU_hour = annual total / 8760; per useful hour = / utilization.
  out.usd_per_gpu_hour =
      (out.capex_usd_per_year + out.power_usd_per_year + out.ops_usd_per_year) / k_tco_hours_per_year;
  out.usd_per_useful_gpu_hour = params.utilization > 0.0 ? out.usd_per_gpu_hour / params.utilization
                                                         : std::numeric_limits<double>::infinity();
  return out;
}

double break_even_utilization(const TcoResult& tco, double utilization, double cloud_usd_per_hour) {
  if (!(cloud_usd_per_hour > 0.0)) return std::numeric_limits<double>::infinity();
  // Owning costs usd_per_gpu_hour / u per useful hour (methodology §6.4); it equals the cloud price
  // at u* = usd_per_gpu_hour / cloud. usd_per_gpu_hour = usd_per_useful_gpu_hour · utilization.
  return tco.usd_per_useful_gpu_hour * utilization / cloud_usd_per_hour;
}

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

std::optional<std::int64_t> parse_iso_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const auto y = parse_digits(text.substr(0, 4));
  const auto m = parse_digits(text.substr(5, 2));
  const auto d = parse_digits(text.substr(8, 2));
  if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1) return std::nullopt;
  static constexpr int k_month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const std::int64_t month_days =
      k_month_days[static_cast<std::size_t>(*m - 1)] + (*m == 2 && is_leap(*y) ? 1 : 0);
  if (*d > month_days) return std::nullopt;
  return days_from_civil(*y, *m, *d);
}

// Inverse of days_from_civil: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
// civil_from_days (https://howardhinnant.github.io/date_algorithms.html#civil_from_days).
std::string format_iso_date(std::int64_t days) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  // "YYYY-MM-DD", digits written one by one (years 0..9999).
  std::string out(10, '0');
  const auto put = [&out](std::size_t at, std::int64_t value, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) {
      out[at + width - 1 - i] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  put(0, y, 4);
  out[4] = '-';
  put(5, m, 2);
  out[7] = '-';
  put(8, d, 2);
  return out;
}

std::vector<PriceQuote> current_quotes(const Gpu& gpu, bool spot, std::string_view provider) {
  std::vector<PriceQuote> matching;
  std::optional<std::int64_t> newest;
  for (const auto& q : gpu.prices) {
    if (q.spot != spot || (!provider.empty() && !equal_ignoring_case(q.provider, provider))) continue;
    matching.push_back(q);
    if (const auto day = parse_iso_date(q.date)) newest = std::max(newest.value_or(*day), *day);
  }
  std::vector<PriceQuote> out;
  for (const auto& q : matching) {
    const auto day = parse_iso_date(q.date);
    // gpu-specs.md caveat 5: prices moved fast in 2026; a quote a month older than the newest
    // snapshot would bias the median (e.g. [G] cheapest listings beside [E] list prices).
    if (day && newest && *newest - *day > k_price_window_days) continue;
    out.push_back(q);
  }
  return out;
}

std::size_t drop_quotes_before(Gpu& gpu, std::int64_t oldest_day) {
  const std::size_t before = gpu.prices.size();
  std::erase_if(gpu.prices, [&](const PriceQuote& q) {
    const auto day = parse_iso_date(q.date);
    return !day || *day < oldest_day;
  });
  return before - gpu.prices.size();
}

GpuPrice gpu_price(const ResolvedPrice& price) {
  return GpuPrice{price.known ? price.usd_per_hour : 0.0, price.shapes};
}

ResolvedPrice resolve_price(const Gpu& gpu, PricingModel model, std::string_view provider,
                            const TcoParams& tco) {
  if (model != PricingModel::on_prem) return resolve_cloud(gpu, model == PricingModel::spot, provider);
  ResolvedPrice out;
  if (gpu.purchase_usd <= 0.0 || gpu.tdp_watts <= 0.0) {
    out.basis = "no purchase price";
    return out;
  }
  out.usd_per_hour = on_prem_tco(gpu.purchase_usd, gpu.tdp_watts, tco).usd_per_useful_gpu_hour;
  out.known = true;
  out.basis = "on-prem TCO";
  return out;
}

} // namespace rightsize
