#pragma once
// The calibration tables of docs/accuracy.md: fitted efficiency factors per GPU (with the
// expert-read fractions and the UNet rate) and the error bands. Header-only, bench only.
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rightsize/calibration.hpp"

namespace rightsize::bench {

inline std::string factor_table(const Calibration& cal) {
  std::string s = "| GPU | decode_bandwidth | prefill_compute | training_mfu | communication | cases (decode "
                  "/ prefill / training / comm) |\n"
                  "|---|---|---|---|---|---|\n";
  for (const FittedEfficiency& f : cal.gpus) {
    s += fmt::format("| {} | {:.3f} ({}) | {:.3f} ({}) | {:.3f} ({}) | {:.3f} ({}) | {} / {} / {} / {} |\n",
                     f.gpu_id, f.efficiency.decode_bandwidth, f.decode_source, f.efficiency.prefill_compute,
                     f.prefill_source, f.efficiency.training_mfu, f.training_source,
                     f.efficiency.communication, f.communication_source, f.decode_cases.size(),
                     f.prefill_cases.size(), f.training_cases.size(), f.communication_cases.size());
  }
  // Expert reads where the MoE serving rows fitted them; a GPU of the same family without its own
  // takes the family's lowest (methodology §4.3 "expert reads", §4.5).
  std::string experts;
  for (const FittedEfficiency& f : cal.gpus)
    if (f.expert_read_source != "default")
      experts +=
          fmt::format("{}{} {:.2f} ({})", experts.empty() ? "" : "; ", f.gpu_id, f.efficiency.expert_read,
                      f.expert_read_cases.empty() ? f.expert_read_source : f.expert_read_cases.front());
  if (!experts.empty())
    s += "\nRouted experts' weight reads (`expert_read`, a fraction of decode_bandwidth): " + experts +
         ". A GPU without its own takes the lowest of its family's; a family no one measured reads at the "
         "dense rate.\n";
  // One UNet rate for every GPU, a fraction of each GPU's η_f (methodology §3.7 "UNet rate").
  if (!cal.gpus.empty() && !cal.gpus.front().unet_cases.empty()) {
    const FittedEfficiency& pooled = cal.gpus.front();
    s += fmt::format("\nUNet convolutions and linear layers (`unet_gemm_fraction`, every GPU): {:.3f} × the "
                     "GPU's prefill_compute, fitted to {} UNet image cases: {}.\n",
                     pooled.efficiency.unet_gemm_fraction, pooled.unet_cases.size(),
                     fmt::join(pooled.unet_cases, ", "));
  }
  return s;
}

inline std::string band_table(const Calibration& cal) {
  std::string s = "| kind | GPU | ratio low (p10) | ratio high (p90) | LOO cases | rule "
                  "|\n|---|---|---:|---:|---:|---|\n";
  for (const BandEntry& b : cal.bands) {
    // Image latency is banded per image class: "image_latency (image-unet)".
    const std::string kind =
        b.model_class.empty() ? to_string(b.kind) : fmt::format("{} ({})", to_string(b.kind), b.model_class);
    s += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} |\n", kind, b.gpu_id, b.ratio_low, b.ratio_high,
                     b.cases, b.rule);
  }
  return s;
}

} // namespace rightsize::bench
