#include "render/instances_render.hpp"

#include <fmt/format.h>

namespace rightsize::cli {
namespace {

const RentalShape* shape_of(const InstanceBill& bill, const GpuPrice& price) {
  if (bill.shape_index < 0 || static_cast<std::size_t>(bill.shape_index) >= price.shapes.size())
    return nullptr;
  return &price.shapes[static_cast<std::size_t>(bill.shape_index)];
}

} // namespace

nlohmann::json instances_json(const InstanceBill& bill, const GpuPrice& price) {
  using nlohmann::json;
  const RentalShape* shape = shape_of(bill, price);
  const bool whole = bill.shape_known && bill.packing.instances > 0;
  return json{{"gpus_used", bill.gpus_used},
              {"gpus_billed", bill.gpus_billed},
              {"instances", whole ? json(bill.packing.instances) : json()},
              {"gpus_per_instance", whole ? json(bill.packing.largest_size) : json()},
              {"mixed_sizes", bill.packing.mixed_sizes},
              {"shape_known", bill.shape_known},
              {"hostable", bill.hostable},
              {"provider", shape != nullptr ? json(shape->provider) : json()},
              {"instance", shape != nullptr && !shape->instance.empty() ? json(shape->instance) : json()}};
}

std::string instances_text(const InstanceBill& bill, const GpuPrice& price) {
  const RentalShape* shape = shape_of(bill, price);
  if (!bill.hostable && shape != nullptr && !shape->gpus_per_instance.empty()) {
    return fmt::format(
        "{} GPUs billed per GPU ({} at {} holds at most {} GPU(s), fewer than the layout's tensor-"
        "parallel group: per-GPU rental assumed)",
        bill.gpus_billed, shape->instance, shape->provider, shape->gpus_per_instance.back());
  }
  if (!bill.shape_known) {
    if (shape == nullptr)
      return fmt::format("{} GPUs billed per GPU (no instance shape with this price: per-GPU rental assumed)",
                         bill.gpus_billed);
    std::size_t unknown = 0;
    for (const auto& s : price.shapes)
      unknown += s.gpus_per_instance.empty() ? 1U : 0U;
    if (price.shapes.size() == 1)
      return fmt::format("{} GPUs billed per GPU (instance shape of {} unknown: per-GPU rental assumed)",
                         bill.gpus_billed, shape->provider);
    if (unknown == price.shapes.size())
      return fmt::format("{} GPUs billed per GPU (instance shape unknown at all {} providers: per-GPU rental "
                         "assumed)",
                         bill.gpus_billed, price.shapes.size());
    return fmt::format("{} GPUs billed per GPU (the median provider's bill, {}'s, whose instance shape is "
                       "unknown: per-GPU rental assumed; {} of {} providers' shapes unknown)",
                       bill.gpus_billed, shape->provider, unknown, price.shapes.size());
  }
  const std::string count =
      bill.packing.mixed_sizes
          ? fmt::format("{} instances of up to {} GPUs", bill.packing.instances, bill.packing.largest_size)
          : fmt::format("{} × {}-GPU instance{}", bill.packing.instances, bill.packing.largest_size,
                        bill.packing.instances == 1 ? "" : "s");
  return fmt::format("{} ({}, {}): {} GPUs billed for {} used", count, shape->instance, shape->provider,
                     bill.gpus_billed, bill.gpus_used);
}

std::string billed_cell(const InstanceBill& bill) {
  if (!bill.shape_known || bill.packing.instances == 0) return std::to_string(bill.gpus_billed);
  if (bill.packing.mixed_sizes) return fmt::format("{} ({} inst.)", bill.gpus_billed, bill.packing.instances);
  return fmt::format("{} ({}×{})", bill.gpus_billed, bill.packing.instances, bill.packing.largest_size);
}

} // namespace rightsize::cli
