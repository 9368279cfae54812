#include "rightsize/gpu.hpp"

namespace rightsize {

const char* to_string(GpuClass value) {
  switch (value) {
  case GpuClass::datacenter: return "datacenter";
  case GpuClass::workstation: return "workstation";
  case GpuClass::consumer: return "consumer";
  }
  return "datacenter";
}

bool searched_by_default(GpuClass value, bool include_consumer) {
  return value != GpuClass::consumer || include_consumer;
}

double Gpu::visible_memory() const {
  if (visible_memory_bytes > 0.0) return visible_memory_bytes;
  const double gib = memory_bytes / 1e9;
  const bool gddr = memory_type.rfind("GDDR", 0) == 0;
  return gib * 1073741824.0 * (gddr ? 0.9375 : 0.99);
}

LinkKind link_for_group(const Gpu& gpu, int group_gpus) {
  if (group_gpus <= 1) return LinkKind::scaleup;
  if (gpu.scaleup_gb_per_s > 0.0 && group_gpus <= gpu.scaleup_domain_gpus) return LinkKind::scaleup;
  if (group_gpus <= gpu.gpus_per_node) return LinkKind::pcie;
  return LinkKind::network;
}

double link_gb_per_s(const Gpu& gpu, LinkKind link) {
  switch (link) {
  case LinkKind::scaleup: return gpu.scaleup_gb_per_s > 0.0 ? gpu.scaleup_gb_per_s : gpu.pcie_gb_per_s;
  case LinkKind::pcie: return gpu.pcie_gb_per_s;
  case LinkKind::network: return gpu.nic_gb_per_s;
  }
  return gpu.pcie_gb_per_s;
}

std::string link_name(const Gpu& gpu, LinkKind link) {
  switch (link) {
  case LinkKind::scaleup:
    if (!gpu.scaleup_link.empty() && gpu.scaleup_gb_per_s > 0.0) return gpu.scaleup_link;
    [[fallthrough]];
  case LinkKind::pcie: return "PCIe Gen" + std::to_string(gpu.pcie_generation);
  case LinkKind::network: return "network";
  }
  return "PCIe";
}

double host_link_bandwidth(const Gpu& gpu) {
  return gpu.host_link_gb_per_s > 0.0 ? gpu.host_link_gb_per_s : gpu.pcie_gb_per_s;
}

std::string host_link_name(const Gpu& gpu) {
  if (gpu.host_link_gb_per_s > 0.0 && !gpu.host_link.empty()) return gpu.host_link;
  return gpu.pcie_generation > 0 ? "PCIe Gen" + std::to_string(gpu.pcie_generation) : "PCIe";
}

const char* to_string(Reach reach) {
  switch (reach) {
  case Reach::measured: return "measured";
  case Reach::model_unmeasured: return "model_unmeasured";
  case Reach::gpu_sibling: return "gpu_sibling";
  case Reach::extrapolated: return "extrapolated";
  }
  return "measured";
}

const char* to_string(LayoutFamily family) {
  switch (family) {
  case LayoutFamily::tp: return "tp";
  case LayoutFamily::tp_pp: return "tp+pp";
  case LayoutFamily::ep: return "ep";
  case LayoutFamily::adp: return "adp";
  }
  return "tp";
}

std::optional<LayoutFamily> parse_layout_family(std::string_view text) {
  for (LayoutFamily f : {LayoutFamily::tp, LayoutFamily::tp_pp, LayoutFamily::ep, LayoutFamily::adp})
    if (text == to_string(f)) return f;
  return std::nullopt;
}

const GpuEfficiency& efficiency_for(const Gpu& gpu, LayoutFamily family) {
  for (const LayoutEfficiency& l : gpu.layout_efficiency)
    if (l.family == family) return l.efficiency;
  return gpu.efficiency;
}

} // namespace rightsize
