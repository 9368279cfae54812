// Speculative decoding (docs/methodology.md §3.8): tokens per verification step [LEV23], the
// per-token decode step, the drafter's cost and weights, and the spec's fields.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/inference.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

Speculative spec(SpeculativeMethod m, int k, double a) {
  Speculative s;
  s.method = m;
  s.draft_tokens = k;
  s.acceptance_rate = a;
  return s;
}

InferenceEstimate at(std::int64_t concurrency, const Speculative& sp) {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w = closed_loop(1024, 256, concurrency);
  w.speculative = sp;
  return estimate_inference(pm, w, h100_sxm(), Deployment{}, EngineConfig{}, nullptr, 0.0);
}

} // namespace

TEST_CASE("tokens per verification step: (1 − a^(k+1)) / (1 − a)", "[core][speculative]") {
  // a = 0.7, k = 3: (1 − 0.2401) / 0.3 = 0.7599 / 0.3 = 2.533; a = 0.5, k = 1: 0.75 / 0.5 = 1.5.
  CHECK(spec(SpeculativeMethod::eagle3, 3, 0.7).tokens_per_step() == Approx(2.533).epsilon(1e-6));
  CHECK(spec(SpeculativeMethod::mtp, 1, 0.5).tokens_per_step() == Approx(1.5));
  CHECK(spec(SpeculativeMethod::ngram, 4, 1.0).tokens_per_step() == Approx(5.0)); // every draft accepted
  CHECK(spec(SpeculativeMethod::ngram, 4, 0.0).tokens_per_step() == Approx(1.0)); // none: the model's token
  CHECK(Speculative{}.tokens_per_step() == 1.0);
  // By position: 1 + 0.8 + 0.8·0.6 + 0.8·0.6·0.4 = 1 + 0.8 + 0.48 + 0.192 = 2.472; equal rates give
  // the i.i.d. figure.
  Speculative falling = spec(SpeculativeMethod::eagle3, 3, 0.0);
  falling.acceptance_by_position = {0.8, 0.6, 0.4};
  CHECK(falling.tokens_per_step() == Approx(2.472));
  Speculative flat = spec(SpeculativeMethod::eagle3, 3, 0.0);
  flat.acceptance_by_position = {0.7, 0.7, 0.7};
  CHECK(flat.tokens_per_step() == Approx(2.533).epsilon(1e-6));
}

TEST_CASE("a memory-bound decode step is the plain step / E without drafting cost", "[core][speculative]") {
  // One 8B sequence on an H100: verifying 4 positions reads the same weights and KV as one, its
  // FLOPs stay below the read time, and n-gram drafting costs no GPU time: step / 2.533.
  const InferenceEstimate plain = at(1, Speculative{});
  const InferenceEstimate ngram = at(1, spec(SpeculativeMethod::ngram, 3, 0.7));
  CHECK(ngram.decode_step_s == Approx(plain.decode_step_s / 2.533).epsilon(1e-4));
  // An EAGLE-3 head drafts 3 tokens through one more layer and the output head: dearer than n-gram,
  // and it holds one layer's share of the weights (32 layers: +1/32).
  const InferenceEstimate eagle = at(1, spec(SpeculativeMethod::eagle3, 3, 0.7));
  CHECK(eagle.decode_step_s > ngram.decode_step_s);
  CHECK(eagle.memory.weights_bytes == Approx(plain.memory.weights_bytes * (1.0 + 1.0 / 32.0)));
  CHECK(ngram.memory.weights_bytes == plain.memory.weights_bytes);
}

TEST_CASE("the speculative gain shrinks as the batch makes the step compute-bound", "[core][speculative]") {
  const Speculative eagle = spec(SpeculativeMethod::eagle3, 3, 0.7);
  const double gain_16 = at(16, Speculative{}).tpot_s / at(16, eagle).tpot_s;
  const double gain_256 = at(256, Speculative{}).tpot_s / at(256, eagle).tpot_s;
  CHECK(gain_16 > 1.3);
  CHECK(gain_256 < gain_16);
}

namespace {
// A spec of `preset` whose inference workload drafts as `speculative` says.
nlohmann::json speculative_doc(const char* preset, nlohmann::json speculative) {
  return {{"schema_version", 1},
          {"model", {{"preset", preset}}},
          {"workload", {{"mode", "inference"}, {"speculative", std::move(speculative)}}}};
}
} // namespace

TEST_CASE("workload.speculative: acceptance or mean accepted tokens, no default", "[io][speculative]") {
  const std::string models = std::string(RIGHTSIZE_DATA_DIR) + "/models";
  nlohmann::json doc = speculative_doc(
      "llama-3.1-8b", {{"method", "eagle3"}, {"draft_tokens", 3}, {"mean_accepted_tokens", 2.533}});
  const Spec s = io::parse_spec(doc, "s.json", "", models);
  CHECK(s.inference.speculative.method == SpeculativeMethod::eagle3);
  CHECK(s.inference.speculative.acceptance_rate == Approx(0.7).epsilon(1e-5)); // solved from E
  doc["workload"]["speculative"] = {{"method", "eagle3"}, {"draft_tokens", 3}};
  CHECK_THROWS_AS(io::parse_spec(doc, "s.json", "", models), Error);
  doc["workload"]["speculative"] = {{"method", "eagle3"}, {"draft_tokens", 3}, {"mean_accepted_tokens", 5.0}};
  CHECK_THROWS_AS(io::parse_spec(doc, "s.json", "", models), Error); // above k + 1
  doc["workload"]["speculative"] = {
      {"method", "eagle3"}, {"draft_tokens", 3}, {"acceptance_by_position", {0.8, 0.6, 0.4}}};
  const Spec by_position = io::parse_spec(doc, "s.json", "", models);
  CHECK(by_position.inference.speculative.tokens_per_step() == Approx(2.472));
  doc["workload"]["speculative"] = {
      {"method", "eagle3"}, {"draft_tokens", 3}, {"acceptance_by_position", {0.8, 0.6}}};
  CHECK_THROWS_AS(io::parse_spec(doc, "s.json", "", models), Error); // k rates
}

TEST_CASE("workload.speculative: mtp needs a model that ships an MTP module", "[io][speculative]") {
  const std::string models = std::string(RIGHTSIZE_DATA_DIR) + "/models";
  nlohmann::json doc =
      speculative_doc("llama-3.1-8b", {{"method", "mtp"}, {"draft_tokens", 1}, {"acceptance_rate", 0.8}});
  // Llama-3.1-8B's checkpoint has no MTP module: refused at the method, naming the alternatives.
  try {
    (void)io::parse_spec(doc, "s.json", "", models);
    FAIL("mtp on a model without an MTP module was accepted");
  } catch (const Error& e) {
    CHECK(e.pointer() == "/workload/speculative/method");
    CHECK_THAT(e.what(), Catch::Contains("multi-token-prediction") && Catch::Contains("eagle3"));
  }
  // DeepSeek-V3 ships one (num_nextn_predict_layers 1), MiniMax-M2.5 three (num_mtp_modules 3).
  doc["model"] = {{"preset", "deepseek-v3"}};
  CHECK(io::parse_spec(doc, "s.json", "", models).model.mtp_layers == 1);
  doc["model"] = {{"preset", "minimax-m2.5"}};
  CHECK(io::parse_spec(doc, "s.json", "", models).inference.speculative.method == SpeculativeMethod::mtp);
  // An architecture given by hand says so itself.
  doc["model"] = {{"layers", 32},      {"hidden_size", 4096},  {"heads", 32},
                  {"ffn_size", 14336}, {"vocab_size", 128256}, {"mtp_layers", 1}};
  CHECK(io::parse_spec(doc, "s.json", "", models).model.mtp_layers == 1);
}

TEST_CASE("a separate draft model: its weights, KV and passes", "[core][speculative]") {
  // A 1B-class drafter (Llama-3.2-1B's shape): 16 layers, 8 KV heads of 64 → KV per token =
  // 16 × 2 × 8 × 64 × 2 B = 32,768 B.
  ModelSpec small = llama31_8b();
  small.layers = 16;
  small.hidden_size = 2048;
  small.head_dim = 64;
  small.ffn_size = 8192;
  const DraftModel draft = draft_model_of(small, Precision{});
  CHECK(draft.kv_bytes_per_token == Approx(32768.0));
  CHECK(draft.layers == 16.0);
  CHECK(draft.kv_heads == 8.0);
  CHECK(draft.weight_bytes == Approx(prepare_model(small, Precision{}).weight_bytes_total));

  // Llama-3.1-70B on 4 H100s (TP4), 16 clients of 1024 in / 256 out: the drafter adds a quarter of
  // its weights per GPU and, per sequence, its KV at the 1,280-token context split over
  // min(4, 8) = 4 GPUs: 16 × 32,768 × 1,280 / 4 = 167,772,160 B.
  const PreparedModel target = prepare_model(llama31_70b(), Precision{});
  const Deployment tp4{4, 4, 1, 1};
  InferenceWorkload w = closed_loop(1024, 256, 16);
  const InferenceEstimate off = estimate_inference(target, w, h100_sxm(), tp4, EngineConfig{}, nullptr, 0.0);
  w.speculative = spec(SpeculativeMethod::draft_model, 4, 0.6);
  w.speculative.draft = draft;
  const InferenceEstimate on = estimate_inference(target, w, h100_sxm(), tp4, EngineConfig{}, nullptr, 0.0);
  CHECK(on.memory.weights_bytes - off.memory.weights_bytes == Approx(draft.weight_bytes / 4.0));
  CHECK(on.memory.kv_cache_bytes - off.memory.kv_cache_bytes == Approx(167772160.0));
  // E = (1 − 0.6^5) / 0.4 = 2.306 tokens per step; the drafter's 4 passes cost far less than what
  // the 70B model's saved steps do at this batch.
  CHECK(on.tpot_s < off.tpot_s / 1.3);
  CHECK(on.tpot_s > off.tpot_s / 2.306);
}
