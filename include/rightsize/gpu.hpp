#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rightsize/precision.hpp"

namespace rightsize {

/// Achieved fractions of peak, per phase (methodology §4.5). Defaults are the documented ones;
/// the catalog may carry calibrated values per GPU.
struct GpuEfficiency {
  double prefill_compute = 0.60;  ///< η_f for large GEMMs (prefill)
  double decode_bandwidth = 0.80; ///< η_m for HBM reads (decode)
  double training_mfu =
      0.50; ///< training GEMM efficiency (kernel level; comm and bubble are explicit, docs/training.md)
  double communication = 0.75; ///< η_l of link bandwidth for collectives
  /// Routed MoE experts' weights are read at this fraction of η_m (0 < x ≤ 1): grouped expert
  /// kernels at a few rows per expert stream their weights less efficiently than dense GEMMs
  /// (methodology §4.3 "expert reads"); fitted per GPU to the MoE serving rows by
  /// bench/accuracy_report (data/calibration.json), 1 = the dense rate.
  double expert_read = 1.0;
  /// A UNet's convolutions and linear layers run at this fraction of η_f (0 < x ≤ 1; methodology
  /// §3.7 "UNet rate"): one value for every GPU, fitted to the scored UNet image cases by
  /// bench/accuracy_report (data/calibration.json, the "*" entry); 1 = the large-GEMM rate.
  double unet_gemm_fraction = 1.0;
  /// The engine's per-layer time of a forward pass (methodology §3 "per-layer time") runs at this
  /// multiple of the engine profile's on this GPU (> 0): fitted by `rightsize calibrate` only, to
  /// the user's runs whose TPOT it moves (docs/calibration.md); 1 = the profile's.
  double layer_overhead = 1.0;
  /// GPU time a decode step spends per sequence per layer beyond its bytes, FLOPs and collectives
  /// on a tensor-parallel replica (TP ≥ 2; methodology §3 "per-sequence time"), in seconds: fitted per
  /// GPU to published static-batch runs by bench/accuracy_report (data/calibration.json) and given to
  /// GPUs of the same architecture that have none; 0 = none.
  double decode_sequence_layer_s = 0.0;
  std::string provenance; ///< where the factors come from ("methodology §4.5 defaults, ...")
  /// Where expert_read comes from ("expert reads fitted (...)", "... extrapolated from Hopper
  /// siblings"); empty = the dense rate. Said only for models with routed experts.
  std::string expert_read_provenance;
  /// `provenance` followed by the expert-read fraction's when there is one (methodology §3.4).
  [[nodiscard]] std::string provenance_with_expert_reads() const {
    return expert_read_provenance.empty() ? provenance : provenance + "; " + expert_read_provenance;
  }
  /// The catalog entry states measured factors of its own (efficiency.source "measured", or an
  /// efficiency block without a source): data/calibration.json leaves them alone. False for the
  /// methodology defaults, which the calibration replaces (docs/catalog.md).
  bool entry_measured = false;
};

/// Layout family of a serving deployment: the key of per-layout calibrated factors
/// (docs/calibration.md, "Layout families"). tp: tensor parallelism only (TP 1 included); tp_pp:
/// with pipeline stages; ep: MoE expert parallelism without attention data parallelism; adp: with
/// attention data parallelism.
enum class LayoutFamily : std::uint8_t { tp, tp_pp, ep, adp };
const char* to_string(LayoutFamily family); ///< "tp", "tp+pp", "ep", "adp"
std::optional<LayoutFamily> parse_layout_family(std::string_view text);

/// Factors fitted to one layout family's runs (a `rightsize calibrate` overlay).
struct LayoutEfficiency {
  LayoutFamily family = LayoutFamily::tp;
  GpuEfficiency efficiency;
};

/// One figure's residual in a `rightsize calibrate` overlay (docs/calibration.md "Residuals"):
/// ln(measured / predicted) = a + b·ln(concurrency) + c·ln(input tokens), the first
/// `coefficients.size()` terms (0 to 3), chosen by leave-one-out over the stack's fit runs.
struct ResidualTerm {
  std::vector<double> coefficients; ///< a, b, c; empty = the factors alone predicted best
  double loo_before_pct = 0.0;      ///< median |error| over the fit runs, fitted factors alone
  double loo_after_pct = 0.0;       ///< the same with this residual, leave-one-out
};

/// The residuals of one stack: a model, its weights format, an engine and a layout on the GPU
/// that carries them. Applied only to that stack, with concurrency and input clamped to the fit
/// runs' range, and not at all beyond k_residual_reach of it (core::apply_stack_residual).
struct StackResidual {
  std::string model;   ///< ModelSpec::name of the runs (the preset id)
  std::string weights; ///< weights format name ("fp8", "bf16", ...)
  std::string engine;  ///< EngineConfig::kind ("vllm", "sglang", "trtllm")
  int tp = 1, pp = 1, ep = 1;
  double concurrency_min = 1.0, concurrency_max = 1.0; ///< closed-loop concurrency of the fit runs
  double input_min = 1.0, input_max = 1.0;             ///< input tokens of the fit runs
  int runs = 0;
  ResidualTerm ttft, tpot;
};

/// How far outside its runs' range a residual still applies (clamped): this factor below the
/// smallest and above the largest concurrency and input.
inline constexpr double k_residual_reach = 2.0;

/// One price observation.
struct PriceQuote {
  std::string provider;      ///< e.g. "aws", "lambda"
  double usd_per_hour = 0.0; ///< per GPU-hour
  bool spot = false;         ///< spot / preemptible
  std::string date;          ///< ISO date the price was observed; empty when the source is undated
  std::string source;        ///< tag into the catalog's `sources`
  /// The instance this price rents (docs/catalog.md "Instance shapes"): its name and the GPU counts
  /// the provider rents it in, ascending (e.g. {8} for AWS p5.48xlarge, {1, 2, 4, 8} for GCP
  /// a2-highgpu-*). Empty = unknown: per-GPU rental is assumed.
  std::string instance;
  std::vector<int> gpus_per_instance;
  std::string instance_source; ///< tag into `sources` documenting the shape
};

/// Market class of a GPU (docs/catalog.md): consumer cards' driver licence (GeForce EULA) excludes
/// data-centre deployment, so searches leave them out unless asked (`--include-consumer`).
/// How far a GPU's serving estimates reach beyond measured serving runs (issue 37 item 3; docs/
/// accuracy.md "Bands by reach"): `measured`, serving runs on this GPU (the shipped calibration's
/// rows or a --calibration overlay's); `model_unmeasured`, serving runs on this GPU but none of the
/// model being estimated (serving_reach: a property of the GPU and model, never of a GPU alone);
/// `gpu_sibling`, none of its own but on a GPU of its family; `extrapolated`, none on its family.
/// Training figures have a reach of their own, by training cases instead of serving runs. Set with
/// the calibration (assign_reach); until then measured, which widens nothing.
enum class Reach : std::uint8_t { measured, model_unmeasured, gpu_sibling, extrapolated };
/// "measured", "model_unmeasured", "gpu_sibling", "extrapolated"
const char* to_string(Reach reach);

enum class GpuClass : std::uint8_t { datacenter, workstation, consumer };
const char* to_string(GpuClass value);
/// Whether a search over the whole catalog considers this GPU (methodology §6).
bool searched_by_default(GpuClass value, bool include_consumer);

/// One GPU model from the catalog. Bandwidths are per GPU per direction, decimal GB/s.
struct Gpu {
  std::string id;                            ///< canonical id, e.g. "H100-SXM"
  std::vector<std::string> aliases;          ///< lower-case aliases, e.g. "h100"
  std::string name;                          ///< display name
  std::string vendor;                        ///< "nvidia", "amd"
  std::string architecture;                  ///< "Hopper"
  GpuClass gpu_class = GpuClass::datacenter; ///< catalog `class`
  int release_year = 0;                      ///< 0 = unknown
  double memory_bytes = 0.0;                 ///< vendor capacity as printed ("80 GB" -> 80e9)
  std::string memory_type;                   ///< "HBM3", "GDDR6", ...
  double visible_memory_bytes = 0.0;         ///< capacity CUDA/ROCm reports; 0 = derive (visible_memory())
  double memory_bandwidth_gb_per_s = 0.0;
  std::array<double, k_math_dtype_count> dense_tflops{}; ///< indexed by MathDtype; 0 = unsupported
  double tdp_watts = 0.0;
  std::string form_factor;       ///< "SXM", "PCIe", "OAM"
  int pcie_generation = 0;       ///< 0 = unknown
  double pcie_gb_per_s = 0.0;    ///< per direction; 0 = unknown
  std::string scaleup_link;      ///< "NVLink 4", "Infinity Fabric", "" when none
  double scaleup_gb_per_s = 0.0; ///< per direction; 0 = no scale-up link
  int scaleup_domain_gpus = 1;   ///< GPUs one scale-up domain connects (all-to-all)
  int gpus_per_node = 8;         ///< GPUs in the common server
  double nic_gb_per_s = 0.0;     ///< default scale-out NIC bandwidth per GPU per direction; 0 = unknown
  /// The GPU's own link to host memory when it is not its PCIe slot ("NVLink-C2C" on Grace
  /// superchips); "" = PCIe.
  std::string host_link;
  double host_link_gb_per_s = 0.0; ///< per direction per GPU; 0 = PCIe (host_link_bandwidth)
  GpuEfficiency efficiency;
  /// Per layout family, from an overlay; a family not listed uses `efficiency` (efficiency_for).
  std::vector<LayoutEfficiency> layout_efficiency;
  /// Per stack (model, weights, engine, layout), from an overlay: what its factors leave.
  std::vector<StackResidual> residuals;
  std::vector<PriceQuote> prices;
  double purchase_usd = 0.0;              ///< purchase estimate per GPU (0 = unknown)
  std::string purchase_source;            ///< tag into the catalog's `sources`
  std::vector<std::string> spec_sources;  ///< tags into the catalog's `sources` for the spec figures
  std::string confidence;                 ///< "H", "M" or "L" (gpu-specs.md conventions)
  std::vector<std::string> notes;         ///< caveats: conflicts, ranges, fields left out as unknown
  Reach reach = Reach::measured;          ///< its serving figures' reach (assign_reach)
  Reach training_reach = Reach::measured; ///< its training figures' reach (assign_reach)

  /// Dense peak for a math dtype in TFLOP/s (0 when unsupported).
  [[nodiscard]] double tflops(MathDtype dtype) const { return dense_tflops[static_cast<std::size_t>(dtype)]; }
  /// Memory the runtime can allocate: `visible_memory_bytes` when the catalog gives it, else the
  /// vendor figure read as GiB (HBM/GDDR sizes are powers of two: an "80 GB" H100 has 80 GiB) times
  /// the fraction the driver exposes: 0.99 for HBM (79.19 of 80 GiB in vLLM logs, methodology §2.1),
  /// 0.9375 for GDDR with ECC reserve (L4 23,034 MiB of 24 GiB).
  [[nodiscard]] double visible_memory() const;
  /// True when the GPU runs GEMMs in this dtype.
  [[nodiscard]] bool supports(MathDtype dtype) const { return tflops(dtype) > 0.0; }
};

/// The factors a deployment of `family` runs with: the family's own (an overlay's per-layout fit)
/// when the GPU has them, else the GPU's. An exact key lookup.
const GpuEfficiency& efficiency_for(const Gpu& gpu, LayoutFamily family);

/// How GPUs of one replica talk to each other.
enum class LinkKind : std::uint8_t { scaleup, pcie, network };

/// The link used by a group of `group_gpus` GPUs: the scale-up link when the group fits in its
/// domain, PCIe within a node without one, the NIC across nodes.
LinkKind link_for_group(const Gpu& gpu, int group_gpus);

/// GB/s per direction between one GPU and host memory: its host link, else its PCIe slot; 0 = unknown.
double host_link_bandwidth(const Gpu& gpu);
/// "NVLink-C2C", "PCIe Gen5", "PCIe" (generation unknown).
std::string host_link_name(const Gpu& gpu);
/// Per-direction bandwidth of a link kind for this GPU, GB/s.
double link_gb_per_s(const Gpu& gpu, LinkKind link);
/// Name of the link, for output ("NVLink 4", "PCIe Gen4", "network").
std::string link_name(const Gpu& gpu, LinkKind link);

} // namespace rightsize
