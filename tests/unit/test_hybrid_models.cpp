// 2025–2026 architectures (issue 19 item 2): Qwen3-Next / Qwen3.5 hybrid linear attention (gated
// DeltaNet), MiniMax-M2.5, Kimi-K2.5 (DeepSeek-V3 layout), GLM-4.5 and GLM-5 (MLA + DSA indexer),
// imported from the configs in tests/io/hf/ (sources in its README). Totals and active counts are
// hand-derived with methodology §1.2–§1.5 and compared with the vendors' published figures; KV bytes
// per token and the linear-attention state per sequence with methodology §2.3.
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "hf_import.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/model.hpp"

using namespace rightsize;

using test::Imported;

namespace {

Imported import_hybrid_models(const std::string& file) {
  return test::import_hf(file);
}

double billions(std::int64_t v) {
  return static_cast<double>(v) / 1e9;
}

} // namespace

TEST_CASE("gated DeltaNet layer and state, worked by hand on Qwen3-Next-80B-A3B (methodology §1.5, §2.3)",
          "[core]") {
  const Imported q = import_hybrid_models("Qwen3-Next-80B-A3B-Instruct.json");
  const ModelSpec& m = q.model;
  REQUIRE(m.linear_attention.layers == 36); // 48 layers, every 4th full attention
  CHECK(attention_layers(m) == 12);
  CHECK(m.attention.output_gate);
  // key dim 16·128 = 2048, value dim 32·128 = 4096, h = 2048:
  // in_proj_qkvz 2048·(4096 + 8192) = 25,165,824; in_proj_ba 2048·64 = 131,072;
  // conv (4096 + 4096)·4 = 32,768; A_log + dt_bias 64; norm 128; out_proj 4096·2048 = 8,388,608.
  const std::int64_t gdn = 25'165'824 + 131'072 + 32'768 + 64 + 128 + 8'388'608;
  CHECK(gdn == 33'718'464);
  // Gated attention: q 2048·2·4096 + k, v 2·2048·512 + o 4096·2048 + q/k norm 2·256 = 27,263,488.
  const std::int64_t attention = 2048LL * 8192 + 2LL * 2048 * 512 + 4096LL * 2048 + 512;
  CHECK(count_params(m).per_layer_attention == attention);
  CHECK(attention == 27'263'488);
  // KV only in the 12 attention layers: 2·12·2·256·2 B = 24,576 B per token (bf16).
  CHECK(kv_cache_bytes_per_token(m, 2.0) == 24'576.0);
  // State per sequence: 36·(32·128·128·2 + (4 − 1)·(2·2048 + 4096)·2) = 36·1,097,728 = 39,518,208 B.
  CHECK(linear_state_bytes_per_sequence(m, 2.0) == 39'518'208.0);
}

TEST_CASE("HF import of the 2025–2026 architectures against published parameter counts", "[io]") {
  struct Case {
    const char* file;
    std::int64_t total;  // hand-derived (methodology §1.2–§1.5)
    std::int64_t active; // including the input embedding
    double published_total_b;
    double published_active_b;
    double kv_bytes_per_token; // KV cache at bf16
  };
  const Case cases[] = {
      // Qwen3-Next-80B-A3B: "80B total, 3B activated" (model card); 3.56 B without the embedding.
      {"Qwen3-Next-80B-A3B-Instruct.json", 79'674'391'296, 3'874'929'408, 80, 3, 24'576},
      // Qwen3.5-397B-A17B: "397B / 17B" (model card); vision tower not counted.
      {"Qwen3.5-397B-A17B.json", 396'346'350'336, 17'349'040'896, 397, 17, 30'720},
      // MiniMax-M2.5: "230 billion total, 10 billion active" (MiniMax); 3 MTP modules not counted.
      {"MiniMax-M2.5.json", 228'689'764'864, 11'030'553'088, 230, 10, 253'952},
      // Kimi-K2.5: "1T total, 32B activated" (Moonshot); 1.026 T, MoonViT tower not counted.
      {"Kimi-K2.5.json", 1'026'408'232'448, 32'861'500'928, 1000, 32, 70'272},
      // GLM-4.5: "355B total, 32B active" (Z.ai); the MTP layer is not counted (352.8 B).
      {"GLM-4.5.json", 352'797'829'024, 33'632'266'144, 355, 32, 376'832},
      // GLM-5: "744B total, 40B active" (Z.ai README); MLA latent + 128-wide indexer key per layer.
      {"GLM-5.json", 743'911'218'432, 41'784'728'832, 744, 40, 109'824},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const Imported imp = import_hybrid_models(c.file);
    const ParamCounts counts = count_params(imp.model);
    CHECK(counts.total == c.total);
    CHECK(counts.active == c.active);
    // Published totals: within 1 % (GLM-4.5 −0.6 %, MiniMax −0.6 %), Kimi's "1T" within 3 %.
    CHECK(billions(counts.total) ==
          Approx(c.published_total_b).epsilon(c.published_total_b >= 1000 ? 0.03 : 0.01));
    // Published active counts are given to one or two digits, with the input embedding (Qwen) or
    // without it (DeepSeek-style vendors): one of the two reads as the published figure.
    const auto reads_as_published = [&](std::int64_t active) {
      return billions(active) >= c.published_active_b - 0.5 && billions(active) < c.published_active_b + 1.0;
    };
    CHECK((reads_as_published(counts.active) || reads_as_published(counts.active - counts.embedding)));
    CHECK(kv_cache_bytes_per_token(imp.model, 2.0) == c.kv_bytes_per_token);
  }
}

TEST_CASE("HF import: family rules of the new model_types", "[io]") {
  const Imported qwen35 = import_hybrid_models("Qwen3.5-397B-A17B.json");
  CHECK(qwen35.model.linear_attention.layers == 45);
  CHECK(qwen35.model.linear_attention.state_bytes_per_element == 4); // mamba_ssm_dtype float32
  CHECK(qwen35.model.moe.shared_expert_gate);
  CHECK(qwen35.model.mtp_layers == 1); // mtp_num_hidden_layers
  // 45·(64·128·128·4 + 3·(2·2048 + 8192)·2) = 45·4,268,032 B: 192 MB per sequence, as much as
  // 6,252 tokens of the 15 attention layers' KV.
  CHECK(linear_state_bytes_per_sequence(qwen35.model, 2.0) == 192'061'440.0);

  const Imported minimax = import_hybrid_models("MiniMax-M2.5.json");
  CHECK(minimax.model.attention.qk_norm_per_layer); // q_norm 6144 + k_norm 1024 weights per layer
  CHECK(minimax.model.moe.router_bias);
  CHECK(minimax.model.moe.expert_ffn_size == 1536);
  CHECK(minimax.precision.weights == NumberFormat::fp8);
  CHECK(minimax.model.mtp_layers == 3); // num_mtp_modules

  const Imported kimi = import_hybrid_models("Kimi-K2.5.json");
  CHECK(kimi.model.attention.kind == AttentionKind::mla);
  CHECK(kimi.model.moe.dense_layers == 1);
  CHECK(kimi.model.mtp_layers == 0);                        // num_nextn_predict_layers 0
  CHECK(kimi.precision.weights == NumberFormat::int4_gptq); // compressed-tensors int4 in text_config
  CHECK(kimi.precision.group_size == 32);

  const Imported glm45 = import_hybrid_models("GLM-4.5.json");
  CHECK(glm45.model.qkv_bias);
  CHECK_FALSE(glm45.model.o_bias);
  CHECK(glm45.model.qk_norm);
  CHECK(glm45.model.moe.shared_experts == 1);
  CHECK(glm45.model.moe.dense_layers == 3);

  const Imported glm5 = import_hybrid_models("GLM-5.json");
  CHECK(glm5.model.attention.index_heads == 32);
  CHECK(glm5.model.attention.index_head_dim == 128);
  // 78·(512 + 64 + 128)·2 B: the MLA latent, its RoPE key and the indexer key.
  CHECK(kv_cache_bytes_per_token(glm5.model, 2.0) == 78.0 * 704 * 2);
}

TEST_CASE("linear-attention state counts once per sequence in KV memory and concurrency (methodology §2.7)",
          "[core]") {
  const Imported q = import_hybrid_models("Qwen3-Next-80B-A3B-Instruct.json");
  const PreparedModel pm = prepare_model(q.model, precision_from_shorthand(NumberFormat::fp8));
  CHECK(pm.full_attention_layers == 12);
  CHECK(pm.linear_state_bytes_per_sequence == 39'518'208.0); // bf16 model dtype, fp8 weights
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 1024;
  w.concurrency = 8;
  const EngineConfig engine;
  Gpu gpu = test::h100_sxm();
  const InferenceEstimate e = estimate_inference(pm, w, gpu, Deployment{}, engine, nullptr, 0.0);
  // KV at bf16 (fp8 weights keep a bf16 cache): 24,576 B per token over 2,048 tokens + the state.
  const double per_sequence = 24'576.0 * 2048 + 39'518'208.0;
  CHECK(e.memory.kv_cache_bytes == Approx(8 * per_sequence));
  // TP2 halves both: KV heads 2 → 1 per rank, value heads 32 → 16 per rank.
  Deployment tp2;
  tp2.gpus = 2;
  tp2.tp = 2;
  const InferenceEstimate e2 = estimate_inference(pm, w, gpu, tp2, engine, nullptr, 0.0);
  CHECK(e2.memory.kv_cache_bytes == Approx(4 * per_sequence));
}

TEST_CASE("a sparse-attention indexer adds its kernel chain to every layer of every pass (methodology §3)",
          "[core]") {
  // GLM-5: 78 layers, each with a DSA indexer; 100 µs per indexed layer (EngineConfig default) =
  // 7.8 ms more per decode step and per prefill chunk. GLM-4.5 (no indexer) pays nothing more.
  const Imported glm5 = import_hybrid_models("GLM-5.json");
  const PreparedModel pm = prepare_model(glm5.model, precision_from_shorthand(NumberFormat::fp8));
  const InferenceWorkload w = test::closed_loop(1024, 1024, 4);
  Deployment tp8;
  tp8.gpus = 8;
  tp8.tp = 8;
  EngineConfig none;
  none.indexer_layer_overhead_s = 0.0;
  const Gpu gpu = test::h100_sxm();
  const InferenceEstimate with = estimate_inference(pm, w, gpu, tp8, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate without = estimate_inference(pm, w, gpu, tp8, none, nullptr, 0.0);
  CHECK(with.decode_step_s - without.decode_step_s == Approx(78 * 100e-6));
  CHECK(with.prefill_s - without.prefill_s == Approx(78 * 100e-6));
  const Imported glm45 = import_hybrid_models("GLM-4.5.json");
  const PreparedModel dense_attention =
      prepare_model(glm45.model, precision_from_shorthand(NumberFormat::fp8));
  const InferenceEstimate a = estimate_inference(dense_attention, w, gpu, tp8, EngineConfig{}, nullptr, 0.0);
  const InferenceEstimate b = estimate_inference(dense_attention, w, gpu, tp8, none, nullptr, 0.0);
  CHECK(a.decode_step_s == b.decode_step_s);
}

TEST_CASE("HF import: Llama-4 Scout MoE with chunked attention", "[io]") {
  const Imported scout = import_hybrid_models("Llama-4-Scout-17B-16E.json");
  const ModelSpec& m = scout.model;
  CHECK(m.moe.experts == 16);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.expert_ffn_size == 8192);
  CHECK(m.moe.dense_layers == 0); // interleave_moe_layer_step 1: every layer is MoE
  CHECK(m.ffn_size == 16384);     // intermediate_size_mlp (no dense layer in Scout)
  // 36 of 48 layers (no_rope_layers 1) attend within 8,192-token chunks, counted as a window.
  CHECK(m.attention.sliding_window == 8192);
  CHECK(m.attention.sliding_window_layers == 36);
  // Per layer: attention 5120·5120·2 + 2·5120·1024 = 62,914,560; 16 routed + 1 shared expert of
  // 3·5120·8192 = 125,829,120; router 5120·16. Plus 2·202,048·5120 and 97 norms of 5120.
  const ParamCounts c = count_params(m);
  CHECK(c.total - c.vision == 107'769'861'120);
  CHECK(c.active == 17'172'894'720);
  // Published "109B total, 17B active" (Meta Llama 4 model card) includes the 0.87 B vision tower,
  // now counted (test_vision.cpp): −0.3 %.
  CHECK(c.vision == 871'932'416);
  CHECK(billions(c.total) == Approx(109.0).epsilon(0.005));
  CHECK(kv_cache_bytes_per_token(m, 2.0) == 2.0 * 48 * 8 * 128 * 2); // all layers, before the window
}

TEST_CASE("HF import: Jamba-1.5-Mini Mamba-1 hybrid, worked by hand (methodology §1.5, §2.3)", "[io]") {
  const Imported jamba = import_hybrid_models("AI21-Jamba-1.5-Mini.json");
  const ModelSpec& m = jamba.model;
  CHECK(m.linear_attention.kind == LinearKind::mamba);
  CHECK(m.linear_attention.layers == 28); // attention on layers 4, 12, 20, 28
  CHECK(m.linear_attention.inner_size == 8192);
  CHECK(m.moe.dense_layers == 16); // MoE on the odd layers
  // Mamba layer, d = 8192, r = 256, N = 16, K = 4: in_proj 4096·16384 = 67,108,864; conv 8192·4 +
  // 8192 = 40,960; x_proj 8192·288 = 2,359,296; dt_proj 256·8192 + 8192 = 2,105,344; A_log 131,072;
  // D 8,192; out_proj 8192·4096 = 33,554,432; dt/B/C norms 288 -> 105,308,448.
  const ParamCounts c = count_params(m);
  CHECK(c.total == 51'570'323'328);
  CHECK(c.active == 12'110'311'296);
  // AI21 Jamba 1.5 model card: "12B active / 52B total".
  CHECK(billions(c.total) == Approx(52.0).epsilon(0.01));
  CHECK(billions(c.active) == Approx(12.0).epsilon(0.01));
  // KV only in the 4 attention layers: 2·4·8·128·2 = 16,384 B per token; the Mamba state
  // 28·(8192·16·2 + 3·8192·2) = 8,716,288 B per sequence (SSM state in the model dtype).
  CHECK(kv_cache_bytes_per_token(m, 2.0) == 16'384.0);
  CHECK(linear_state_bytes_per_sequence(m, 2.0) == 8'716'288.0);
}
