#include "io/catalog/catalog_entry.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "rightsize/pricing.hpp"
#include "rightsize/text.hpp"
#include "rightsize/units.hpp"

namespace rightsize::io {
namespace {

// Physical ranges a real GPU falls in (generous: they catch unit slips such as GiB vs MiB, bits vs
// bytes or a bidirectional figure entered twice, not vendor disagreements).
constexpr double k_min_memory_gb = 1.0;
constexpr double k_max_memory_gb = 2000.0;
constexpr double k_min_bandwidth_gb_per_s = 10.0;
constexpr double k_max_bandwidth_gb_per_s = 20000.0;
constexpr double k_max_dense_tflops = 100000.0;
constexpr double k_max_tdp_watts = 5000.0;
constexpr double k_max_link_gb_per_s = 10000.0;
constexpr double k_max_usd_per_hour = 10000.0;
// Largest instance a quote may name: a GB200/GB300 NVL72 rack (72 GPUs) with room to spare.
constexpr std::int64_t k_max_gpus_per_instance = 128;
constexpr double k_max_purchase_usd = 10'000'000.0;

const std::vector<std::string>& gpu_keys() {
  static const std::vector<std::string> keys = {"id",
                                                "aliases",
                                                "name",
                                                "vendor",
                                                "architecture",
                                                "class",
                                                "release_year",
                                                "memory_gb",
                                                "memory_type",
                                                "visible_memory_gib",
                                                "memory_bandwidth_gb_per_s",
                                                "dense_tflops",
                                                "tdp_watts",
                                                "form_factor",
                                                "pcie_generation",
                                                "pcie_gb_per_s",
                                                "scaleup_link",
                                                "scaleup_gb_per_s",
                                                "scaleup_domain_gpus",
                                                "gpus_per_node",
                                                "nic_gb_per_s",
                                                "host_link",
                                                "host_link_gb_per_s",
                                                "efficiency",
                                                "prices",
                                                "purchase_usd",
                                                "purchase_source",
                                                "spec_sources",
                                                "confidence",
                                                "notes"};
  return keys;
}

const std::vector<std::string>& dtype_keys() {
  static const std::vector<std::string> keys = {"fp64", "fp32", "tf32", "bf16", "fp16",
                                                "fp8",  "int8", "fp4",  "fp6"};
  return keys;
}

// A positive number in [min, max]; below `min` fails with the range in the message.
double positive_in(const JsonReader& r, double min, double max) {
  const double v = r.as_positive(max);
  if (v < min) (void)r.as_number(min, max);
  return v;
}

std::string as_date(const JsonReader& r) {
  std::string text = r.as_string();
  if (!parse_iso_date(text)) r.fail(fmt::format("expected a date YYYY-MM-DD, got \"{}\"", text));
  return text;
}

std::string as_id(const JsonReader& r) {
  std::string id = r.as_string();
  const bool ok = std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
  if (!ok) r.fail(fmt::format("expected an id of letters, digits, '-', '_' or '.', got \"{}\"", id));
  return id;
}

// The vendor picks the Kubernetes GPU resource, the default image and which GPUs may pair in a
// disaggregated unit, all by exact text: "NVIDIA" is read as "nvidia", an unknown vendor refused
// (it was silently planned as NVIDIA; issue 42).
std::string as_vendor(const JsonReader& r) {
  std::string vendor = to_lower(r.as_string());
  if (vendor != "nvidia" && vendor != "amd") {
    r.fail(fmt::format("expected \"nvidia\" or \"amd\" (any case), got {}", describe_value(r.value())));
  }
  return vendor;
}

std::vector<std::string> as_strings(const JsonReader& r) {
  std::vector<std::string> out;
  for (const auto& item : r.elements())
    out.push_back(item.as_string());
  return out;
}

std::vector<std::string> parse_aliases(const JsonReader& r, std::vector<Error>& errors) {
  std::vector<std::string> out;
  for (const auto& item : r.elements()) {
    attempt(errors, [&] {
      const std::string alias = item.as_string();
      if (std::any_of(alias.begin(), alias.end(), [](unsigned char c) { return std::isupper(c) != 0; })) {
        item.fail(fmt::format("expected a lower-case alias, got \"{}\"", alias));
      }
      out.push_back(alias);
    });
  }
  return out;
}

void parse_tflops(const JsonReader& r, Gpu& gpu, std::vector<Error>& errors) {
  attempt(errors, [&] { r.expect_keys(dtype_keys()); });
  if (!r.is_object()) return;
  gpu.dense_tflops = {};
  for (std::size_t i = 0; i < dtype_keys().size(); ++i) {
    read_field(r, dtype_keys()[i], false, errors,
               [&](const JsonReader& v) { gpu.dense_tflops[i] = v.as_positive(k_max_dense_tflops); });
  }
  if (r.keys().empty())
    attempt(errors, [&] { r.fail("expected at least one dense figure, got an empty object"); });
}

void parse_efficiency(const JsonReader& r, GpuEfficiency& eff, std::vector<Error>& errors) {
  attempt(errors, [&] {
    r.expect_keys(
        {"prefill_compute", "decode_bandwidth", "training_mfu", "communication", "provenance", "source"});
  });
  if (!r.is_object()) return;
  // An entry that states factors means them, unless it says they are the defaults (docs/catalog.md).
  eff.entry_measured = true;
  read_field(r, "source", false, errors, [&](const JsonReader& v) {
    eff.entry_measured = v.as_choice({"defaults", "measured"}) == "measured";
  });
  const auto fraction = [](const JsonReader& v) { return v.as_positive(1.0); };
  read_field(r, "prefill_compute", false, errors,
             [&](const JsonReader& v) { eff.prefill_compute = fraction(v); });
  read_field(r, "decode_bandwidth", false, errors,
             [&](const JsonReader& v) { eff.decode_bandwidth = fraction(v); });
  read_field(r, "training_mfu", false, errors, [&](const JsonReader& v) { eff.training_mfu = fraction(v); });
  read_field(r, "communication", false, errors,
             [&](const JsonReader& v) { eff.communication = fraction(v); });
  read_field(r, "provenance", false, errors, [&](const JsonReader& v) { eff.provenance = v.as_string(); });
}

// docs/catalog.md "Instance shapes": a GPU count or a list of the counts a provider rents.
std::vector<int> as_instance_sizes(const JsonReader& v) {
  std::vector<int> sizes;
  if (!v.is_array()) {
    sizes.push_back(static_cast<int>(v.as_int(1, k_max_gpus_per_instance)));
    return sizes;
  }
  const std::vector<JsonReader> items = v.elements();
  if (items.empty()) v.fail("expected a GPU count or a non-empty list of GPU counts, got an empty list");
  for (const auto& item : items) {
    const int size = static_cast<int>(item.as_int(1, k_max_gpus_per_instance));
    if (!sizes.empty() && size <= sizes.back())
      item.fail(fmt::format("expected GPU counts in ascending order without repeats, got {} after {}", size,
                            sizes.back()));
    sizes.push_back(size);
  }
  return sizes;
}

void parse_instance(const JsonReader& r, PriceQuote& q, std::vector<TagUse>& tags,
                    std::vector<Error>& errors) {
  read_field(r, "instance", false, errors, [&](const JsonReader& v) { q.instance = v.as_string(); });
  read_field(r, "gpus_per_instance", false, errors,
             [&](const JsonReader& v) { q.gpus_per_instance = as_instance_sizes(v); });
  read_field(r, "instance_source", false, errors, [&](const JsonReader& v) {
    q.instance_source = v.as_string();
    tags.push_back({v.pointer(), q.instance_source});
  });
  // The three go together: a shape is the instance, its GPU counts and where they are documented.
  const bool has_instance = r.find("instance").has_value();
  const bool has_sizes = r.find("gpus_per_instance").has_value();
  const bool has_source = r.find("instance_source").has_value();
  if (has_instance || has_sizes || has_source) {
    for (const char* key : {"instance", "gpus_per_instance", "instance_source"}) {
      if (r.find(key)) continue;
      attempt(errors, [&] {
        r.fail(fmt::format("an instance shape needs \"{}\" too (\"instance\", \"gpus_per_instance\" and "
                           "\"instance_source\" go together)",
                           key));
      });
    }
  }
}

PriceQuote parse_quote(const JsonReader& r, std::vector<TagUse>& tags, std::vector<Error>& errors) {
  PriceQuote q;
  attempt(errors, [&] {
    r.expect_keys({"provider", "usd_per_hour", "spot", "date", "source", "instance", "gpus_per_instance",
                   "instance_source"});
  });
  if (!r.is_object()) return q;
  read_field(r, "provider", true, errors, [&](const JsonReader& v) { q.provider = v.as_string(); });
  read_field(r, "usd_per_hour", true, errors,
             [&](const JsonReader& v) { q.usd_per_hour = v.as_positive(k_max_usd_per_hour); });
  read_field(r, "spot", false, errors, [&](const JsonReader& v) { q.spot = v.as_bool(); });
  read_field(r, "date", false, errors, [&](const JsonReader& v) { q.date = as_date(v); });
  read_field(r, "source", true, errors, [&](const JsonReader& v) {
    q.source = v.as_string();
    tags.push_back({v.pointer(), q.source});
  });
  parse_instance(r, q, tags, errors);
  return q;
}

void parse_prices(const JsonReader& r, GpuEntry& out, std::vector<Error>& errors) {
  out.gpu.prices.clear();
  std::vector<JsonReader> items;
  attempt(errors, [&] { items = r.elements(); });
  for (const auto& item : items)
    out.gpu.prices.push_back(parse_quote(item, out.tags, errors));
}

void parse_links(const JsonReader& entry, Gpu& gpu, bool full, std::vector<Error>& errors) {
  read_field(entry, "pcie_generation", false, errors,
             [&](const JsonReader& v) { gpu.pcie_generation = static_cast<int>(v.as_int(1, 7)); });
  read_field(entry, "pcie_gb_per_s", false, errors,
             [&](const JsonReader& v) { gpu.pcie_gb_per_s = v.as_positive(k_max_link_gb_per_s); });
  if (const auto link = entry.find("scaleup_link"); !link && entry.value().contains("scaleup_link")) {
    gpu.scaleup_link.clear(); // explicit null: no scale-up link
  }
  read_field(entry, "scaleup_link", false, errors,
             [&](const JsonReader& v) { gpu.scaleup_link = v.as_string(); });
  read_field(entry, "scaleup_gb_per_s", false, errors,
             [&](const JsonReader& v) { gpu.scaleup_gb_per_s = v.as_number(0.0, k_max_link_gb_per_s); });
  read_field(entry, "scaleup_domain_gpus", false, errors,
             [&](const JsonReader& v) { gpu.scaleup_domain_gpus = static_cast<int>(v.as_int(1, 100000)); });
  if (full) gpu.gpus_per_node = 1; // unknown node size: assume no multi-GPU node (docs/catalog.md)
  read_field(entry, "gpus_per_node", false, errors,
             [&](const JsonReader& v) { gpu.gpus_per_node = static_cast<int>(v.as_int(1, 1024)); });
  read_field(entry, "nic_gb_per_s", false, errors,
             [&](const JsonReader& v) { gpu.nic_gb_per_s = v.as_positive(k_max_link_gb_per_s); });
  read_field(entry, "host_link", false, errors, [&](const JsonReader& v) { gpu.host_link = v.as_string(); });
  read_field(entry, "host_link_gb_per_s", false, errors,
             [&](const JsonReader& v) { gpu.host_link_gb_per_s = v.as_positive(k_max_link_gb_per_s); });
}

// Checks between fields, run on the merged value so overlays are held to the same rules.
void check_consistency(const JsonReader& entry, const Gpu& gpu, std::vector<Error>& errors) {
  const auto fail = [&](const std::string& path, const std::string& message) {
    errors.emplace_back(ErrorKind::input, entry.source(), entry.pointer() + path, message);
  };
  const double fp32 = gpu.tflops(MathDtype::fp32);
  const double bf16 = gpu.tflops(MathDtype::bf16);
  const double fp8 = gpu.tflops(MathDtype::fp8);
  // Dense tensor rates halve with each doubling of operand width on every listed GPU (gpu-specs.md
  // §2); a smaller fp8 or bf16 figure means a sparse/dense mix-up or a typo.
  if (fp8 > 0.0 && bf16 > 0.0 && fp8 < bf16) {
    fail("/dense_tflops/fp8", fmt::format("expected at least the bf16 figure ({}), got {}", bf16, fp8));
  }
  if (bf16 > 0.0 && fp32 > 0.0 && bf16 < fp32) {
    fail("/dense_tflops/bf16", fmt::format("expected at least the fp32 figure ({}), got {}", fp32, bf16));
  }
  if (gpu.scaleup_gb_per_s > 0.0 && gpu.scaleup_link.empty()) {
    fail("/scaleup_link", "expected a link name when scaleup_gb_per_s is above 0");
  }
  if (!gpu.scaleup_link.empty() && gpu.scaleup_gb_per_s <= 0.0) {
    fail("/scaleup_gb_per_s", fmt::format("expected a positive number for link \"{}\"", gpu.scaleup_link));
  }
  if (gpu.purchase_usd > 0.0 && gpu.purchase_source.empty()) {
    fail("/purchase_source", "missing required key (purchase_usd needs a source)");
  }
}

} // namespace

GpuEntry parse_gpu_entry(const JsonReader& entry, Gpu gpu, bool full, std::vector<Error>& errors) {
  GpuEntry out;
  out.pointer = entry.pointer();
  if (!attempt(errors, [&] { entry.expect_object(); })) return out;
  attempt(errors, [&] { entry.expect_keys(gpu_keys()); });
  read_field(entry, "id", true, errors, [&](const JsonReader& v) { gpu.id = as_id(v); });
  read_field(entry, "aliases", false, errors,
             [&](const JsonReader& v) { gpu.aliases = parse_aliases(v, errors); });
  read_field(entry, "name", full, errors, [&](const JsonReader& v) { gpu.name = v.as_string(); });
  read_field(entry, "vendor", full, errors, [&](const JsonReader& v) { gpu.vendor = as_vendor(v); });
  read_field(entry, "architecture", full, errors,
             [&](const JsonReader& v) { gpu.architecture = v.as_string(); });
  read_field(entry, "class", false, errors, [&](const JsonReader& v) {
    const std::string c = v.as_choice({"datacenter", "workstation", "consumer"});
    gpu.gpu_class = c == "consumer"      ? GpuClass::consumer
                    : c == "workstation" ? GpuClass::workstation
                                         : GpuClass::datacenter;
  });
  read_field(entry, "release_year", false, errors,
             [&](const JsonReader& v) { gpu.release_year = static_cast<int>(v.as_int(1990, 2100)); });
  read_field(entry, "memory_gb", full, errors, [&](const JsonReader& v) {
    gpu.memory_bytes = positive_in(v, k_min_memory_gb, k_max_memory_gb) * k_bytes_per_gb;
  });
  // Memory type decides the driver-visible fraction (Gpu::visible_memory); a catalog may state the
  // visible capacity directly when nvidia-smi's figure is known (gpu-specs.md §3).
  read_field(entry, "memory_type", false, errors,
             [&](const JsonReader& v) { gpu.memory_type = v.as_string(); });
  read_field(entry, "visible_memory_gib", false, errors, [&](const JsonReader& v) {
    gpu.visible_memory_bytes = positive_in(v, k_min_memory_gb, k_max_memory_gb) * k_bytes_per_gib;
  });
  read_field(entry, "memory_bandwidth_gb_per_s", full, errors, [&](const JsonReader& v) {
    gpu.memory_bandwidth_gb_per_s = positive_in(v, k_min_bandwidth_gb_per_s, k_max_bandwidth_gb_per_s);
  });
  read_field(entry, "dense_tflops", full, errors, [&](const JsonReader& v) { parse_tflops(v, gpu, errors); });
  read_field(entry, "tdp_watts", full, errors,
             [&](const JsonReader& v) { gpu.tdp_watts = v.as_positive(k_max_tdp_watts); });
  read_field(entry, "form_factor", full, errors,
             [&](const JsonReader& v) { gpu.form_factor = v.as_string(); });
  parse_links(entry, gpu, full, errors);
  if (full) gpu.efficiency.provenance = "methodology §4.5 defaults (the entry gives none)";
  read_field(entry, "efficiency", false, errors,
             [&](const JsonReader& v) { parse_efficiency(v, gpu.efficiency, errors); });
  out.gpu = std::move(gpu);
  read_field(entry, "prices", false, errors, [&](const JsonReader& v) { parse_prices(v, out, errors); });
  Gpu& g = out.gpu;
  read_field(entry, "purchase_usd", false, errors,
             [&](const JsonReader& v) { g.purchase_usd = v.as_positive(k_max_purchase_usd); });
  read_field(entry, "purchase_source", false, errors, [&](const JsonReader& v) {
    g.purchase_source = v.as_string();
    out.tags.push_back({v.pointer(), g.purchase_source});
  });
  read_field(entry, "spec_sources", full, errors, [&](const JsonReader& v) {
    g.spec_sources = as_strings(v);
    for (std::size_t i = 0; i < g.spec_sources.size(); ++i) {
      out.tags.push_back({v.pointer() + "/" + std::to_string(i), g.spec_sources[i]});
    }
  });
  read_field(entry, "confidence", full, errors, [&](const JsonReader& v) {
    g.confidence = v.as_choice({"H", "M", "L"});
  });
  read_field(entry, "notes", false, errors, [&](const JsonReader& v) { g.notes = as_strings(v); });
  check_consistency(entry, g, errors);
  return out;
}

} // namespace rightsize::io
