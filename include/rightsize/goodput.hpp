#pragma once
// Goodput (docs/methodology.md §6 "Goodput"): the share of requests that meet every latency target
// at the estimate's load, and the requests/s that do (DistServe's goodput [DISTSERVE] §2).
#include "rightsize/inference.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

/// The share of requests whose figure is at most `limit_s`: its distribution function through
/// (floor_s, 0), (p50, 0.5), (p90, 0.9) and (p99, 0.99), linear from the floor to the median and
/// with an exponential tail above it (the share above falls by a constant factor per second between
/// two percentiles, and beyond p99 tenfold per p99 − p90, as from p90 to p99).
double share_within(double limit_s, double floor_s, const Percentiles& percentiles);

/// Each latency target's share of requests and what they make together.
struct Goodput {
  bool has_targets = false; ///< the SLA sets a TTFT, TPOT or E2E target
  double ttft_limit_ms = 0.0, tpot_limit_ms = 0.0, e2e_limit_ms = 0.0; ///< the targets; 0 = none
  double ttft_share = 1.0, tpot_share = 1.0, e2e_share = 1.0;
  /// The share within every target: the product of the figures' shares (taken as independent).
  double slo_attainment = 1.0;
  double requests_per_s = 0.0; ///< served requests/s × slo_attainment (0 when overloaded)
  /// An open loop whose band's slow end is past its capacity (methodology §3.5): none within target.
  bool overloaded_at_band = false;
};

/// The goodput of `estimate` under the SLA's latency targets, each a limit on every request's figure
/// whatever statistic the SLA judges it by, with the figures at the judged end of their bands
/// (`bands`: TTFT × ttft_high, TPOT × tpot_high, E2E's prefill part × ttft_high and its decode part
/// × tpot_high, as judge() takes them). An open loop with its `slow_end` (core::slow_end_estimate at
/// `bands.tpot_high`) takes the slow end's distributions, as judge() takes its latencies there
/// (methodology §3.5): none of its requests are within target when the slow end is overloaded.
Goodput goodput(const InferenceEstimate& estimate, const Sla& sla, const BandFactors& bands,
                const InferenceEstimate* slow_end = nullptr);

} // namespace rightsize
