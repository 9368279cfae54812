#include "rightsize/instances.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

namespace rightsize {

namespace {

// Remainders are packed exactly over at most this many replicas (the replicas one largest
// instance holds, 72 on an NVL72 rack); beyond it, whole largest instances.
constexpr int k_max_remainder = 128;

// Trivially constructible: the knapsack below sets each entry it uses, so its table of
// k_max_remainder + 1 entries costs nothing to declare (it runs once per provider per estimate).
struct Cost {
  int gpus;
  int instances;
  bool mixed;
  int size;     ///< the size of one instance in the mix (to tell a mix from one size)
  int max_size; ///< the largest size in the mix
};
constexpr Cost k_no_cost{std::numeric_limits<int>::max(), 0, false, 0, 0};

} // namespace

InstancePacking pack_instances(int replicas, int gpus_per_replica, const std::vector<int>& sizes,
                               int tp_gpus) {
  InstancePacking out;
  if (replicas <= 0 || gpus_per_replica <= 0) return out;
  out.gpus_billed = replicas * gpus_per_replica;
  if (sizes.empty()) return out;
  const int largest = sizes.back();
  if (tp_gpus > largest) { // the TP group needs one node; no instance of this provider holds it
    out.hostable = false;
    return out;
  }
  if (gpus_per_replica > largest) {
    out.largest_size = largest;
    // A replica larger than the largest instance spans whole largest instances (a multi-node
    // replica, as the layout search allows across nodes).
    const int per_replica = (gpus_per_replica + largest - 1) / largest;
    out.instances = replicas * per_replica;
    out.gpus_billed = out.instances * largest;
    return out;
  }
  const int per_largest = largest / gpus_per_replica; // replicas one largest instance holds
  const int full = replicas / per_largest;
  const int rest = replicas % per_largest;
  out.instances = full;
  out.gpus_billed = full * largest;
  out.largest_size = full > 0 ? largest : 0;
  if (rest == 0) return out;
  if (rest > k_max_remainder) { // beyond the exact packing: one more largest instance
    ++out.instances;
    out.gpus_billed += largest;
    out.largest_size = largest;
    return out;
  }
  // The remaining replicas (fewer than one largest instance holds): the fewest GPUs any mix of
  // sizes gives, fewer instances at a tie (a small knapsack over at most k_max_remainder replicas).
  std::array<Cost, k_max_remainder + 1> best; // entries 0..rest are set before they are read
  best[0] = Cost{0, 0, false, 0, 0};
  for (int r = 1; r <= rest; ++r) {
    best[static_cast<std::size_t>(r)] = k_no_cost;
    for (const int size : sizes) {
      const int holds = size / gpus_per_replica;
      if (holds <= 0) continue;
      const Cost& before = best[static_cast<std::size_t>(std::max(0, r - holds))];
      if (before.gpus == std::numeric_limits<int>::max()) continue;
      Cost c{before.gpus + size, before.instances + 1,
             before.mixed || (before.size != 0 && before.size != size), size,
             std::max(before.max_size, size)};
      Cost& slot = best[static_cast<std::size_t>(r)];
      if (c.gpus < slot.gpus || (c.gpus == slot.gpus && c.instances < slot.instances)) slot = c;
    }
  }
  const Cost& tail = best[static_cast<std::size_t>(rest)];
  out.instances += tail.instances;
  out.gpus_billed += tail.gpus;
  out.mixed_sizes = tail.mixed || (full > 0 && tail.size != largest);
  // The largest instance size used: the full ones, else the remainder's largest (1 GPU of a 1/4/8
  // family is one 1-GPU instance, not an 8-GPU one).
  out.largest_size = std::max(out.largest_size, tail.max_size);
  return out;
}

InstanceBill bill_instances(int replicas, int gpus_per_replica, const GpuPrice& price, int tp_gpus) {
  InstanceBill bill;
  bill.gpus_used = std::max(0, replicas) * std::max(0, gpus_per_replica);
  bill.gpus_billed = bill.gpus_used;
  bill.packing = pack_instances(replicas, gpus_per_replica, {});
  const std::size_t n = price.shapes.size();
  if (n > 0) {
    // The provider at the lower middle of the billed GPU counts, ties by provider name, then index:
    // the element (n - 1) / 2 of that order among the providers that can host the TP group (all of
    // them when none can). The chosen one is packed again for its bill. No allocation for up to
    // k_small providers.
    constexpr std::size_t k_small = 32;
    struct Entry {
      int billed;
      bool hostable;
      std::size_t index;
    };
    std::array<Entry, k_small> small; // the first n entries are set before use
    std::vector<Entry> large(n > k_small ? n : 0);
    Entry* const entries = n > k_small ? large.data() : small.data();
    std::size_t hosting = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // Providers often list the same sizes: those are packed once.
      const std::vector<int>& sizes = price.shapes[i].gpus_per_instance;
      std::size_t same = 0;
      while (same < i && price.shapes[same].gpus_per_instance != sizes)
        ++same;
      if (same < i) {
        entries[i] = Entry{entries[same].billed, entries[same].hostable, i};
      } else {
        const InstancePacking p = pack_instances(replicas, gpus_per_replica, sizes, tp_gpus);
        entries[i] = Entry{p.gpus_billed, p.hostable, i};
      }
      hosting += entries[i].hostable ? 1U : 0U;
    }
    // Providers that cannot hold the TP group are left out, unless none can (the kept ones in order).
    Entry* const end = hosting == 0
                           ? entries + n
                           : std::remove_if(entries, entries + n, [](const Entry& e) { return !e.hostable; });
    // Shapes come sorted by provider (pricing.cpp keys them by name), so the name order is the index
    // order and no names need comparing.
    const bool by_name =
        std::is_sorted(price.shapes.begin(), price.shapes.end(),
                       [](const RentalShape& a, const RentalShape& b) { return a.provider < b.provider; });
    const auto before = [&](const Entry& a, const Entry& b) {
      if (a.billed != b.billed) return a.billed < b.billed;
      if (by_name) return a.index < b.index;
      const std::string& pa = price.shapes[a.index].provider;
      const std::string& pb = price.shapes[b.index].provider;
      return pa < pb || (pa == pb && a.index < b.index);
    };
    Entry* const median = entries + (end - entries - 1) / 2;
    std::nth_element(entries, median, end, before);
    const std::size_t i = median->index;
    bill.shape_index = static_cast<int>(i);
    bill.packing = pack_instances(replicas, gpus_per_replica, price.shapes[i].gpus_per_instance, tp_gpus);
    bill.gpus_billed = bill.packing.gpus_billed;
    bill.hostable = bill.packing.hostable;
    bill.shape_known = !price.shapes[i].gpus_per_instance.empty() && bill.packing.hostable;
  }
  // docs/methodology.md "Whole instances": a deployment pays for every GPU of the instances it rents.
  bill.usd_per_hour = price.usd_per_gpu_hour > 0.0 ? price.usd_per_gpu_hour * bill.gpus_billed : 0.0;
  return bill;
}

} // namespace rightsize
