#pragma once
// Power and energy of a serving deployment (docs/methodology.md §9 "Energy and power"): GPU board
// power at the estimated load from a TDP-based low-load/full-load model, joules per output token,
// and kWh / $ / gCO2e per 1M output tokens at the facility (× PUE).
#include <cstdint>

#include "rightsize/gpu.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

struct Candidate;
struct InferenceEstimate;

/// Board power as fractions of TDP. Anchors (methodology §9): ML.ENERGY Benchmark v3.0, H100-SXM
/// (700 W TDP) serving at batch 1 ≈ 300 W and at batch 128 ≈ 600 W.
struct PowerModel {
  double low_load_fraction_of_tdp = 300.0 / 700.0;  ///< a replica kept busy at minimal batch
  double full_load_fraction_of_tdp = 600.0 / 700.0; ///< a replica at its SLA concurrency
};

/// P = TDP · (f_low + (f_full − f_low) · load), load clamped to [0, 1]. 0 when the TDP is unknown.
double gpu_power_watts(double tdp_watts, double load, const PowerModel& model);

struct CandidateEnergy {
  double load = 0.0;        ///< served / capacity of the whole deployment, [0, 1]
  double power_watts = 0.0; ///< all GPUs of the deployment (board power, no PUE); 0 = TDP unknown
  double served_output_tokens_per_s = 0.0; ///< at the stated load (capacity when none is stated)
  double joules_per_output_token = 0.0;    ///< board energy; 0 when power or tokens are unknown
};

/// Energy of a sized candidate at the SLA's peak load (its capacity when the SLA states none).
CandidateEnergy candidate_energy(const Candidate& candidate, const Gpu& gpu, const Sla& sla,
                                 const PowerModel& model);
/// The same for `total_gpus` GPUs whose whole-deployment estimate is `whole` (sweep's fixed
/// deployments, which have no Candidate).
CandidateEnergy deployment_energy(const InferenceEstimate& whole, int total_gpus, const Gpu& gpu,
                                  const Sla& sla, const PowerModel& model);

struct EnergyCost {
  double kwh_per_million_tokens = 0.0; ///< at the facility: board energy × PUE
  double usd_per_million_tokens = 0.0; ///< electricity only
  double g_co2e_per_million_tokens = 0.0;
};
/// 1M tokens × J/token × PUE / 3.6e6 J/kWh, then × $/kWh and × gCO2e/kWh.
EnergyCost energy_cost(double joules_per_output_token, double pue, double usd_per_kwh, double g_co2e_per_kwh);

/// True when there is no cap (max_power_kw <= 0) or the known power is within it. Unknown power
/// (TDP missing) never passes a cap.
bool meets_power_cap(double power_watts, double max_power_kw);

} // namespace rightsize
