#include "render/catalog_render.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/table.hpp"
#include "rightsize/text.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

constexpr MathDtype k_dtypes[] = {MathDtype::fp64, MathDtype::fp32, MathDtype::tf32,
                                  MathDtype::bf16, MathDtype::fp16, MathDtype::fp8,
                                  MathDtype::int8, MathDtype::fp6,  MathDtype::fp4};

std::string price_text(const ResolvedPrice& price) {
  if (!price.known) return "n/a (" + price.basis + ")";
  std::string out = format_price(price.usd_per_hour) + " (" + price.basis;
  return out + (price.date.empty() ? ")" : ", " + price.date + ")");
}

Table field_table(const Gpu& gpu) {
  const auto per_direction = [](double gb_per_s) {
    return format_number(gb_per_s, 2) + " GB/s per direction";
  };
  Table table({{"field"}, {"value", Align::left, true}});
  table.add_row({"name", gpu.name});
  table.add_row({"aliases", gpu.aliases.empty() ? "-" : join(gpu.aliases)});
  table.add_row({"vendor", gpu.vendor});
  table.add_row({"architecture", gpu.architecture});
  table.add_row({"class", to_string(gpu.gpu_class)});
  table.add_row({"release year", gpu.release_year > 0 ? std::to_string(gpu.release_year) : "unknown"});
  table.add_row({"memory", fmt::format("{} GB as the vendor states it (HBM/GDDR parts are binary: {} GiB)",
                                       format_number(gpu.memory_bytes / k_bytes_per_gb, 2),
                                       format_number(gpu.memory_bytes / k_bytes_per_gb, 2))});
  table.add_row({"memory type", gpu.memory_type.empty() ? "unknown" : gpu.memory_type});
  table.add_row(
      {"visible to the runtime", fmt::format("{} GiB ({} GB; what estimates budget against)",
                                             format_number(gpu.visible_memory() / k_bytes_per_gib, 2),
                                             format_number(gpu.visible_memory() / k_bytes_per_gb, 2))});
  table.add_row({"memory bandwidth", format_number(gpu.memory_bandwidth_gb_per_s, 2) + " GB/s"});
  for (const MathDtype dtype : k_dtypes) {
    const std::string unit = dtype == MathDtype::int8 ? " TOPS" : " TFLOPS";
    table.add_row(
        {std::string("dense ").append(math_dtype_name(dtype)),
         gpu.supports(dtype) ? format_number(gpu.tflops(dtype), 2) + unit : "- (unsupported or unknown)"});
  }
  table.add_row({"TDP", format_number(gpu.tdp_watts, 0) + " W"});
  table.add_row({"form factor", gpu.form_factor});
  table.add_row({"PCIe", gpu.pcie_gb_per_s > 0.0
                             ? fmt::format("Gen{}, {}", gpu.pcie_generation, per_direction(gpu.pcie_gb_per_s))
                             : "unknown"});
  table.add_row(
      {"scale-up link", gpu.scaleup_gb_per_s > 0.0
                            ? fmt::format("{}, {}, {} GPUs per domain", gpu.scaleup_link,
                                          per_direction(gpu.scaleup_gb_per_s), gpu.scaleup_domain_gpus)
                            : "none"});
  table.add_row({"GPUs per node", std::to_string(gpu.gpus_per_node)});
  table.add_row({"scale-out NIC", gpu.nic_gb_per_s > 0.0 ? per_direction(gpu.nic_gb_per_s) : "unknown"});
  if (gpu.host_link_gb_per_s > 0.0)
    table.add_row(
        {"host link", fmt::format("{}, {}", host_link_name(gpu), per_direction(gpu.host_link_gb_per_s))});
  const GpuEfficiency& e = gpu.efficiency;
  table.add_row({
      "efficiency",
      fmt::format("prefill {}, decode {}, training MFU {}, communication {}, MoE expert reads {}",
                  format_number(e.prefill_compute, 3), format_number(e.decode_bandwidth, 3),
                  format_number(e.training_mfu, 3), format_number(e.communication, 3),
                  format_number(e.expert_read, 2)),
  });
  if (e.decode_sequence_layer_s > 0.0)
    table.add_row({"per-sequence decode", fmt::format("{} µs per sequence per layer at TP ≥ 2",
                                                      format_number(e.decode_sequence_layer_s * 1e6, 3))});
  table.add_row({"efficiency provenance", e.provenance_with_expert_reads()});
  table.add_row({"purchase estimate",
                 gpu.purchase_usd > 0.0 ? fmt::format("{} USD per GPU [{}]",
                                                      format_number(gpu.purchase_usd, 0), gpu.purchase_source)
                                        : "unknown"});
  return table;
}

// "p5.48xlarge (8)", "a2-highgpu (1/2/4/8)", or "per GPU (assumed)" when the shape is unknown.
std::string instance_text(const PriceQuote& q) {
  if (q.gpus_per_instance.empty()) return "per GPU (assumed)";
  return fmt::format("{} ({})", q.instance, fmt::join(q.gpus_per_instance, "/"));
}

Table quote_table(const app::GpuSheet& sheet) {
  const Gpu& gpu = *sheet.gpu;
  Table table({{"provider"},
               {"kind"},
               {"$/GPU-h", Align::right},
               {"instance (GPUs)"},
               {"date"},
               {"source"},
               {"in median"}});
  for (std::size_t i = 0; i < gpu.prices.size(); ++i) {
    const PriceQuote& q = gpu.prices[i];
    table.add_row(
        {q.provider, q.spot ? "spot" : "on-demand", format_price(q.usd_per_hour), instance_text(q),
         q.date.empty() ? "undated" : q.date, q.source,
         sheet.quote_in_median[i] ? "yes" : fmt::format("no (>{} days older)", k_price_window_days)});
  }
  return table;
}

std::string tco_text(const LoadedCatalog& loaded, const app::GpuSheet& sheet, int width) {
  const Gpu& gpu = *sheet.gpu;
  const TcoParams& p = loaded.tco;
  const TcoResult& tco = *sheet.tco;
  std::string out = fmt::format(
      "\non-prem TCO (methodology §6.4): purchase {} USD per GPU [{}], server overhead {}, {} years, cost of "
      "capital {}, PUE {}, {} USD/kWh, power {} of TDP, ops {} of capital per year\n",
      format_number(gpu.purchase_usd, 0), gpu.purchase_source, format_number(p.server_overhead_fraction, 3),
      format_number(p.amortization_years, 2), format_number(p.cost_of_capital, 3),
      format_number(p.power_usage_effectiveness, 3), format_number(p.usd_per_kwh, 3),
      format_number(p.power_fraction_of_tdp, 3), format_number(p.ops_fraction_per_year, 3));
  Table table({{"item"}, {"USD", Align::right}});
  table.add_row({"capex per year", format_number(tco.capex_usd_per_year, 2)});
  table.add_row({"power per year", format_number(tco.power_usd_per_year, 2)});
  table.add_row({"ops per year", format_number(tco.ops_usd_per_year, 2)});
  table.add_row({"per GPU-hour at 100 % allocation", format_price(tco.usd_per_gpu_hour)});
  table.add_row(
      {fmt::format("per useful GPU-hour at {} % utilization", format_number(p.utilization * 100.0, 1)),
       format_price(tco.usd_per_useful_gpu_hour)});
  out += table.render_text(width);
  const ResolvedPrice& cloud = sheet.cloud_reference;
  if (sheet.break_even_utilization) {
    const double u = *sheet.break_even_utilization;
    out += fmt::format("break-even utilization vs on-demand {} USD/GPU-h: {} %{}\n",
                       format_price(cloud.usd_per_hour), format_number(u * 100.0, 1),
                       u > 1.0 ? " (owning never pays off)" : "");
  }
  return out;
}

} // namespace

std::string format_price(double usd) {
  std::string out = format_number(usd, 3);
  const auto dot = out.find('.');
  if (dot == std::string::npos) return out + ".00";
  if (out.size() - dot == 2) out += '0';
  return out;
}

std::string price_cell(const ResolvedPrice& price) {
  return price.known ? format_price(price.usd_per_hour) : "n/a (" + price.basis + ")";
}

nlohmann::json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return std::round(value * 1e4) / 1e4;
}

nlohmann::json json_tflops(const Gpu& gpu, MathDtype dtype) {
  return gpu.supports(dtype) ? json_number(gpu.tflops(dtype)) : nlohmann::json();
}

nlohmann::json price_json(const ResolvedPrice& price) {
  return {{"known", price.known},
          {"usd_per_gpu_hour", price.known ? json_number(price.usd_per_hour) : nlohmann::json()},
          {"basis", price.basis},
          {"date", price.date.empty() ? nlohmann::json() : nlohmann::json(price.date)}};
}

namespace {

// A GPU's price quotes, each marked whether the median price uses it.
nlohmann::json quotes_json(const Gpu& gpu, const app::GpuSheet& sheet) {
  nlohmann::json quotes = nlohmann::json::array();
  for (const auto& q : gpu.prices) {
    quotes.push_back(
        {{"provider", q.provider},
         {"usd_per_hour", json_number(q.usd_per_hour)},
         {"spot", q.spot},
         {"date", q.date.empty() ? nlohmann::json() : nlohmann::json(q.date)},
         {"source", q.source},
         {"instance", q.instance.empty() ? nlohmann::json() : nlohmann::json(q.instance)},
         {"gpus_per_instance",
          q.gpus_per_instance.empty() ? nlohmann::json() : nlohmann::json(q.gpus_per_instance)},
         {"instance_source",
          q.instance_source.empty() ? nlohmann::json() : nlohmann::json(q.instance_source)},
         {"in_median", sheet.quote_in_median[static_cast<std::size_t>(&q - gpu.prices.data())]}});
  }
  return quotes;
}

// Owning the GPU against renting it (methodology §6.4 TCO), null without on-prem figures.
nlohmann::json tco_json(const LoadedCatalog& loaded, const app::GpuSheet& sheet) {
  if (!sheet.tco) return nullptr;
  const TcoResult& tco = *sheet.tco;
  const ResolvedPrice& cloud = sheet.cloud_reference;
  return {{"capex_usd_per_year", json_number(tco.capex_usd_per_year)},
          {"power_usd_per_year", json_number(tco.power_usd_per_year)},
          {"ops_usd_per_year", json_number(tco.ops_usd_per_year)},
          {"usd_per_gpu_hour", json_number(tco.usd_per_gpu_hour)},
          {"usd_per_useful_gpu_hour", json_number(tco.usd_per_useful_gpu_hour)},
          {"utilization", json_number(loaded.tco.utilization)},
          {"break_even_utilization",
           sheet.break_even_utilization ? json_number(*sheet.break_even_utilization) : nlohmann::json()},
          {"break_even_against_usd_per_gpu_hour",
           cloud.known ? json_number(cloud.usd_per_hour) : nlohmann::json()}};
}

} // namespace

nlohmann::json show_json(const LoadedCatalog& loaded, const app::GpuSheet& sheet) {
  const Gpu& gpu = *sheet.gpu;
  const auto optional = [](double v) { return v > 0.0 ? json_number(v) : nlohmann::json(); };
  nlohmann::json g = {{"id", gpu.id},
                      {"aliases", gpu.aliases},
                      {"name", gpu.name},
                      {"vendor", gpu.vendor},
                      {"architecture", gpu.architecture},
                      {"class", to_string(gpu.gpu_class)},
                      {"form_factor", gpu.form_factor},
                      {"spec_sources", gpu.spec_sources},
                      {"confidence", gpu.confidence},
                      {"notes", gpu.notes}};
  g["release_year"] = gpu.release_year > 0 ? nlohmann::json(gpu.release_year) : nlohmann::json();
  g["memory_gb"] = json_number(gpu.memory_bytes / k_bytes_per_gb);
  g["memory_gib"] = json_number(gpu.memory_bytes / k_bytes_per_gib);
  g["memory_type"] = gpu.memory_type;
  g["visible_memory_bytes"] = json_number(gpu.visible_memory());
  g["memory_bandwidth_gb_per_s"] = json_number(gpu.memory_bandwidth_gb_per_s);
  g["dense_tflops"] = nlohmann::json::object();
  for (const MathDtype dtype : k_dtypes)
    g["dense_tflops"][std::string(math_dtype_name(dtype))] = json_tflops(gpu, dtype);
  g["tdp_watts"] = json_number(gpu.tdp_watts);
  g["pcie_generation"] = gpu.pcie_generation > 0 ? nlohmann::json(gpu.pcie_generation) : nlohmann::json();
  g["pcie_gb_per_s"] = optional(gpu.pcie_gb_per_s);
  g["scaleup_link"] = gpu.scaleup_link.empty() ? nlohmann::json() : nlohmann::json(gpu.scaleup_link);
  g["scaleup_gb_per_s"] = json_number(gpu.scaleup_gb_per_s);
  g["scaleup_domain_gpus"] = gpu.scaleup_domain_gpus;
  g["gpus_per_node"] = gpu.gpus_per_node;
  g["nic_gb_per_s"] = optional(gpu.nic_gb_per_s);
  if (gpu.host_link_gb_per_s > 0.0) {
    g["host_link"] = host_link_name(gpu);
    g["host_link_gb_per_s"] = json_number(gpu.host_link_gb_per_s);
  }
  const GpuEfficiency& e = gpu.efficiency;
  g["efficiency"] = {{"prefill_compute", json_number(e.prefill_compute)},
                     {"decode_bandwidth", json_number(e.decode_bandwidth)},
                     {"training_mfu", json_number(e.training_mfu)},
                     {"communication", json_number(e.communication)},
                     {"expert_read", json_number(e.expert_read)},
                     {"decode_sequence_layer_s", json_number(e.decode_sequence_layer_s)},
                     {"provenance", e.provenance_with_expert_reads()}};
  g["prices"] = quotes_json(gpu, sheet);
  g["purchase_usd"] = optional(gpu.purchase_usd);
  g["purchase_source"] = gpu.purchase_source.empty() ? nlohmann::json() : nlohmann::json(gpu.purchase_source);

  nlohmann::json out = {
      {"schema_version", 1}, {"gpu", std::move(g)}, {"prices_as_of", loaded.catalog.prices_as_of}};
  out["price"] = {{"pricing", to_string(loaded.pricing)},
                  {"provider", loaded.provider.empty() ? nlohmann::json() : nlohmann::json(loaded.provider)},
                  {"selected", price_json(sheet.selected)},
                  {"on_demand", price_json(sheet.on_demand)},
                  {"spot", price_json(sheet.spot)},
                  {"on_prem", price_json(sheet.on_prem)}};
  out["tco"] = tco_json(loaded, sheet);
  out["sources"] = nlohmann::json::object();
  for (const auto& tag : sheet.source_tags)
    out["sources"][tag] = loaded.catalog.sources.at(tag);
  return out;
}

std::string show_text(const LoadedCatalog& loaded, const app::GpuSheet& sheet, int width, bool color) {
  const Gpu& gpu = *sheet.gpu;
  std::string out = fmt::format("{}: {}\n\n", gpu.id, gpu.name);
  out += fmt::format("spec figures from sources {} (confidence {}; gpu-specs.md conventions)\n\n",
                     join(gpu.spec_sources), gpu.confidence);
  out += field_table(gpu).render_text(width, color);
  out += "\nprice quotes, USD per GPU-hour (median of provider medians over quotes marked 'in median')\n";
  out += gpu.prices.empty() ? "none in the catalog\n" : quote_table(sheet).render_text(width, color);
  const std::string provider = loaded.provider.empty() ? "" : ", provider " + loaded.provider;
  out += fmt::format("\non-demand: {}\nspot: {}\non-prem: {}\nselected ({}{}): {}\n",
                     price_text(sheet.on_demand), price_text(sheet.spot), price_text(sheet.on_prem),
                     to_string(loaded.pricing), provider, price_text(sheet.selected));
  if (sheet.tco) out += tco_text(loaded, sheet, width);
  if (!gpu.notes.empty()) {
    out += "\nnotes\n";
    for (const auto& note : gpu.notes)
      out += "- " + note + "\n";
  }
  out += "\nsources\n";
  for (const auto& tag : sheet.source_tags)
    out += fmt::format("{}: {}\n", tag, loaded.catalog.sources.at(tag));
  return out;
}

} // namespace rightsize::cli
