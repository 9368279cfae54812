#pragma once
// Renderers for catalog output (cmd_catalog.cpp) and JSON helpers other commands reuse for prices.
#include <string>

#include <nlohmann/json.hpp>

#include "app/catalog.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"

namespace rightsize::cli {

/// USD text for a price per GPU-hour: 2 or 3 decimals ("2.70", "0.805", "4.32").
std::string format_price(double usd);
/// A price cell: format_price, or "n/a (<why>)" when unknown ("n/a (no spot price)").
std::string price_cell(const ResolvedPrice& price);

/// A number rounded to 4 decimals for JSON output, so dumps are short and stable.
nlohmann::json json_number(double value);
/// A dense peak in TFLOP/s, or null when the GPU lacks the dtype.
nlohmann::json json_tflops(const Gpu& gpu, MathDtype dtype);
/// {"known", "usd_per_gpu_hour" (null when unknown), "basis", "date" (null when none)}.
nlohmann::json price_json(const ResolvedPrice& price);

/// Every field of one GPU, its quotes, resolved prices and on-prem TCO, as JSON (schema_version 1).
nlohmann::json show_json(const LoadedCatalog& loaded, const app::GpuSheet& sheet);
/// The same as text: a field table with source tags, a price table, TCO, notes and sources.
std::string show_text(const LoadedCatalog& loaded, const app::GpuSheet& sheet, int width, bool color);

/// Prints `catalog list`'s rows (table, json, csv or markdown) or `catalog show`'s sheet (table or json).
void render_catalog(const app::CatalogOutcome& outcome, Format format);

} // namespace rightsize::cli
