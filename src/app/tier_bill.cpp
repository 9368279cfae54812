#include "app/tier_bill.hpp"

#include <utility>
#include <vector>

#include "app/context.hpp"
#include "app/recommend.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::app {
namespace {

// `c`'s ranking key had it been billed `usd_per_hour`: the search's cost over the load it serves
// (cost_at_load, methodology §6.1), so a GPU without a spot quote is keyed too.
double key_at_bill(const Candidate& c, const Spec& spec, RankBy rank_by, double usd_per_hour) {
  Candidate billed = c;
  billed.estimate.usd_per_hour = usd_per_hour;
  billed.price_known = true;
  const CostAtLoad at_load = cost_at_load(billed.estimate, spec.sla, spec.inference);
  billed.usd_per_request_at_load = at_load.usd_per_request;
  billed.usd_per_million_output_tokens_at_load = at_load.usd_per_million_output_tokens;
  return rank_key(billed, rank_by);
}

} // namespace

std::optional<AsAdvised> bill_the_tier(const Spec& spec, const LoadedCatalog& catalog, const SearchInputs& in,
                                       std::int64_t today_days, RecommendResult& result) {
  if (catalog.pricing != PricingModel::spot || !result.capacity_plan) return std::nullopt;
  CapacityPlan& plan = *result.capacity_plan;
  if (plan.spot_replicas >= plan.replicas_peak) return std::nullopt;
  // Each GPU's on-demand price and the margin a ranking charges it (methodology §5.2: the on-demand
  // quotes' spread and age, at --confidence p90 only), resolved once; the spot ones are the search's.
  const bool margins = !result.policy.price_margins.empty();
  const double spread = margins ? provider_spread(catalog.catalog.gpus, false) : 0.0;
  std::vector<std::optional<std::pair<GpuPrice, double>>> on_demand(in.gpus.size());
  const auto on_demand_of = [&](std::size_t gpu) -> const std::pair<GpuPrice, double>& {
    if (!on_demand[gpu]) {
      const ResolvedPrice p =
          resolve_price(in.gpus[gpu], PricingModel::on_demand, catalog.provider, catalog.tco);
      const double margin =
          margins ? price_rank_margin(p, price_age_days(p, today_days), spread, !catalog.provider.empty())
                  : 0.0;
      on_demand[gpu] = std::pair{gpu_price(p), margin};
    }
    return *on_demand[gpu];
  };
  const std::vector<Candidate>& candidates = result.recommendation.candidates;
  const Candidate& winner = candidates.front();
  plan.tier_bill =
      bill_tier(plan, winner, on_demand_of(winner.gpu_index).first, in.gpu_prices[winner.gpu_index]);
  if (!plan.tier_bill->known || !ranks_by_cost(result.rank_by)) return std::nullopt;
  // The same plan for every passing candidate (its own replicas at peak and average), keyed at its
  // bill as advised over the same load and, as the table ranks, charged each price's margin (the
  // tiers' margins weighted by their share of the bill). A bill over the SLA's budget fails it.
  const CapacityPolicy policy = capacity_policy_for(result.policy, catalog.pricing);
  std::optional<AsAdvised> best;
  double winner_key = 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (!c.meets_sla) continue;
    const auto& [od_price, od_margin] = on_demand_of(c.gpu_index);
    // The winner's bill is the plan's, made above.
    const TierBill bill =
        i == 0 ? *plan.tier_bill
               : bill_tier(plan_capacity(c, spec.sla, policy), c, od_price, in.gpu_prices[c.gpu_index]);
    if (!bill.known || !(bill.usd_per_hour > 0.0)) continue;
    const double spot_margin = margins ? result.policy.price_margins[c.gpu_index] : 0.0;
    const double margin =
        (bill.on_demand.usd_per_hour * od_margin + bill.spot.usd_per_hour * spot_margin) / bill.usd_per_hour;
    const double key = key_at_bill(c, spec, result.rank_by, bill.usd_per_hour) * (1.0 + margin);
    if (i == 0) winner_key = key;
    if (spec.sla.budget_usd && bill.usd_per_hour > *spec.sla.budget_usd) continue;
    if (!best || key < best->key) best = AsAdvised{i, bill, key, 0.0};
  }
  if (!best || best->index == 0 || !(winner_key > 0.0)) return std::nullopt;
  best->winner_key = winner_key;
  return best;
}

} // namespace rightsize::app
