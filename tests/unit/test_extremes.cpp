// Numeric robustness: extreme but valid inputs give finite answers; absurd ones are refused by the
// io layer with a reason before any 64-bit count can overflow; hostile files end in clean errors.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/search.hpp"
#include <sys/stat.h>

using namespace rightsize;
using namespace rightsize::test;
namespace fs = std::filesystem;

namespace {

std::string models_dir() {
  return std::string(RIGHTSIZE_DATA_DIR) + "/models";
}

std::string spec_error(const nlohmann::json& doc) {
  try {
    (void)io::parse_spec(doc, "s.json", "", models_dir());
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

bool finite_estimate(const InferenceEstimate& e) {
  for (double v : {e.memory.per_gpu_bytes, e.memory.kv_cache_bytes, e.memory.weights_bytes, e.ttft_s,
                   e.tpot_s, e.e2e_s, e.prefill_s, e.output_tokens_per_s, e.requests_per_s,
                   e.usd_per_million_output_tokens, e.usd_per_request}) {
    if (!std::isfinite(v) || v < 0.0) return false;
  }
  return true;
}

nlohmann::json architecture(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t ffn) {
  return {{"model",
           {{"layers", layers},
            {"hidden_size", hidden},
            {"heads", heads},
            {"ffn_size", ffn},
            {"vocab_size", 128000}}}};
}

} // namespace

TEST_CASE("a 10T-parameter model is answered: finite, does not fit one GPU, capacity-bound", "[core]") {
  const Spec spec = io::parse_spec({{"model", {{"params", 1e13}}}}, "s.json", "", models_dir());
  CHECK(count_params(spec.model).total == 10'000'000'000'000);
  const PreparedModel pm = prepare_model(spec.model, spec.precision);
  CHECK(pm.weight_bytes_total == Approx(2e13).epsilon(0.01));
  Deployment d8;
  d8.gpus = 8;
  d8.tp = 8;
  InferenceWorkload w;
  const InferenceEstimate e = estimate_inference(pm, w, h100_sxm(), d8, EngineConfig{}, nullptr, 4.0);
  CHECK(finite_estimate(e));
  CHECK_FALSE(e.memory.fits);
  CHECK(e.bound == Bound::capacity);
  CHECK(e.max_concurrency == 0);
}

TEST_CASE("a 10M-token context at a million concurrent requests stays finite", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 9'000'000;
  w.output_tokens = 1'000'000;
  w.max_context = 10'000'000;
  w.concurrency = 1'000'000;
  const InferenceEstimate e =
      estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 4.0);
  CHECK(finite_estimate(e));
  CHECK_FALSE(e.memory.fits);
  // 1e6 sequences x 10,000,000 tokens x 131,072 bytes per token (methodology §2.3).
  CHECK(e.memory.kv_cache_bytes == Approx(1e6 * 1e7 * 131072.0).epsilon(1e-6));
  w.concurrency = 0; // auto: nothing fits, concurrency falls back to 1
  const InferenceEstimate a =
      estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 4.0);
  CHECK(finite_estimate(a));
  CHECK(a.concurrency == 1);
}

TEST_CASE("a tiny model on a large GPU at the concurrency cap stays finite", "[core]") {
  ModelSpec m = llama31_8b();
  m.layers = 1;
  m.hidden_size = 64;
  m.heads = 1;
  m.kv_heads = 1;
  m.head_dim = 64;
  m.ffn_size = 64;
  m.vocab_size = 1000;
  const PreparedModel pm = prepare_model(m, Precision{});
  InferenceWorkload w;
  w.input_tokens = 1;
  w.output_tokens = 1;
  const InferenceEstimate e =
      estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 4.0);
  CHECK(finite_estimate(e));
  CHECK(e.memory.fits);
  CHECK(e.concurrency == EngineConfig{}.max_num_seqs);
}

TEST_CASE("experts_touched and collective_time_s at their edges", "[core]") {
  CHECK(experts_touched(0.0, 2.0, 100.0) == 0.0);
  CHECK(experts_touched(8.0, 2.0, 0.0) == 0.0);
  CHECK(experts_touched(8.0, 2.0, 1.0) == Approx(2.0));
  CHECK(experts_touched(8.0, 2.0, 1e12) == Approx(8.0));
  // k > E (never valid from a spec) saturates instead of taking a fractional power of a negative.
  CHECK(experts_touched(4.0, 8.0, 2.5) == Approx(4.0));
  CHECK(collective_time_s(1e30, 1, 450.0, 0.75, 1e-6, 5e-6, true) == 0.0);
  CHECK(std::isfinite(collective_time_s(1e30, 1024, 450.0, 0.75, 1e-6, 5e-6, true)));
}

TEST_CASE("architectures past 10T parameters are refused before they can overflow", "[io]") {
  // 1000 x (4·1e12 attention + 3·1e12 FFN) would overflow int64 in count_params.
  CHECK(
      spec_error(architecture(1000, 1'000'000, 1000, 1'000'000)) ==
      "s.json: /model: expected an architecture of at most 10,000,000,000,000 parameters (more parameters is "
      "absurd), got about 7e+15");
  // 96 x 12·65536² ≈ 4.9T: large but valid, counted exactly.
  const Spec big =
      io::parse_spec(architecture(96, 65536, 512, std::int64_t{4} * 65536), "s.json", "", models_dir());
  const ParamCounts c = count_params(big.model);
  CHECK(c.total > 4'900'000'000'000);
  CHECK(c.total < 10'000'000'000'000);
  CHECK(std::isfinite(prepare_model(big.model, big.precision).weight_bytes_total));
}

TEST_CASE("a FIFO or a device is refused without blocking", "[io]") {
  const fs::path dir = fs::temp_directory_path() / "rightsize_test_fifo";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string fifo = (dir / "spec.json").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  try {
    (void)io::read_text_file(fifo);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "expected a regular file, got a pipe, socket or device");
  }
  try {
    (void)io::read_text_file("/dev/zero");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "expected a regular file, got a pipe, socket or device");
  }
  fs::remove_all(dir);
}

TEST_CASE("safetensors in memory: hostile shapes and sizes end in clean errors", "[io]") {
  const auto file = [](const std::string& header, std::size_t data) {
    std::string bytes;
    for (int i = 0; i < 8; ++i)
      bytes += static_cast<char>((header.size() >> (8 * i)) & 0xffU);
    return bytes + header + std::string(data, '\0');
  };
  const auto error_of = [](const std::string& bytes) {
    try {
      (void)io::parse_safetensors(bytes, "m.safetensors");
    } catch (const Error& e) {
      return format_error(e);
    }
    return std::string("no error");
  };
  CHECK(
      error_of(file(
          R"({"a":{"dtype":"BF16","shape":[1000000000,1000000000,1000000000],"data_offsets":[0,4]}})", 4)) ==
      "m.safetensors: /a/shape: expected a tensor of at most 1,000,000,000,000,000 elements, got more");
  CHECK(error_of(std::string("\x01\x00", 2)) ==
        "m.safetensors: expected a safetensors file (8-byte header length first), got 2 bytes");
  CHECK(error_of(std::string(8, '\xff')) == "m.safetensors: expected a safetensors header of at most 16 MiB, "
                                            "got a header length of 18446744073709551615");
  CHECK(error_of(file("[]", 0)) == "m.safetensors: /: expected a safetensors header object, got an array");
  const io::CheckpointInfo ok = io::parse_safetensors(
      file(
          R"({"a":{"dtype":"BF16","shape":[0,5],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})",
          4),
      "m.safetensors");
  CHECK(ok.parameter_count == 1);
  CHECK(ok.weight_bytes == 4);
  CHECK(ok.tensor_count == 2);
}

TEST_CASE("layouts over a link the catalog gives no bandwidth for: finite, rejected as layout", "[core]") {
  // Found by fuzz_catalog on the shipped data/gpus.json: T4 and MI325X give no PCIe figure and no
  // scale-up link, L4 no NIC; TP over them, or PP across nodes, gave an infinite TPOT.
  Gpu t4 = l40s();
  t4.id = "T4";
  t4.pcie_gb_per_s = 0.0;
  t4.scaleup_gb_per_s = 0.0;
  Gpu no_nic = l40s();
  no_nic.nic_gb_per_s = 0.0;
  SearchPolicy policy;
  policy.max_nodes = 2;
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  for (const Gpu& gpu : {t4, no_nic}) {
    for (const Deployment& d : replica_layouts(pm.model, gpu, policy)) {
      const InferenceEstimate e =
          estimate_inference(pm, InferenceWorkload{}, gpu, d, EngineConfig{}, nullptr, 1.0);
      CHECK(finite_estimate(e));
      const Candidate c = evaluate_candidate(pm, InferenceWorkload{}, Sla{}, gpu, d, 1.0, policy);
      if (!e.link_known) CHECK(c.rejection.term == Term::link);
    }
  }
  Deployment tp2;
  tp2.gpus = 2;
  tp2.tp = 2;
  CHECK_FALSE(estimate_inference(pm, InferenceWorkload{}, t4, tp2, EngineConfig{}, nullptr, 1.0).link_known);
}

TEST_CASE("a DiT of zero tokens per item stays finite (thin-GEMM shape term)", "[core]") {
  // Found by fuzz_estimate: tokens_per_item 0 made the GEMM shape factor 0 and the prefill 0/0.
  ModelSpec m = llama31_8b();
  m.kind = ModelKind::dit;
  m.tokens_per_item = 0;
  m.passes_per_item = 28;
  const PreparedModel pm = prepare_model(m, Precision{});
  InferenceWorkload w;
  w.concurrency = 16;
  const InferenceEstimate e =
      estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 4.0);
  CHECK(finite_estimate(e));
}
