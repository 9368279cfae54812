// Power and energy (docs/methodology.md §9).
#include "rightsize/energy.hpp"

#include <algorithm>

#include "rightsize/search.hpp"

namespace rightsize {

double gpu_power_watts(double tdp_watts, double load, const PowerModel& m) {
  if (tdp_watts <= 0.0) return 0.0;
  // Linear in load between a low-load and a full-load draw (the utilization-linear server power
  // model of Fan, Weber & Barroso, ISCA 2007), anchored on ML.ENERGY's H100 serving measurements.
  const double u = std::clamp(load, 0.0, 1.0);
  return tdp_watts *
         (m.low_load_fraction_of_tdp + (m.full_load_fraction_of_tdp - m.low_load_fraction_of_tdp) * u);
}

CandidateEnergy candidate_energy(const Candidate& c, const Gpu& gpu, const Sla& sla, const PowerModel& m) {
  return deployment_energy(c.estimate, c.total_gpus(), gpu, sla, m);
}

CandidateEnergy deployment_energy(const InferenceEstimate& e, int total_gpus, const Gpu& gpu, const Sla& sla,
                                  const PowerModel& m) {
  CandidateEnergy out;
  out.load = 1.0;
  if (sla.requests_per_s && e.requests_per_s > 0.0)
    out.load = std::min(1.0, *sla.requests_per_s / e.requests_per_s);
  else if (sla.output_tokens_per_s && e.output_tokens_per_s > 0.0)
    out.load = std::min(1.0, *sla.output_tokens_per_s / e.output_tokens_per_s);
  out.power_watts = total_gpus * gpu_power_watts(gpu.tdp_watts, out.load, m);
  out.served_output_tokens_per_s = e.output_tokens_per_s * out.load;
  if (out.power_watts > 0.0 && out.served_output_tokens_per_s > 0.0)
    out.joules_per_output_token = out.power_watts / out.served_output_tokens_per_s;
  return out;
}

EnergyCost energy_cost(double joules_per_output_token, double pue, double usd_per_kwh,
                       double g_co2e_per_kwh) {
  constexpr double k_joules_per_kwh = 3.6e6;
  EnergyCost out;
  out.kwh_per_million_tokens = joules_per_output_token * 1e6 * pue / k_joules_per_kwh;
  out.usd_per_million_tokens = out.kwh_per_million_tokens * usd_per_kwh;
  out.g_co2e_per_million_tokens = out.kwh_per_million_tokens * g_co2e_per_kwh;
  return out;
}

bool meets_power_cap(double power_watts, double max_power_kw) {
  if (max_power_kw <= 0.0) return true;
  return power_watts > 0.0 && power_watts <= max_power_kw * 1e3;
}

} // namespace rightsize
