#pragma once
// How the instances a deployment is billed for are shown (docs/output-schema.md "Instances").
#include <string>

#include <nlohmann/json.hpp>

#include "rightsize/instances.hpp"

namespace rightsize::cli {

/// {"gpus_used", "gpus_billed", "instances" (null: per GPU), "gpus_per_instance" (the largest size
/// used; null: per GPU), "mixed_sizes", "shape_known", "hostable", "provider" (null: none),
/// "instance" (null)}.
nlohmann::json instances_json(const InstanceBill& bill, const GpuPrice& price);

/// "7 × 8-GPU instances (p5.48xlarge, aws): 56 GPUs billed for 49 used", or the per-GPU assumption.
std::string instances_text(const InstanceBill& bill, const GpuPrice& price);

/// The cell of the table's "billed" column: "56 (7×8)", "12 (2 inst.)" for a mix, "1" per GPU.
std::string billed_cell(const InstanceBill& bill);

} // namespace rightsize::cli
