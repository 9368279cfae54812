#pragma once
// A small fixed GPU list for the estimator fuzz target: an HBM GPU with NVLink, a GDDR PCIe GPU
// without fp8, a large-memory OAM GPU and a tiny edge GPU (figures rounded from gpu-specs.md).
#include <vector>

#include "rightsize/gpu.hpp"

namespace rightsize::fuzz {

inline Gpu make_gpu(const char* id, double memory_gb, const char* memory_type, double bandwidth,
                    double bf16_tflops) {
  Gpu g;
  g.id = id;
  g.memory_bytes = memory_gb * 1e9;
  g.memory_type = memory_type;
  g.memory_bandwidth_gb_per_s = bandwidth;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::bf16)] = bf16_tflops;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp16)] = bf16_tflops;
  g.dense_tflops[static_cast<std::size_t>(MathDtype::fp32)] = bf16_tflops / 16.0;
  g.pcie_generation = 4;
  g.pcie_gb_per_s = 32.0;
  g.nic_gb_per_s = 50.0;
  g.tdp_watts = 300.0;
  return g;
}

/// The four GPUs and their prices (USD per GPU-hour, 0 = unknown).
inline std::vector<Gpu> fixed_gpus() {
  Gpu h100 = make_gpu("H100-SXM", 80, "HBM3", 3350, 989.5);
  h100.dense_tflops[static_cast<std::size_t>(MathDtype::fp8)] = 1979.0;
  h100.dense_tflops[static_cast<std::size_t>(MathDtype::int8)] = 1979.0;
  h100.pcie_generation = 5;
  h100.pcie_gb_per_s = 64.0;
  h100.scaleup_link = "NVLink 4";
  h100.scaleup_gb_per_s = 450.0;
  h100.scaleup_domain_gpus = 8;
  Gpu a10 = make_gpu("A10", 24, "GDDR6", 600, 125);
  a10.dense_tflops[static_cast<std::size_t>(MathDtype::int8)] = 250.0;
  Gpu mi300 = make_gpu("MI300X", 192, "HBM3", 5300, 1307);
  mi300.dense_tflops[static_cast<std::size_t>(MathDtype::fp8)] = 2615.0;
  mi300.scaleup_link = "Infinity Fabric";
  mi300.scaleup_gb_per_s = 64.0;
  mi300.scaleup_domain_gpus = 8;
  mi300.form_factor = "OAM";
  Gpu edge = make_gpu("EDGE-8G", 8, "GDDR6", 100, 10);
  edge.gpus_per_node = 1;
  return {h100, a10, mi300, edge};
}

inline std::vector<double> fixed_prices() {
  return {3.0, 1.0, 0.0, 0.2};
}

} // namespace rightsize::fuzz
