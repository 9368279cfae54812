// Hugging Face config.json import (methodology §1.4) against real configs in tests/io/hf/.
#include <string>

#include <catch2/catch.hpp>

#include "hf_import.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/model.hpp"

using namespace rightsize;

using test::Imported;

namespace {

Imported import(const std::string& file) {
  return test::import_hf(file);
}

} // namespace

TEST_CASE("HF import reproduces published parameter counts, one config per model_type", "[io]") {
  struct Case {
    const char* file;
    std::int64_t total; // hand-derived with methodology §1.2/§1.3, equal to the preset where one exists
    std::int64_t active;
  };
  const Case cases[] = {
      {"Llama-3.1-8B.json", 8'030'261'248, 8'030'261'248},        // llama (published exactly)
      {"Mistral-7B-v0.3.json", 7'248'023'552, 7'248'023'552},     // mistral: v0.1 + 2·768·4096
      {"Mixtral-8x7B-v0.1.json", 46'702'792'704, 12'879'925'248}, // mixtral (published total exactly)
      {"Qwen2.5-7B.json", 7'615'616'512, 7'615'616'512},          // qwen2: "7.61B"
      {"Qwen3-8B.json", 8'190'735'360, 8'190'735'360},            // qwen3: "8.2B"
      {"Qwen3-30B-A3B.json", 30'532'122'624, 3'353'032'704},      // qwen3_moe: "30.5B / 3.3B"
      {"gemma-2b.json", 2'506'172'416, 2'506'172'416},            // gemma: tied by default, "2.51B"
      {"gemma-2-9b.json", 9'241'705'984, 9'241'705'984},          // gemma2: 4 norms per layer, "9.24B"
      {"gemma-3-1b-it.json", 999'885'952, 999'885'952},           // gemma3_text: qk-norm
      {"gemma-3-27b-it.json", 27'432'406'640, 27'009'346'304},    // gemma3: text + SigLIP tower (test_vision)
      {"Phi-3-mini-4k-instruct.json", 3'821'079'552, 3'821'079'552}, // phi3: "3.8B"
      {"gpt-j-6b.json", 6'050'882'784, 6'050'882'784},               // gptj: model card 6,053,381,344
      {"gpt-oss-20b.json", 20'914'757'184, 4'187'440'704},           // gpt_oss: "20.91B", sinks and biases
      {"DeepSeek-V3.json", 671'026'419'200, 37'552'297'472},         // deepseek_v3: "671B"
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const ParamCounts counts = count_params(import(c.file).model);
    CHECK(counts.total == c.total);
    CHECK(counts.active == c.active);
  }
}

TEST_CASE("HF import: families without a preset", "[io]") {
  // Falcon-40B: new_decoder_architecture -> 8 KV heads, two LayerNorms, no biases, tied (FalconConfig
  // default). Per layer: qkv 8192·(128+16)·64 + dense 8192² + MLP 2·8192·32768 + 4·8192 = 679,510,016.
  const Imported falcon = import("falcon-40b.json");
  CHECK(falcon.model.kv_heads == 8);
  CHECK(falcon.model.tied_embeddings);
  CHECK(count_params(falcon.model).total == 60LL * 679'510'016 + 65024LL * 8192 + 2LL * 8192);
  // RedPajama-3B (gpt_neox): biases everywhere, LayerNorm, plain 4h MLP, untied.
  const Imported neox = import("RedPajama-INCITE-Base-3B-v1.json");
  CHECK_FALSE(neox.model.ffn_gated);
  CHECK(neox.model.norm == NormKind::layer);
  CHECK(neox.precision.weights == NumberFormat::fp16);
  // Qwen1.5-MoE-A2.7B: 60 experts + a gated shared expert; published 14.3B total, 2.7B active.
  const ParamCounts qmoe = count_params(import("Qwen1.5-MoE-A2.7B.json").model);
  CHECK(static_cast<double>(qmoe.total) / 1e9 == Approx(14.3).epsilon(0.005));
  CHECK(static_cast<double>(qmoe.active) / 1e9 == Approx(2.7).epsilon(0.03));
}

TEST_CASE("HF import: head_dim, KV heads, windows, dtype and quantization rules", "[io]") {
  const Imported qwen3 = import("Qwen3-30B-A3B.json");
  CHECK(qwen3.model.head_dim == 128); // explicit, h_q = 4096 != h = 2048
  CHECK(qwen3.model.kv_heads == 4);
  CHECK(qwen3.model.attention.kind == AttentionKind::gqa);
  const Imported oss = import("gpt-oss-20b.json");
  CHECK(oss.model.attention.sliding_window == 128);
  CHECK(oss.model.attention.sliding_window_layers == 12); // layer_types
  const Imported gemma3 = import("gemma-3-1b-it.json");
  CHECK(gemma3.model.attention.sliding_window_layers == 26 - 26 / 6); // 5 local : 1 global
  const Imported qwen25 = import("Qwen2.5-7B.json");
  CHECK(qwen25.model.attention.sliding_window == 0); // use_sliding_window false
  CHECK(qwen25.model.qkv_bias);
  const Imported ds = import("DeepSeek-V3.json");
  CHECK(ds.model.attention.kind == AttentionKind::mla);
  CHECK(ds.precision.weights == NumberFormat::fp8);
  CHECK(kv_cache_bytes_per_token(ds.model, 2.0) == 70272.0); // methodology §2.3
  CHECK(ds.model.mtp_layers == 1);                           // num_nextn_predict_layers
  CHECK(qwen25.model.mtp_layers == 0);
  const Imported gemma = import("gemma-2b.json");
  CHECK(gemma.model.tied_embeddings); // key absent: Gemma default true
  CHECK(gemma.model.attention.kind == AttentionKind::mqa);
}

TEST_CASE("HF import: an unknown model_type without the decoder keys names the first missing one", "[io]") {
  Precision p;
  std::vector<std::string> a;
  const nlohmann::json config = {{"model_type", "bert"}};
  try {
    (void)io::import_hf_config(config, "c.json", p, a);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(
        format_error(e) ==
        "c.json: /num_hidden_layers: missing; model_type \"bert\" is not one rightsize knows, so it is read "
        "as a generic decoder, which needs num_hidden_layers, hidden_size, num_attention_heads, "
        "intermediate_size and vocab_size (positive integers)");
  }
}

TEST_CASE("HF import: quantization_config picks the weight format", "[io]") {
  nlohmann::json config =
      io::read_json_file(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf/Llama-3.1-8B.json");
  const auto format_of = [&](const nlohmann::json& q) {
    config["quantization_config"] = q;
    Precision p;
    std::vector<std::string> a;
    (void)io::import_hf_config(config, "c.json", p, a);
    return p;
  };
  CHECK(format_of({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}}).weights ==
        NumberFormat::int4_awq);
  CHECK(format_of({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 32}}).group_size == 32);
  CHECK(format_of({{"quant_method", "fp8"}}).weights == NumberFormat::fp8);
  CHECK(format_of({{"quant_method", "mxfp4"}}).weights == NumberFormat::mxfp4);
  CHECK(format_of({{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}}).weights == NumberFormat::nf4);
  CHECK(format_of({{"quant_method", "compressed-tensors"},
                   {"config_groups", {{"group_0", {{"weights", {{"num_bits", 8}, {"type", "float"}}}}}}}})
            .weights == NumberFormat::fp8);
}

TEST_CASE("HF import: AMD Quark exports give MX weights and, when quantized, MX activations", "[io]") {
  nlohmann::json config =
      io::read_json_file(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf/Llama-3.1-8B.json");
  const auto import = [&](const nlohmann::json& global) {
    config["quantization_config"] = {{"quant_method", "quark"}, {"global_quant_config", global}};
    Precision p;
    std::vector<std::string> a;
    (void)io::import_hf_config(config, "c.json", p, a);
    return p;
  };
  const nlohmann::json mx4 = {
      {"dtype", "fp4"}, {"qscheme", "per_group"}, {"group_size", 32}, {"scale_format", "e8m0"}};
  // W4A4, as amd/Llama-3.3-70B-Instruct-MXFP4-Preview (scheme w_mxfp4_a_mxfp4).
  const Precision w4a4 = import({{"weight", mx4}, {"input_tensors", mx4}});
  CHECK(w4a4.weights == NumberFormat::mxfp4);
  CHECK(w4a4.activations == NumberFormat::mxfp4);
  CHECK(w4a4.math_dtype() == MathDtype::fp4);
  // Weight-only MXFP6 (input_tensors null): W6A16.
  const Precision w6 =
      import({{"weight", {{"dtype", "fp6_e2m3"}, {"group_size", 32}}}, {"input_tensors", nullptr}});
  CHECK(w6.weights == NumberFormat::mxfp6);
  CHECK(w6.activations == NumberFormat::bf16);
  // A dtype Quark may write that rightsize has no format for: one clear line.
  try {
    (void)import({{"weight", {{"dtype", "bfp16"}}}});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(format_error(e) ==
          "c.json: /quantization_config/global_quant_config/weight/dtype: expected a Quark dtype \"fp4\", "
          "\"fp6_e2m3\", \"fp6_e3m2\", \"fp8_e4m3\", \"fp8_e5m2\", \"int8\", \"uint8\", \"int4\" or "
          "\"uint4\", got \"bfp16\"");
  }
}

TEST_CASE("HF import: compressed-tensors without a quantization group is an error (issue 22 item 8)",
          "[io]") {
  nlohmann::json config =
      io::read_json_file(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf/Llama-3.1-8B.json");
  const auto error_of = [&](const nlohmann::json& q) {
    config["quantization_config"] = q;
    Precision p;
    std::vector<std::string> a;
    try {
      (void)io::import_hf_config(config, "c.json", p, a);
    } catch (const Error& e) {
      return format_error(e);
    }
    return std::string("no error");
  };
  CHECK(error_of({{"quant_method", "compressed-tensors"}, {"config_groups", nlohmann::json::object()}}) ==
        "c.json: /quantization_config/config_groups: expected at least one quantization group, got none");
  CHECK(error_of({{"quant_method", "compressed-tensors"}}) ==
        "c.json: /quantization_config/config_groups: missing required key");
  CHECK(error_of({{"quant_method", "compressed-tensors"},
                  {"config_groups", {{"g", {{"weights", {{"num_bits", 3}}}}}}}}) ==
        "c.json: /quantization_config/config_groups/g/weights/num_bits: expected 4 or 8 bits, got 3");
}
