// Price resolution and on-prem TCO against methodology §6.4 and gpu-specs.md §1/§4a.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "rightsize/pricing.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;

namespace {

PriceQuote quote(std::string provider, double usd, std::string date, bool spot = false) {
  return PriceQuote{std::move(provider), usd, spot, std::move(date), "E", "", {}, ""};
}

// methodology §6.4 worked example, per GPU: $300k per 8-GPU server = $37.5k, the server already
// included (overhead 0), 8 kW per 8 GPUs = 1 kW average (TDP 1000 W at fraction 1.0), PUE 1.3,
// $0.10/kWh, support 15 % of capex per year, 4-year straight line.
TcoParams worked_example() {
  TcoParams p;
  p.amortization_years = 4.0;
  p.cost_of_capital = 0.0;
  p.utilization = 0.70;
  p.power_usage_effectiveness = 1.3;
  p.usd_per_kwh = 0.10;
  p.power_fraction_of_tdp = 1.0;
  p.server_overhead_fraction = 0.0;
  p.ops_fraction_per_year = 0.15;
  return p;
}

// A passing, priced candidate of one GPU type: a layout of `tp` GPUs at `usd_per_mtok` per 1M output
// tokens and `tpot_s` at full capacity.
Candidate priced(int tp, double usd_per_mtok, double tpot_s) {
  Candidate c;
  c.meets_sla = true;
  c.price_known = true;
  c.usd_per_million_output_tokens_at_load = usd_per_mtok;
  c.layout.tp = tp;
  c.layout.gpus = tp;
  c.estimate.tpot_s = tpot_s;
  return c;
}

} // namespace

TEST_CASE("on-prem TCO reproduces the methodology §6.4 worked example", "[core]") {
  const TcoResult tco = on_prem_tco(37'500.0, 1000.0, worked_example());
  // $75k/yr per server / 8 = $9,375; 8 kW x 1.3 x $0.10 x 8760 = $9,110 per server = $1,138.8 per GPU;
  // support 15 % x $300k = $45k per server = $5,625 per GPU.
  CHECK(tco.capex_usd_per_year == Approx(9'375.0));
  CHECK(tco.power_usd_per_year == Approx(1'138.8));
  CHECK(tco.ops_usd_per_year == Approx(5'625.0));
  // $129k/yr per server -> $1.84 per GPU-hour at 100 %, $2.63 per useful GPU-hour at 70 %.
  CHECK(tco.usd_per_gpu_hour == Approx(1.84).margin(0.005));
  CHECK(tco.usd_per_useful_gpu_hour == Approx(2.63).margin(0.005));
}

TEST_CASE("on-prem TCO with an 8 % cost of capital uses the annuity formula", "[core]") {
  TcoParams p = worked_example();
  p.cost_of_capital = 0.08;
  const TcoResult tco = on_prem_tco(37'500.0, 1000.0, p);
  // methodology §6.4: "With an 8 % cost of capital the capex line becomes $90.6 k/yr" per server.
  CHECK(tco.capex_usd_per_year * 8.0 == Approx(90'600.0).margin(50.0));
}

TEST_CASE("on-prem TCO adds server overhead to the capital and scales power by the TDP fraction", "[core]") {
  TcoParams p = worked_example();
  p.server_overhead_fraction = 0.25;
  p.power_fraction_of_tdp = 0.5;
  const TcoResult tco = on_prem_tco(40'000.0, 700.0, p);
  CHECK(tco.capex_usd_per_year == Approx(50'000.0 / 4.0));
  CHECK(tco.ops_usd_per_year == Approx(0.15 * 50'000.0));
  CHECK(tco.power_usd_per_year == Approx(0.35 * 1.3 * 0.10 * 8760.0));
}

TEST_CASE("break-even utilization is where owning per useful hour equals the cloud price", "[core]") {
  const TcoParams p = worked_example();
  const TcoResult tco = on_prem_tco(37'500.0, 1000.0, p);
  const double u = break_even_utilization(tco, p.utilization, 4.32);
  CHECK(u == Approx(tco.usd_per_gpu_hour / 4.32));
  TcoParams at_u = p;
  at_u.utilization = u;
  CHECK(on_prem_tco(37'500.0, 1000.0, at_u).usd_per_useful_gpu_hour == Approx(4.32));
  CHECK(break_even_utilization(tco, p.utilization, 1.0) > 1.0); // never pays off
  CHECK(std::isinf(break_even_utilization(tco, p.utilization, 0.0)));
}

TEST_CASE("median takes the middle value or the mean of the middle two", "[core]") {
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(std::isnan(median({})));
}

TEST_CASE("on-demand price is the median of per-provider medians", "[core]") {
  Gpu gpu;
  // A provider with two SKUs counts once, at its own median (gpu-specs.md §1 method).
  gpu.prices = {quote("lambda", 3.99, "2026-10-10"), quote("lambda", 4.29, "2026-10-10"),
                quote("nebius", 4.50, "2026-10-10"), quote("vast", 1.00, "2026-10-10"),
                quote("azure", 2.95, "2026-10-10", true)};
  const ResolvedPrice all = resolve_price(gpu, PricingModel::on_demand, "", TcoParams{});
  REQUIRE(all.known);
  CHECK(all.usd_per_hour == Approx(4.14)); // medians 4.14, 4.50, 1.00 -> 4.14
  CHECK(all.basis == "median of 3 providers");
  CHECK(all.date == "2026-10-10");

  const ResolvedPrice lambda = resolve_price(gpu, PricingModel::on_demand, "Lambda", TcoParams{});
  CHECK(lambda.usd_per_hour == Approx(4.14));
  CHECK(lambda.basis == "lambda");

  const ResolvedPrice spot = resolve_price(gpu, PricingModel::spot, "", TcoParams{});
  CHECK(spot.usd_per_hour == Approx(2.95));
  const ResolvedPrice none = resolve_price(gpu, PricingModel::spot, "nebius", TcoParams{});
  CHECK_FALSE(none.known);
  CHECK(none.basis == "no nebius spot price");
}

TEST_CASE("quotes a month older than a GPU's newest are left out of the median", "[core]") {
  Gpu gpu;
  gpu.prices = {quote("aws", 6.88, "2026-10-10"), quote("verda", 3.25, "2026-08-22"),
                quote("gcp", 11.0, "2026-09-10"), quote("skypilot", 5.0, "")};
  const auto current = current_quotes(gpu, false, "");
  REQUIRE(current.size() == 3); // 2026-09-10 is exactly 30 days old: kept; undated: kept
  CHECK(current[0].provider == "aws");
  CHECK(current[1].provider == "gcp");
  CHECK(current[2].provider == "skypilot");
  CHECK(resolve_price(gpu, PricingModel::on_demand, "", TcoParams{}).usd_per_hour == Approx(6.88));
  // Asked for by name, an older provider still has its own (newest) price.
  CHECK(resolve_price(gpu, PricingModel::on_demand, "verda", TcoParams{}).usd_per_hour == Approx(3.25));
}

TEST_CASE("on-prem price needs a purchase price", "[core]") {
  Gpu gpu;
  gpu.tdp_watts = 1000.0;
  CHECK_FALSE(resolve_price(gpu, PricingModel::on_prem, "", TcoParams{}).known);
  gpu.purchase_usd = 37'500.0;
  const ResolvedPrice p = resolve_price(gpu, PricingModel::on_prem, "", worked_example());
  CHECK(p.known);
  CHECK(p.usd_per_hour == Approx(2.63).margin(0.005));
  CHECK(p.basis == "on-prem TCO");
}

TEST_CASE("ISO dates parse to day numbers and reject impossible dates", "[core]") {
  CHECK(parse_iso_date("1970-01-01") == 0);
  CHECK(*parse_iso_date("2026-10-10") - *parse_iso_date("2026-08-22") == 49);
  CHECK(*parse_iso_date("2024-03-01") - *parse_iso_date("2024-02-28") == 2); // leap year
  CHECK_FALSE(parse_iso_date("2026-02-29"));
  CHECK_FALSE(parse_iso_date("2026-13-01"));
  CHECK_FALSE(parse_iso_date("2026-1-01"));
  CHECK_FALSE(parse_iso_date("10/10/2026"));
}

TEST_CASE("price model names round-trip", "[core]") {
  for (auto m : {PricingModel::on_demand, PricingModel::spot, PricingModel::on_prem}) {
    CHECK(parse_pricing_model(to_string(m)) == m);
  }
  CHECK(parse_pricing_model("on-demand") == PricingModel::on_demand);
  CHECK_FALSE(parse_pricing_model("reserved"));
}

TEST_CASE("price quality: the provider spread and the margin a ranking charges", "[pricing][rank]") {
  // methodology §5.2 worked example. GPU A: providers 9, 10, 11 (median 10) → offsets 0.1, 0, 0.1;
  // GPU B: 4, 5 (median 4.5) → 0.111, 0.111; GPU C has one provider and adds nothing. Sorted
  // 0, 0.1, 0.1, 0.111, 0.111: p90 at h = 0.9 × 4 = 3.6 → 0.111.
  Gpu a;
  a.prices = {quote("x", 9.0, "2026-11-01"), quote("y", 10.0, "2026-11-01"), quote("z", 11.0, "2026-11-01")};
  Gpu b;
  b.prices = {quote("x", 4.0, "2026-11-01"), quote("y", 5.0, "2026-11-01")};
  Gpu c;
  c.prices = {quote("x", 2.0, "2026-11-01")};
  CHECK(provider_spread({a, b, c}, false) == Approx(1.0 / 9.0));
  CHECK(provider_spread({c}, false) == 0.0);
  CHECK(provider_spread({a, b, c}, true) == 0.0); // no spot quotes

  // resolve_price counts the providers a cloud price rests on.
  CHECK(resolve_price(a, PricingModel::on_demand, "", TcoParams{}).providers == 3);
  CHECK(resolve_price(c, PricingModel::on_demand, "", TcoParams{}).providers == 1);

  ResolvedPrice one;
  one.known = true;
  one.usd_per_hour = 1.95;
  one.providers = 1;
  // One provider, 194 days old, spread 0.30: 0.30 + (194 − 90) × 0.42 / 185 = 0.536.
  CHECK(price_rank_margin(one, 194, 0.30, false) == Approx(0.30 + 104.0 * 0.42 / 185.0));
  // The user named that provider: only the age counts.
  CHECK(price_rank_margin(one, 194, 0.30, true) == Approx(104.0 * 0.42 / 185.0));
  ResolvedPrice two = one;
  two.providers = 2;
  CHECK(price_rank_margin(two, 30, 0.30, false) == 0.0);                           // well quoted
  CHECK(price_rank_margin(two, 90, 0.30, false) == 0.0);                           // 90 days is still fresh
  CHECK(price_rank_margin(two, -1, 0.30, false) == Approx(275.0 * 0.42 / 185.0));  // undated: a year
  CHECK(price_rank_margin(two, 900, 0.30, false) == Approx(275.0 * 0.42 / 185.0)); // drift stops at a year
  ResolvedPrice own = one;
  own.providers = 0; // --price or on-prem TCO: the user's number
  CHECK(price_rank_margin(own, 400, 0.30, false) == 0.0);
}

TEST_CASE("a cost ranking charges each GPU its price margin", "[pricing][rank]") {
  // A costs $1.00/1M on a price charged +30 %, B $1.20/1M well quoted: 1.30 > 1.20, B ranks first;
  // charged +10 % instead, A does (1.10 < 1.20). Without margins the quoted costs decide.
  Candidate a;
  a.gpu_index = 0;
  a.meets_sla = true;
  a.usd_per_million_output_tokens_at_load = 1.0;
  Candidate b = a;
  b.gpu_index = 1;
  b.usd_per_million_output_tokens_at_load = 1.2;
  std::vector<Gpu> gpus(2);
  gpus[0].id = "A";
  gpus[1].id = "B";
  const std::vector<double> wide = {0.30, 0.0};
  const std::vector<double> narrow = {0.10, 0.0};
  CHECK(ranked_key(a, RankBy::cost_per_token, wide) == Approx(1.30));
  CHECK(ranks_before(b, a, RankBy::cost_per_token, gpus, wide));
  CHECK(ranks_before(a, b, RankBy::cost_per_token, gpus, narrow));
  CHECK(ranks_before(a, b, RankBy::cost_per_token, gpus));
  // Not a cost ranking: no margin.
  CHECK(ranked_key(a, RankBy::gpus, wide) == rank_key(a, RankBy::gpus));
}

TEST_CASE("at an equal cost fewer pipeline stages rank first, before TPOT", "[rank]") {
  // Two layouts of the same GPU at the same cost: TP2 and TP1·PP2, the PP one 0.1 ms faster per
  // token. TP2 ranks first; at different costs the cost decides.
  const Candidate tp = priced(2, 0.5, 0.0368);
  Candidate pp = priced(1, 0.5, 0.0367);
  pp.layout.pp = 2;
  pp.layout.gpus = 2;
  std::vector<Gpu> gpus(1);
  gpus[0].id = "G";
  CHECK(ranks_before(tp, pp, RankBy::cost_per_token, gpus));
  CHECK_FALSE(ranks_before(pp, tp, RankBy::cost_per_token, gpus));
  pp.usd_per_million_output_tokens_at_load = 0.49;
  CHECK(ranks_before(pp, tp, RankBy::cost_per_token, gpus));
}

TEST_CASE("at an equal cost the faster at the served load ranks first", "[rank]") {
  // One GPU type, eight GPUs billed either way: TP2 × 4 and TP8 × 1 both serve the load at $18.75
  // per 1M tokens. Sized to the same TPOT target, TP2 is 0.1 ms faster at full capacity (39.0
  // against 39.1 ms), but at the served load TP8 runs at 9.0 ms and TP2 at 17.8 ms: TP8 first.
  Candidate tp2 = priced(2, 18.75, 0.0390);
  tp2.replicas = 4;
  tp2.at_load.tpot_s = 0.0178;
  Candidate tp8 = priced(8, 18.75, 0.0391);
  tp8.at_load.tpot_s = 0.0090;
  std::vector<Gpu> gpus(1);
  gpus[0].id = "G";
  CHECK(ranks_before(tp8, tp2, RankBy::cost_per_token, gpus));
  CHECK_FALSE(ranks_before(tp2, tp8, RankBy::cost_per_token, gpus));
  // Equal at the served load too: TTFT there decides (TP2 at 102 ms, TP8 at 72 ms).
  tp2.at_load.tpot_s = tp8.at_load.tpot_s;
  tp2.at_load.ttft_s = 0.102;
  tp8.at_load.ttft_s = 0.072;
  CHECK(ranks_before(tp8, tp2, RankBy::cost_per_token, gpus));
  // A candidate without a load point falls back to its figures at capacity.
  tp2.at_load = LoadPoint{};
  tp8.at_load = LoadPoint{};
  CHECK(ranks_before(tp2, tp8, RankBy::cost_per_token, gpus));
}
