// Calibration applied to the catalog (methodology §3.4 "calibration families", §3.3 "expert
// reads"): each GPU takes its own fitted factors, else the pooled ones, never better than a
// measured sibling's; and the provenance every estimate prints.
#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "rightsize/calibration.hpp"

namespace rightsize {

std::string gpu_family(const Gpu& gpu) {
  const std::size_t space = gpu.architecture.find(' ');
  return gpu.architecture.substr(0, space);
}

namespace {

bool measured(const std::string& source) {
  return source == "fitted" || source == "serving";
}

// The calibration's entry for a GPU id, or none.
const FittedEfficiency* fit_for(const std::vector<FittedEfficiency>& fits, const std::string& id) {
  for (const auto& f : fits)
    if (f.gpu_id == id) return &f;
  return nullptr;
}

struct FactorView {
  double GpuEfficiency::*field;
  std::string FittedEfficiency::*source;
  std::vector<std::string> FittedEfficiency::*cases;
  const char* name;
  /// The expert-read fraction: extrapolated only from the GPU's own family (a GPU of a family no
  /// one measured keeps the dense rate and says nothing), and said apart, in
  /// expert_read_provenance, for the models it moves (methodology §3.3, §3.4).
  bool family_only = false;
};
constexpr FactorView k_factors[] = {
    {&GpuEfficiency::decode_bandwidth, &FittedEfficiency::decode_source, &FittedEfficiency::decode_cases,
     "decode"},
    {&GpuEfficiency::prefill_compute, &FittedEfficiency::prefill_source, &FittedEfficiency::prefill_cases,
     "prefill"},
    {&GpuEfficiency::training_mfu, &FittedEfficiency::training_source, &FittedEfficiency::training_cases,
     "training"},
    {&GpuEfficiency::communication, &FittedEfficiency::communication_source,
     &FittedEfficiency::communication_cases, "communication"},
    {&GpuEfficiency::expert_read, &FittedEfficiency::expert_read_source, &FittedEfficiency::expert_read_cases,
     "expert reads", true},
};
constexpr std::size_t k_factor_count = std::size(k_factors);
using FactorLows = std::array<double, k_factor_count>;

// No factor measured yet: above every plausible value (factors are fractions ≤ 1).
FactorLows unmeasured_lows() {
  FactorLows low{};
  low.fill(2.0);
  return low;
}

// Lowest measured value of each factor per family (returned) and over all GPUs (`any_low`).
template <typename FitOf>
std::map<std::string, FactorLows> measured_lows(const std::vector<Gpu>& gpus, const FitOf& fit_of,
                                                FactorLows& any_low) {
  std::map<std::string, FactorLows> family_low;
  for (const Gpu& gpu : gpus) {
    const FittedEfficiency* f = fit_of(gpu.id);
    if (f == nullptr) continue;
    auto& low = family_low.try_emplace(gpu_family(gpu), unmeasured_lows()).first->second;
    for (std::size_t i = 0; i < k_factor_count; ++i) {
      if (!measured((*f).*(k_factors[i].source))) continue;
      low[i] = std::min(low[i], f->efficiency.*(k_factors[i].field));
      any_low[i] = std::min(any_low[i], f->efficiency.*(k_factors[i].field));
    }
  }
  return family_low;
}

// The per-sequence decode time (GpuEfficiency::decode_sequence_layer_s, methodology §3
// "per-sequence time"): a GPU's own fit, else the largest fitted on a GPU of the same architecture
// (never faster than a measured GPU of the same silicon; not across generations of a family).
void apply_sequence_layer(const std::vector<FittedEfficiency>& fits, std::vector<Gpu>& gpus) {
  const auto fit_of = [&](const std::string& id) { return fit_for(fits, id); };
  std::map<std::string, double> by_architecture;
  for (const Gpu& gpu : gpus) {
    const FittedEfficiency* f = fit_of(gpu.id);
    if (f == nullptr || !measured(f->sequence_layer_source)) continue;
    double& most = by_architecture[gpu.architecture];
    most = std::max(most, f->efficiency.decode_sequence_layer_s);
  }
  for (Gpu& gpu : gpus) {
    if (gpu.efficiency.entry_measured) continue;
    const FittedEfficiency* own = fit_of(gpu.id);
    if (own != nullptr && measured(own->sequence_layer_source)) {
      gpu.efficiency.decode_sequence_layer_s = own->efficiency.decode_sequence_layer_s;
      gpu.efficiency.provenance += "; per-sequence decode time fitted (" +
                                   std::to_string(own->sequence_layer_cases.size()) + " cases)";
      continue;
    }
    const auto it = by_architecture.find(gpu.architecture);
    if (it == by_architecture.end()) continue;
    gpu.efficiency.decode_sequence_layer_s = std::max(gpu.efficiency.decode_sequence_layer_s, it->second);
    gpu.efficiency.provenance +=
        "; per-sequence decode time extrapolated from " + gpu.architecture + " siblings";
  }
}

} // namespace

void apply_calibration(const Calibration& calibration, std::vector<Gpu>& gpus) {
  const FittedEfficiency* pooled = nullptr;
  for (const auto& f : calibration.gpus)
    if (f.gpu_id == "*") pooled = &f;
  const auto fit_of = [&](const std::string& id) { return fit_for(calibration.gpus, id); };
  FactorLows any_low = unmeasured_lows();
  const std::map<std::string, FactorLows> family_low = measured_lows(gpus, fit_of, any_low);
  for (Gpu& gpu : gpus) {
    if (gpu.efficiency.entry_measured) continue; // the entry set its own (docs/catalog.md)
    const FittedEfficiency* own = fit_of(gpu.id);
    const FittedEfficiency* base = own != nullptr ? own : pooled;
    if (base == nullptr) continue;
    gpu.efficiency = base->efficiency;
    std::string text = "data/calibration.json:";
    const auto family = family_low.find(gpu_family(gpu));
    gpu.efficiency.expert_read_provenance.clear();
    for (std::size_t i = 0; i < k_factor_count; ++i) {
      const FactorView& v = k_factors[i];
      if (own != nullptr && measured((*own).*(v.source))) {
        const auto& cases = (*own).*(v.cases);
        // A factor fitted to the serving CSV carries one label naming its rows, not one id per case.
        const std::string fitted =
            std::string(v.name) + " fitted (" +
            ((*own).*(v.source) == "serving" && cases.size() == 1 ? cases.front()
                                                                  : std::to_string(cases.size()) + " cases") +
            ")";
        if (v.family_only) {
          gpu.efficiency.expert_read_provenance = fitted;
        } else {
          text += " " + fitted + ";";
        }
        continue;
      }
      const bool sibling = family != family_low.end() && family->second[i] <= 1.0;
      if (v.family_only) {
        // Only a sibling's measured value moves it, and it is said apart (efficiency_provenance).
        if (sibling && gpu.efficiency.*(v.field) > family->second[i])
          gpu.efficiency.*(v.field) = family->second[i];
        if (sibling)
          gpu.efficiency.expert_read_provenance =
              std::string(v.name) + " extrapolated from " + gpu_family(gpu) + " siblings";
        continue;
      }
      const double cap = sibling ? family->second[i] : any_low[i];
      if (cap <= 1.0 && gpu.efficiency.*(v.field) > cap) gpu.efficiency.*(v.field) = cap;
      // With no GPU measured for this factor, the value is the pooled fit over every GPU's cases
      // when there is one (source "cross_gpu", or no entry of its own), else the catalog default.
      const bool pooled_fit = pooled != nullptr && measured((*pooled).*(v.source)) &&
                              (own == nullptr || (*own).*(v.source) == "cross_gpu");
      text +=
          std::string(" ") + v.name +
          (sibling      ? " extrapolated from " + gpu_family(gpu) + " siblings;"
           : cap <= 1.0 ? " extrapolated (no measured sibling);"
           : pooled_fit ? " pooled over GPUs (" + std::to_string(((*pooled).*(v.cases)).size()) + " cases);"
                        : " default;");
    }
    text.pop_back();
    gpu.efficiency.provenance = text;
  }
  apply_sequence_layer(calibration.gpus, gpus);
  // The UNet rate is one fraction of each GPU's own η_f, so every GPU, measured entries included,
  // takes the pooled one (methodology §3.7 "UNet rate").
  if (pooled != nullptr) {
    for (Gpu& gpu : gpus)
      gpu.efficiency.unet_gemm_fraction = pooled->efficiency.unet_gemm_fraction;
  }
}

} // namespace rightsize
