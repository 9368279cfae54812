// The shipped catalog against the reference sheet, and the catalog loader's validation.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "io/catalog/catalog_io.hpp"
#include "io/json/json_reader.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"

using namespace rightsize;

namespace {

const std::string k_catalog = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";
const std::string k_fixtures = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/catalog/";

const io::Catalog& shipped() {
  static const io::Catalog catalog = io::load_catalog(k_catalog);
  return catalog;
}

const Gpu& gpu(const char* id) {
  const Gpu* g = io::find_gpu(shipped(), id);
  REQUIRE(g != nullptr);
  return *g;
}

// Every error message of a file that must fail, "pointer: message" each.
std::vector<std::string> errors_of(const std::string& path, const io::Catalog* base = nullptr) {
  std::vector<std::string> out;
  try {
    if (base != nullptr) {
      io::Catalog copy = *base;
      io::overlay_catalog(copy, path);
    } else {
      (void)io::load_catalog(path);
    }
  } catch (const ErrorList& list) {
    for (const auto& e : list.errors())
      out.push_back(e.pointer() + ": " + e.message());
  }
  return out;
}

struct SheetRow {
  const char* id;
  double memory_gb;
  double bandwidth_gb_per_s;
  double bf16_dense_tflops;
  double fp8_dense_tflops; // 0 = no FP8 (Ampere)
};

} // namespace

TEST_CASE("core GPUs match the reference sheet", "[io]") {
  // gpu-specs.md §1 "Core summary" (and §2/§3 for the NVL/H200 rows): memory GB, bandwidth GB/s,
  // BF16 and FP8 dense TFLOPS, typed in by hand from the sheet.
  const SheetRow rows[] = {
      {"A100-80GB-SXM", 80, 2039, 312, 0},   {"A100-80GB-PCIE", 80, 1935, 312, 0},
      {"A100-40GB-SXM", 40, 1555, 312, 0},   {"H100-SXM", 80, 3350, 989.5, 1979},
      {"H100-PCIE", 80, 2000, 756.5, 1513},  {"H100-NVL", 94, 3900, 835.5, 1670.5},
      {"H200-SXM", 141, 4800, 989.5, 1979},  {"H200-NVL", 141, 4800, 835.5, 1670.5},
      {"L4", 24, 300, 121, 242.5},           {"L40S", 48, 864, 362.05, 733},
      {"MI300X", 192, 5300, 1307.4, 2614.9}, {"B200", 180, 7700, 2250, 4500},
  };
  for (const auto& row : rows) {
    INFO(row.id);
    const Gpu& g = gpu(row.id);
    CHECK(g.memory_bytes == row.memory_gb * 1e9);
    CHECK(g.memory_bandwidth_gb_per_s == row.bandwidth_gb_per_s);
    CHECK(g.tflops(MathDtype::bf16) == row.bf16_dense_tflops);
    CHECK(g.tflops(MathDtype::fp8) == row.fp8_dense_tflops);
  }
}

TEST_CASE("links are per direction and dense peaks are half the sparse datasheet figures", "[io]") {
  // gpu-specs.md §3a: NVLink 4 900 GB/s bidirectional = 450 per direction; PCIe Gen5 x16 64.
  CHECK(gpu("H100-SXM").scaleup_gb_per_s == 450);
  CHECK(gpu("H100-SXM").pcie_gb_per_s == 64);
  CHECK(gpu("A100-80GB-SXM").scaleup_gb_per_s == 300);
  CHECK(gpu("B200").scaleup_gb_per_s == 900);
  CHECK(gpu("MI300X").scaleup_gb_per_s == 448);
  CHECK(gpu("L40S").scaleup_gb_per_s == 0);
  CHECK(gpu("H100-SXM").nic_gb_per_s == 50); // NDR 400 Gb/s
  CHECK(gpu("H100-SXM").tdp_watts == 700);
  CHECK_FALSE(gpu("A100-80GB-SXM").supports(MathDtype::fp8));
  CHECK_FALSE(gpu("A10G").supports(MathDtype::bf16)); // unknown in the sheet: left out
}

TEST_CASE("on-demand medians reproduce the sheet's median of provider medians", "[io]") {
  // gpu-specs.md §1 / §4a "Median of provider medians" column.
  const std::pair<const char*, double> rows[] = {
      {"A100-80GB-SXM", 2.70}, {"A100-80GB-PCIE", 1.57},
      {"H100-SXM", 4.32},      {"H100-PCIE", 2.70},
      {"H100-NVL", 2.89},      {"H200-SXM", 5.40},
      {"H200-NVL", 3.79},      {"L4", 0.80},
      {"L40S", 1.50},          {"MI300X", 4.72},
      {"B200", 7.99},          {"B300", 9.25},
      {"RTX-6000-ADA", 0.89},  {"A10", 1.65},
      {"RTX-4090", 0.37},
  };
  for (const auto& [id, usd] : rows) {
    INFO(id);
    const ResolvedPrice p = resolve_price(gpu(id), PricingModel::on_demand, "", TcoParams{});
    REQUIRE(p.known);
    CHECK(p.usd_per_hour == Approx(usd).margin(0.0051));
  }
  // The sheet's A100 40GB 2.64 mixes PCIe rows and all-region medians; the SXM entry uses US figures.
  CHECK(resolve_price(gpu("A100-40GB-SXM"), PricingModel::on_demand, "", TcoParams{}).usd_per_hour == 2.74);
  CHECK(resolve_price(gpu("H100-SXM"), PricingModel::on_demand, "", TcoParams{}).basis ==
        "median of 12 providers");
  CHECK_FALSE(resolve_price(gpu("L40"), PricingModel::spot, "", TcoParams{}).known);
}

TEST_CASE("the shipped catalog is sorted, dated and sourced", "[io]") {
  const io::Catalog& c = shipped();
  CHECK(c.schema_version == 1);
  CHECK(c.prices_as_of == "2026-10-10");
  CHECK(c.gpus.size() == 27);
  for (std::size_t i = 1; i < c.gpus.size(); ++i)
    CHECK(c.gpus[i - 1].id < c.gpus[i].id);
  for (const auto& g : c.gpus) {
    INFO(g.id);
    CHECK_FALSE(g.spec_sources.empty());
    CHECK(g.efficiency.provenance.rfind("defaults: methodology §4.5", 0) == 0);
    CHECK_FALSE(g.efficiency.entry_measured); // "source": "defaults": data/calibration.json replaces them
    for (const auto& q : g.prices)
      CHECK(c.sources.count(q.source) == 1);
  }
  CHECK(gpu("H100-SXM").purchase_usd == 27'500); // midpoint of $25,000-30,000 (§4c)
}

TEST_CASE("GPUs are found by id or alias, case-insensitively", "[io]") {
  CHECK(io::find_gpu(shipped(), "h100")->id == "H100-SXM");
  CHECK(io::find_gpu(shipped(), "H100")->id == "H100-SXM");
  CHECK(io::find_gpu(shipped(), "h100-pcie")->id == "H100-PCIE");
  CHECK(io::find_gpu(shipped(), "a100")->id == "A100-80GB-SXM");
  CHECK(io::find_gpu(shipped(), "h200")->id == "H200-SXM");
  CHECK(io::find_gpu(shipped(), "b200")->id == "B200");
  CHECK(io::find_gpu(shipped(), "MI300X")->id == "MI300X");
  CHECK(io::find_gpu(shipped(), "l40s")->id == "L40S");
  CHECK(io::find_gpu(shipped(), "H100-SMX") == nullptr);
  CHECK(did_you_mean("H100-SMX", io::gpu_ids(shipped())) == "H100-SXM");
  CHECK(did_you_mean("MI3OOX", io::gpu_ids(shipped())) == "MI300X");
  // Edit distance decides; a substring does not ("L4" is inside "L40SS", "H200" starts with "H20").
  CHECK(did_you_mean("L40SS", io::gpu_ids(shipped())) == "L40S");
  CHECK(did_you_mean("H20", io::gpu_ids(shipped())).empty());
  CHECK(did_you_mean("h100", {"H100-SXM", "H200-SXM"}) == "H100-SXM"); // a whole leading token
}

TEST_CASE("a bad catalog reports every error with its pointer", "[io]") {
  CHECK(errors_of(k_fixtures + "bad_malformed.json") ==
        std::vector<std::string>{": malformed JSON at line 6, column 3"});
  CHECK(errors_of(k_fixtures + "bad_wrong_type.json") ==
        std::vector<std::string>{"/gpus/0/memory_gb: expected a positive number, got \"80\""});
  CHECK(errors_of(k_fixtures + "bad_negative_memory.json") ==
        std::vector<std::string>{"/gpus/0/memory_gb: expected a positive number, got -80"});
  CHECK(
      errors_of(k_fixtures + "bad_fp8_below_bf16.json") ==
      std::vector<std::string>{"/gpus/0/dense_tflops/fp8: expected at least the bf16 figure (500), got 250"});
  CHECK(errors_of(k_fixtures + "bad_duplicate_id.json") ==
        std::vector<std::string>{"/gpus/1/id: duplicate id \"TEST-GPU\""});
  CHECK(errors_of(k_fixtures + "bad_unknown_key.json") ==
        std::vector<std::string>{"/gpus/0/memroy_gb: unknown key \"memroy_gb\"; did you mean \"memory_gb\"?",
                                 "/gpus/0/memory_gb: missing required key"});
  CHECK(errors_of(k_fixtures + "bad_several.json") ==
        std::vector<std::string>{
            "/gpus/0/memory_bandwidth_gb_per_s: expected a number at most 20000, got 2000000",
            "/gpus/0/tdp_watts: missing required key",
            "/gpus/0/prices/0/date: expected a date YYYY-MM-DD, got \"2026-13-01\"",
            "/gpus/0/confidence: unknown value \"high\" (expected one of \"H\", \"M\", \"L\")",
            "/gpus/0/dense_tflops/bf16: expected at least the fp32 figure (50), got 20",
            "/gpus/1/aliases/0: \"tg\" is already used by \"TEST-GPU\"",
            "/gpus/0/prices/0/source: unknown source tag \"EE\"; did you mean \"E\"?",
        });
}

TEST_CASE("an overlay changes given fields of known GPUs and adds complete new ones", "[io]") {
  io::Catalog c = shipped();
  io::overlay_catalog(c, k_fixtures + "overlay_prices.json");
  CHECK(c.gpus.size() == 28);
  CHECK(c.prices_as_of == "2026-11-01");
  const Gpu* h100 = io::find_gpu(c, "h100");
  REQUIRE(h100 != nullptr);
  CHECK(h100->id == "H100-SXM"); // the overlay says "h100-sxm"
  REQUIRE(h100->prices.size() == 1);
  CHECK(h100->prices[0].provider == "acme");
  CHECK(h100->memory_bandwidth_gb_per_s == 3350); // untouched fields stay
  CHECK(h100->aliases == gpu("H100-SXM").aliases);
  const Gpu* added = io::find_gpu(c, "test-gpu");
  REQUIRE(added != nullptr);
  CHECK(added->gpus_per_node == 1); // not given: no multi-GPU node assumed
  CHECK(added->prices.empty());

  CHECK(errors_of(k_fixtures + "bad_overlay_partial_new.json", &shipped()) ==
        std::vector<std::string>{
            "/gpus/1/name: missing required key",
            "/gpus/1/vendor: missing required key",
            "/gpus/1/architecture: missing required key",
            "/gpus/1/memory_bandwidth_gb_per_s: missing required key",
            "/gpus/1/dense_tflops: missing required key",
            "/gpus/1/tdp_watts: missing required key",
            "/gpus/1/form_factor: missing required key",
            "/gpus/1/spec_sources: missing required key",
            "/gpus/1/confidence: missing required key",
            "/gpus/0/aliases/0: \"l4\" is already used by \"L4\"",
        });
}

TEST_CASE("an efficiency block is the entry's own unless its source says defaults (docs/catalog.md)",
          "[io]") {
  io::Catalog c = shipped();
  io::overlay_catalog(c, k_fixtures + "overlay_efficiency.json");
  const Gpu* own = io::find_gpu(c, "H100-SXM");
  const Gpu* defaults = io::find_gpu(c, "H200-SXM");
  REQUIRE(own != nullptr);
  REQUIRE(defaults != nullptr);
  CHECK(own->efficiency.entry_measured); // no source: an entry that states factors means them
  CHECK(own->efficiency.decode_bandwidth == Approx(0.5));
  CHECK_FALSE(defaults->efficiency.entry_measured);
  CHECK(errors_of(k_fixtures + "bad_efficiency_source.json", &shipped()) ==
        std::vector<std::string>{
            "/gpus/0/efficiency/source: unknown value \"lab\" (expected one of \"defaults\", \"measured\")"});
}

namespace {

// Every error of an in-memory parse ("pointer: message"), or the GPU ids of the result.
std::vector<std::string> document_outcome(const std::string& path, const io::Catalog* base) {
  std::vector<std::string> out;
  try {
    const nlohmann::json doc = io::read_json_file(path);
    io::Catalog c = base != nullptr ? *base : io::Catalog{};
    if (base != nullptr) {
      io::overlay_catalog_document(c, doc, path);
    } else {
      c = io::parse_catalog(doc, path);
    }
    for (const auto& g : c.gpus)
      out.push_back(g.id + " " + std::to_string(g.prices.size()) + " " + c.prices_as_of);
  } catch (const ErrorList& list) {
    for (const auto& e : list.errors())
      out.push_back(e.pointer() + ": " + e.message());
  } catch (const Error& e) {
    out.push_back(e.pointer() + ": " + e.message()); // a syntax error: read_json_file throws it alone
  }
  return out;
}

// The same from the file loaders, which read "gpus" element by element while parsing.
std::vector<std::string> file_outcome(const std::string& path, const io::Catalog* base) {
  std::vector<std::string> out = errors_of(path, base);
  if (!out.empty()) return out;
  io::Catalog c = base != nullptr ? *base : io::Catalog{};
  if (base != nullptr) {
    io::overlay_catalog(c, path);
  } else {
    c = io::load_catalog(path);
  }
  for (const auto& g : c.gpus)
    out.push_back(g.id + " " + std::to_string(g.prices.size()) + " " + c.prices_as_of);
  return out;
}

} // namespace

TEST_CASE("a catalog file read element by element gives what its whole document gives", "[io]") {
  // load_catalog streams the "gpus" array (issue 22: a 40,000-GPU catalog); parse_catalog gets the
  // whole tree. Results and every error, in order, must agree.
  CHECK(file_outcome(k_catalog, nullptr) == document_outcome(k_catalog, nullptr));
  CHECK(file_outcome(k_catalog, nullptr).size() == shipped().gpus.size());
  for (const char* name :
       {"bad_malformed.json", "bad_wrong_type.json", "bad_negative_memory.json", "bad_fp8_below_bf16.json",
        "bad_duplicate_id.json", "bad_unknown_key.json", "bad_several.json", "good_minimal.json"}) {
    INFO(name);
    CHECK(file_outcome(k_fixtures + name, nullptr) == document_outcome(k_fixtures + name, nullptr));
  }
  for (const char* name : {"overlay_prices.json", "bad_overlay_partial_new.json"}) {
    INFO(name);
    CHECK(file_outcome(k_fixtures + name, &shipped()) == document_outcome(k_fixtures + name, &shipped()));
  }
}
