// `catalog list` as a table, CSV, markdown or a JSON document, and the dispatch of both catalog
// outputs (the `show` sheet is catalog_render.cpp's), formatted from the use case's outcome
// (src/app/catalog.hpp).
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/json/json_text.hpp"
#include "render/catalog_render.hpp"
#include "render/table.hpp"
#include "render/terminal.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

std::string tflops_cell(const Gpu& gpu, MathDtype dtype) {
  return gpu.supports(dtype) ? format_number(gpu.tflops(dtype), 2) : "-";
}

nlohmann::json list_json(const LoadedCatalog& loaded, const std::vector<app::CatalogRow>& rows) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& [gpu_ptr, price] : rows) {
    const Gpu& gpu = *gpu_ptr;
    nlohmann::json row = {{"id", gpu.id}, {"name", gpu.name}};
    row["memory_gb"] = json_number(gpu.memory_bytes / k_bytes_per_gb);
    row["memory_bandwidth_gb_per_s"] = json_number(gpu.memory_bandwidth_gb_per_s);
    row["bf16_dense_tflops"] = json_tflops(gpu, MathDtype::bf16);
    row["fp8_dense_tflops"] = json_tflops(gpu, MathDtype::fp8);
    row["price"] = price_json(price);
    gpus.push_back(std::move(row));
  }
  return {{"schema_version", 1},
          {"prices_as_of", loaded.catalog.prices_as_of},
          {"pricing", to_string(loaded.pricing)},
          {"provider", loaded.provider.empty() ? nlohmann::json() : nlohmann::json(loaded.provider)},
          {"gpus", std::move(gpus)}};
}

Table list_table(const std::vector<app::CatalogRow>& rows, bool machine_headers) {
  Table table({{machine_headers ? "id" : "GPU"},
               {machine_headers ? "memory_gb" : "mem GB", Align::right},
               {machine_headers ? "memory_bandwidth_gb_per_s" : "BW GB/s", Align::right},
               {machine_headers ? "bf16_dense_tflops" : "bf16 TF", Align::right},
               {machine_headers ? "fp8_dense_tflops" : "fp8 TF", Align::right},
               {machine_headers ? "usd_per_gpu_hour" : "$/GPU-h", Align::right},
               {machine_headers ? "price_date" : "date"},
               {machine_headers ? "price_basis" : "basis", Align::left, true}});
  for (const auto& [gpu_ptr, price] : rows) {
    const Gpu& gpu = *gpu_ptr;
    std::string price_text = price_cell(price);
    std::string fp8 = tflops_cell(gpu, MathDtype::fp8);
    if (machine_headers) {
      // CSV: empty cells for unknown values, so the columns stay numeric.
      price_text = price.known ? price_text : "";
      fp8 = gpu.supports(MathDtype::fp8) ? fp8 : "";
    }
    const std::string blank = machine_headers ? "" : "-";
    table.add_row({gpu.id, format_number(gpu.memory_bytes / k_bytes_per_gb, 2),
                   format_number(gpu.memory_bandwidth_gb_per_s, 2), tflops_cell(gpu, MathDtype::bf16), fp8,
                   price_text, price.known && !price.date.empty() ? price.date : blank,
                   price.known || machine_headers ? price.basis : blank});
  }
  return table;
}

void render_list(const app::CatalogOutcome& outcome, Format format) {
  const LoadedCatalog& loaded = outcome.catalog;
  if (format == Format::json) {
    fmt::print("{}\n", io::json_text(list_json(loaded, outcome.rows)));
    return;
  }
  if (format == Format::csv) {
    std::fputs(list_table(outcome.rows, true).render_csv().c_str(), stdout);
    return;
  }
  const TableStyle style = format == Format::markdown ? TableStyle::markdown : TableStyle::text;
  std::fputs(list_table(outcome.rows, false).render(style, terminal_width(), use_color()).c_str(), stdout);
  if (style == TableStyle::text) {
    fmt::print("\nprices: {}{}, USD per GPU-hour; catalog prices as of {}\n"
               "mem GB as the vendor states it (HBM/GDDR parts are binary: 80 means 80 GiB; estimates budget "
               "against the memory the runtime sees, catalog show); bandwidth per GPU; TF = dense TFLOPS (no "
               "sparsity)\n",
               to_string(loaded.pricing), loaded.provider.empty() ? "" : ", provider " + loaded.provider,
               loaded.catalog.prices_as_of);
  }
}

} // namespace

void render_catalog(const app::CatalogOutcome& outcome, Format format) {
  if (!outcome.sheet) {
    render_list(outcome, format);
    return;
  }
  if (format == Format::json) {
    fmt::print("{}\n", io::json_text(show_json(outcome.catalog, *outcome.sheet)));
  } else {
    std::fputs(show_text(outcome.catalog, *outcome.sheet, terminal_width(), use_color()).c_str(), stdout);
  }
}

} // namespace rightsize::cli
