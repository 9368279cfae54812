#pragma once
// Whole-instance billing (docs/methodology.md "Whole instances"): a provider rents GPUs in instances of fixed
// sizes (AWS p5.48xlarge = 8 × H100), so a deployment pays for every GPU of every instance it
// occupies, idle or not. One function decides what is billed; estimate_inference calls it, so
// estimate, check, recommend and sweep cost the same deployment the same way.
#include <string>
#include <vector>

namespace rightsize {

/// How one provider counted in a price rents the GPU.
struct RentalShape {
  std::string provider;
  std::string instance;               ///< e.g. "p5.48xlarge"; empty when unknown
  std::vector<int> gpus_per_instance; ///< allowed instance sizes, ascending; empty = per-GPU rental assumed
};

/// A price per GPU-hour and the instance shapes of the providers it was computed from.
struct GpuPrice {
  double usd_per_gpu_hour = 0.0; ///< <= 0: unknown
  /// One entry per provider the price rests on (the median's providers, or the one named); empty
  /// for on-prem, `--price` and other per-GPU prices.
  std::vector<RentalShape> shapes;
  GpuPrice() = default;
  /// A per-GPU price without instance shapes (implicit: a bare rate is per-GPU rental).
  GpuPrice(double rate) : usd_per_gpu_hour(rate) {} // NOLINT(google-explicit-constructor)
  GpuPrice(double rate, std::vector<RentalShape> provider_shapes)
      : usd_per_gpu_hour(rate), shapes(std::move(provider_shapes)) {}
};

/// Whole instances for `replicas` replicas of `gpus_per_replica` GPUs with instance sizes `sizes`
/// (ascending): full instances of the largest size, the remainder in the fewest GPUs any mix of
/// sizes gives (fewer instances at a tie). A replica never straddles instances, except one larger
/// than the largest instance, which takes whole largest instances (a multi-node replica: pipeline
/// stages or attention-DP ranks across instances). `tp_gpus` GPUs of a replica (its tensor-parallel
/// group, which the layout search keeps inside one node) must share an instance: when the largest
/// instance is smaller, the provider cannot host the layout (hostable false, billed per GPU).
struct InstancePacking {
  int instances = 0;        ///< 0 when sizes is empty (per-GPU rental) or not hostable
  int gpus_billed = 0;      ///< GPUs paid for: the instances' GPUs, or replicas × gpus_per_replica per-GPU
  int largest_size = 0;     ///< GPUs of the largest instance used; 0 when per-GPU
  bool mixed_sizes = false; ///< instances of more than one size
  bool hostable = true;     ///< false: no instance holds the replica's TP group
};
InstancePacking pack_instances(int replicas, int gpus_per_replica, const std::vector<int>& sizes,
                               int tp_gpus = 1);

/// What a deployment is billed for under a price (all replicas together).
struct InstanceBill {
  int gpus_used = 0;
  int gpus_billed = 0;
  InstancePacking packing;   ///< of the provider the bill follows
  int shape_index = -1;      ///< into GpuPrice::shapes: that provider; -1 when the price has no shapes
  bool shape_known = false;  ///< false: per-GPU rental assumed
  bool hostable = true;      ///< false: no provider's instance holds the replica's TP group
  double usd_per_hour = 0.0; ///< usd_per_gpu_hour × gpus_billed (0 when the price is unknown)
};

/// The bill of `replicas` replicas of `gpus_per_replica` GPUs (TP groups of `tp_gpus`). Each
/// provider's GPUs billed come from pack_instances (per-GPU where its shape is unknown); a provider
/// whose instances cannot hold the TP group is left out (it cannot rent this layout) unless every
/// provider is, when the bill is per GPU (shape_known false, hostable false). The bill follows the provider
/// whose billed GPU count is the median (the lower middle of an even count: of two equally typical providers
/// a buyer rents from the one billing fewer GPUs; ties by provider name), and costs the price's per-GPU rate
/// × those GPUs. With one provider (--provider, or a GPU one provider quotes) that provider's instances are
/// billed. Pure and allocation-free.
InstanceBill bill_instances(int replicas, int gpus_per_replica, const GpuPrice& price, int tp_gpus = 1);

} // namespace rightsize
