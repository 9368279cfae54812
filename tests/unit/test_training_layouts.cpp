// Interleaved pipelines, TP overlap, context parallelism, per-op selective recompute, chunked loss and
// LoRA targets (docs/training.md, methodology §3.3, §3.4, §5.2, §5.3) against hand-computed examples.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/training.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

TrainingWorkload pretrain_for_layouts(std::int64_t seq, std::int64_t global_batch) {
  TrainingWorkload w;
  w.seq_len = seq;
  w.global_batch = global_batch;
  return w;
}

// Data parallel only (ZeRO `zero`), `micro_batch` sequences per micro-batch.
TrainingLayout dp_only(int dp, int zero, std::int64_t micro_batch, Recompute rc = Recompute::none) {
  TrainingLayout l;
  l.dp = dp;
  l.zero_stage = zero;
  l.micro_batch = micro_batch;
  l.recompute = rc;
  return l;
}

Gpu h100_for_layouts() {
  Gpu g = h100_sxm();
  g.efficiency.training_mfu = 0.50;
  return g;
}

} // namespace

TEST_CASE("interleaved 1F1B bubble (p − 1)/(v·m + p − 1) and its memory factor [NAR21][KOR22]", "[core]") {
  // p = 16, m = 64: 15/79 = 19.0 % plain; v = 8: 15/(512 + 15) = 2.85 %.
  CHECK(pipeline_bubble_fraction(16, 64) == Approx(15.0 / 79.0));
  CHECK(pipeline_bubble_fraction(16, 64, 8) == Approx(15.0 / 527.0));
  CHECK(pipeline_bubble_fraction(16, 64, 8) == Approx(0.028463).epsilon(1e-4));
  // Korthikanti §4.2.3: 1 + (p − 1)/(p·v) = 1 + 15/128 = 1.1171875.
  CHECK(interleaved_activation_factor(16, 8) == 1.1171875);
  CHECK(interleaved_activation_factor(16, 1) == 1.0);
  CHECK(interleaved_activation_factor(1, 4) == 1.0);

  // In the estimate: 8B, p = 8, m = 32: the idle share 7/39 becomes 7/(4·32 + 7) = 7/135 with v = 4.
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l;
  l.pp = 8;
  l.recompute = Recompute::none;
  const auto plain =
      estimate_training(p8, pretrain_for_layouts(4096, 32), h100_for_layouts(), l, TrainingConfig{}, 0.0);
  l.vp = 4;
  const auto inter =
      estimate_training(p8, pretrain_for_layouts(4096, 32), h100_for_layouts(), l, TrainingConfig{}, 0.0);
  CHECK(inter.bubble_s == Approx(plain.bubble_s / 4.0).epsilon(0.02)); // PP sends grow 4×, compute equal
  CHECK(inter.pp_comm_exposed_s == Approx(4.0 * plain.pp_comm_exposed_s));
  CHECK(inter.compute_s == Approx(plain.compute_s));
  CHECK(inter.memory.activations_bytes > plain.memory.activations_bytes);
  CHECK(inter.tokens_per_s > plain.tokens_per_s);
}

TEST_CASE("TP communication overlap hides its share; NeMo defaults it on, Megatron off", "[core]") {
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  TrainingLayout l;
  l.tp = 8;
  l.dp = 2;
  l.micro_batch = 1;
  l.recompute = Recompute::none;
  auto w = pretrain_for_layouts(4096, 64);
  const auto off = estimate_training(p70, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  CHECK(off.tp_comm_exposed_s > 0.0);
  CHECK(off.tp_overlap_fraction == 0.0);
  w.tp_comm_overlap = 0.75;
  const auto on = estimate_training(p70, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  CHECK(on.tp_comm_exposed_s == Approx(0.25 * off.tp_comm_exposed_s));
  CHECK(on.step_time_s == Approx(off.step_time_s - 0.75 * off.tp_comm_exposed_s));
  w.tp_comm_overlap.reset();
  w.framework = TrainingFramework::nemo;
  const auto nemo = estimate_training(p70, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  CHECK(nemo.tp_overlap_fraction == TrainingConfig{}.tp_overlap_enabled_fraction);
  w.framework = TrainingFramework::megatron;
  CHECK(estimate_training(p70, w, h100_for_layouts(), l, TrainingConfig{}, 0.0).tp_overlap_fraction == 0.0);
}

TEST_CASE("context parallelism divides activations by cp and hides the ring under attention", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l;
  l.dp = 8;
  l.zero_stage = 1;
  l.recompute = Recompute::none;
  const auto w = pretrain_for_layouts(32768, 64);
  const auto cp1 = estimate_training(p8, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  l.dp = 4;
  l.cp = 2;
  const auto cp2 = estimate_training(p8, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  // Layer activations halve (logits too: each rank holds half the sequence's tokens).
  CHECK(cp2.memory.activations_bytes == Approx(cp1.memory.activations_bytes / 2.0).epsilon(1e-6));
  // At s = 32,768 each rank's attention (16,384 tokens) outlasts one K/V exchange over NVLink.
  CHECK(cp2.cp_comm_exposed_s == 0.0);
  // Same GPUs, same work: compute time is unchanged.
  CHECK(cp2.compute_s == Approx(cp1.compute_s));
  // Short shards (s = 2,048 over 8 ranks) cannot hide the exchange.
  l.dp = 1;
  l.cp = 8;
  const auto short_seq =
      estimate_training(p8, pretrain_for_layouts(2048, 8), h100_for_layouts(), l, TrainingConfig{}, 0.0);
  CHECK(short_seq.cp_comm_exposed_s > 0.0);
}

TEST_CASE("per-op selective recompute keeps 4h + 4h_q + 2h_kv + 2I bytes per token per layer [TT-AC]",
          "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  // Saved: layer input, SDPA output and the odd matmuls q, v, gate, down (the policy recomputes the
  // even ones k, o, up): 4·4096 + 4·4096 + 2·1024 + 2·14336 = 16,384 + 16,384 + 2,048 + 28,672 = 63,488
  // (vs 167,936 none).
  CHECK(per_op_activation_bytes_per_token_layer(p8, 1, false) == 63'488.0);
  // TP8 + SP: everything ÷ 8 = 7,936; TP8 alone: 4h replicated + the rest ÷ 8 = 16,384 + 47,104/8.
  CHECK(per_op_activation_bytes_per_token_layer(p8, 8, true) == 7'936.0);
  CHECK(per_op_activation_bytes_per_token_layer(p8, 8, false) == 16'384.0 + 5'888.0);
  // s = 8192, 32 layers: 32 × 8192 × 63,488 = 16.64 GB.
  CHECK(stored_activation_bytes(p8, 8192, 32, 1, false, Recompute::per_op) == 32.0 * 8192.0 * 63'488.0);
  // FLOPs: model FLOPs unchanged, hardware adds the recomputed k, o and up GEMMs:
  // 2 × 32 × (4096·1024 + 4096·4096 + 4096·14336) = 64 × 79,691,776 = 5,100,273,664.
  const auto none = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::none, 0);
  const auto op = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::per_op, 0);
  CHECK(op.model_per_token == none.model_per_token);
  CHECK(op.hardware_per_token == Approx(none.hardware_per_token + 5'100'273'664.0));
  const auto full = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::full, 0);
  CHECK(op.hardware_per_token < full.hardware_per_token);
}

TEST_CASE("per-op recompute makes the 8B FSDP run fit on 48 GB where full stash does not", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.recompute = Recompute::none;
  const Gpu l40s_card = l40s();
  const auto none = estimate_training(p8, pretrain_for_layouts(8192, 8), l40s_card, l, TrainingConfig{}, 0.0);
  l.recompute = Recompute::per_op;
  const auto op = estimate_training(p8, pretrain_for_layouts(8192, 8), l40s_card, l, TrainingConfig{}, 0.0);
  CHECK_FALSE(none.memory.fits);
  CHECK(op.memory.fits);
  // activations + logits: 16.64 + 6.30 GB.
  CHECK(op.memory.activations_bytes / 1e9 == Approx(16.643 + 6.304).epsilon(1e-3));
}

TEST_CASE("chunked cross-entropy keeps one FP32 chunk; LoRA targets", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  // (8192 × 2 + 1024 × 4) × 128,256 = 2.63 GB instead of 6.30 GB.
  CHECK(logits_bytes(p8, 8192, 1, true) == (8192.0 * 2.0 + 1024.0 * 4.0) * 128256.0);
  CHECK(logits_bytes(p8, 512, 1, true) == 512.0 * 6.0 * 128256.0);
  // r = 16: q, v = 32 × 16 × ((4096 + 4096) + (4096 + 1024)) = 6,815,744; q, k, v, o = 13,631,488.
  CHECK(lora_trainable_params(llama31_8b(), 16, LoraTargets::qv) == 6'815'744);
  CHECK(lora_trainable_params(llama31_8b(), 16, LoraTargets::attention) == 13'631'488);
  CHECK(lora_trainable_params(llama31_8b(), 16, LoraTargets::all_linear) == 41'943'040);
}

TEST_CASE("search picks interleaving and context parallelism where they pay", "[core]") {
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  LayoutPins pins;
  pins.tp = 8;
  pins.pp = 8;
  // 512 GPUs, 256 sequences of 8,192: DP8 leaves m = 32 micro-batches; interleaving cuts the bubble.
  const auto e = search_training_layout(p70, pretrain_for_layouts(8192, 256), h100_for_layouts(), 512, pins,
                                        TrainingConfig{}, 0.0);
  CHECK(e.memory.fits);
  CHECK(e.layout.vp > 1);
  pins.vp = 1;
  const auto plain = search_training_layout(p70, pretrain_for_layouts(8192, 256), h100_for_layouts(), 512,
                                            pins, TrainingConfig{}, 0.0);
  CHECK(e.tokens_per_s > plain.tokens_per_s);
  // Short sequences never search CP; a pinned CP is honoured.
  const auto short_seq = search_training_layout(p70, pretrain_for_layouts(2048, 256), h100_for_layouts(), 512,
                                                LayoutPins{}, TrainingConfig{}, 0.0);
  CHECK(short_seq.layout.cp == 1);
  LayoutPins cp_pin;
  cp_pin.cp = 2;
  const auto pinned = search_training_layout(p70, pretrain_for_layouts(2048, 256), h100_for_layouts(), 512,
                                             cp_pin, TrainingConfig{}, 0.0);
  CHECK(pinned.layout.cp == 2);
}

TEST_CASE("memory as frameworks report it: allocated < reserved < device, two-sided band", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.recompute = Recompute::none;
  const TrainingConfig cfg;
  const auto e = estimate_training(p8, pretrain_for_layouts(8192, 8), h100_for_layouts(), l, cfg, 0.0);
  // Worked (docs/training.md §1): itemized 67.25 GB allocated, × 1.08 = 72.63 GB reserved, + 2 GiB.
  CHECK(e.memory_allocated_bytes / 1e9 == Approx(67.25).epsilon(2e-3));
  CHECK(e.memory_reserved_bytes == Approx(1.08 * e.memory_allocated_bytes));
  CHECK(e.memory.per_gpu_bytes == Approx(e.memory_reserved_bytes + cfg.runtime_reserve_bytes));
  // Band: 67.25 × 1.02 + 0.75 GiB = 69.4 GB … 67.25 × 1.15 + 2 GiB = 79.5 GB.
  CHECK(e.memory_low_bytes == Approx(e.memory_allocated_bytes * 1.02 + 0.75 * 1073741824.0));
  CHECK(e.memory_high_bytes == Approx(e.memory_allocated_bytes * 1.15 + 2.0 * 1073741824.0));
  CHECK(e.memory_low_bytes < e.memory.per_gpu_bytes);
  CHECK(e.memory_high_bytes > e.memory.per_gpu_bytes);
}

TEST_CASE("FP8 training per op: GEMMs at the FP8 peak, attention BF16, casts at HBM speed [TE-FP8]",
          "[core]") {
  Precision fp8;
  fp8.weights = NumberFormat::fp8;
  fp8.activations = NumberFormat::fp8;
  const PreparedModel b16 = prepare_model(llama31_8b(), Precision{});
  const PreparedModel f8 = prepare_model(llama31_8b(), fp8);
  TrainingLayout l;
  l.dp = 8;
  l.zero_stage = 1;
  l.micro_batch = 1;
  l.recompute = Recompute::none;
  const auto w = pretrain_for_layouts(8192, 128);
  const Gpu gpu = h100_for_layouts();
  const auto eb = estimate_training(b16, w, gpu, l, TrainingConfig{}, 0.0);
  const auto ef = estimate_training(f8, w, gpu, l, TrainingConfig{}, 0.0);
  // Hand-computed compute per token on one GPU (η = 0.5): bf16 = hardware / (989.4 T · 0.5);
  // fp8 = GEMM / (1978.9 T · 0.5) + 3 × attention fwd / (989.4 T · 0.5) + cast bytes / (3.35 TB/s · η_m).
  const auto fl = training_flops_per_token(b16, 8192, TrainingMethod::full, Recompute::none, 0);
  const double attn = 3.0 * (fl.forward_per_token - b16.mm_flops_per_token);
  const double gemm = fl.hardware_per_token - attn;
  const double f16 = gpu.tflops(MathDtype::bf16) * 1e12 * 0.5;
  const double f8r = gpu.tflops(MathDtype::fp8) * 1e12 * 0.5;
  // Casts: 3 B × 32 layers × (fwd 2h + h_q + I + bwd h_q + 2h_kv + 2h + 2I) = 3 × 32 × 69,632.
  const double cast = 3.0 * 32.0 * (2.0 * 4096 + 4096 + 14336 + 4096 + 2048 + 8192 + 28672);
  CHECK(cast == 3.0 * 32.0 * 69'632.0);
  const double hbm = gpu.memory_bandwidth_gb_per_s * 1e9 * gpu.efficiency.decode_bandwidth;
  // Element-wise passes, the same in both (16-bit activations): 3 × (32 layers × 167,936 B + the
  // loss's 6 B × 128,256 vocabulary) per token.
  const double ew = 3.0 * (32.0 * 167'936.0 + 6.0 * 128'256.0);
  CHECK(eb.elementwise_s == Approx(ew / hbm * 16.0 * 8192.0).epsilon(1e-9)); // m = 128 / 8 = 16
  const double t16 = fl.hardware_per_token / f16 + ew / hbm;
  const double t8 = gemm / f8r + attn / f16 + cast / hbm + ew / hbm;
  CHECK(ef.compute_s / eb.compute_s == Approx(t8 / t16).epsilon(1e-6));
  // The speed-up stays well short of the 2× peak ratio (attention, casts and element-wise work do not
  // speed up).
  CHECK(eb.compute_s / ef.compute_s < 1.8);
  CHECK(eb.compute_s / ef.compute_s > 1.3);
}

TEST_CASE("element-wise work runs at HBM speed: 3 passes, +1 when the forward is recomputed", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l = dp_only(8, 3, 2);
  const auto w = pretrain_for_layouts(8192, 16); // m = 1, 16,384 tokens per GPU
  const Gpu gpu = h100_for_layouts();
  const double hbm = gpu.memory_bandwidth_gb_per_s * 1e9 * gpu.efficiency.decode_bandwidth;
  // Per token: 32 layers × (8h + 4h_q + 4h_kv + 8I = 167,936 B) + 6 B × 128,256 logits = 6,143,488 B;
  // × 3 passes = 18.43 MB, i.e. 5.5 ms per 1,000 tokens at 3.35 TB/s (η_m = 1).
  const double bytes = 3.0 * 6'143'488.0;
  const auto none = estimate_training(p8, w, gpu, l, TrainingConfig{}, 0.0);
  CHECK(none.elementwise_s == Approx(16384.0 * bytes / hbm).epsilon(1e-9));
  CHECK(none.elementwise_s < none.compute_s);
  l.recompute = Recompute::full;
  const auto full = estimate_training(p8, w, gpu, l, TrainingConfig{}, 0.0);
  CHECK(full.elementwise_s / none.elementwise_s == Approx(4.0 / 3.0));
  l.recompute = Recompute::per_op;
  CHECK(estimate_training(p8, w, gpu, l, TrainingConfig{}, 0.0).elementwise_s == Approx(full.elementwise_s));
  // TP with sequence parallelism splits every byte over the t ranks (and the logits vocab-parallel).
  l.recompute = Recompute::none;
  l.dp = 4;
  l.tp = 2;
  l.sequence_parallel = true;
  const auto tp2 = estimate_training(p8, w, gpu, l, TrainingConfig{}, 0.0);
  // m = 16 / (4 · 2) = 2 micro-batches of 16,384 tokens, each GPU doing half the bytes.
  CHECK(tp2.elementwise_s == Approx(2.0 * 16384.0 * bytes / 2.0 / hbm).epsilon(1e-9));
  // The bytes grow with h and the GEMM FLOPs with h²: the share is larger for narrow layers.
  ModelSpec narrow = llama31_8b();
  narrow.hidden_size = 2048;
  narrow.heads = 16;
  narrow.kv_heads = 4;
  narrow.ffn_size = 7168;
  const PreparedModel pn = prepare_model(narrow, Precision{});
  l = dp_only(8, 3, 2);
  const auto wide_e = estimate_training(p8, w, gpu, l, TrainingConfig{}, 0.0);
  const auto narrow_e = estimate_training(pn, w, gpu, l, TrainingConfig{}, 0.0);
  CHECK(narrow_e.elementwise_s / narrow_e.compute_s > 1.5 * wide_e.elementwise_s / wide_e.compute_s);
}

TEST_CASE("materialized attention scores: 5·a·s bytes through HBM and into memory [KOR22][FA]", "[core]") {
  // Megatron-2021 GPT 1.7B: 24 layers × 2304, 18 heads of 128, I = 4h, tied, s = 2048 on 32 A100.
  ModelSpec m = llama31_8b();
  m.layers = 24;
  m.hidden_size = 2304;
  m.heads = 18;
  m.kv_heads = 18;
  m.head_dim = 128;
  m.ffn_size = 9216;
  m.ffn_gated = false;
  m.vocab_size = 51200;
  m.tied_embeddings = true;
  m.norm = NormKind::layer;
  m.attention.kind = AttentionKind::mha;
  const PreparedModel pm = prepare_model(m, Precision{});
  TrainingLayout l = dp_only(32, 1, 4);
  TrainingWorkload w = pretrain_for_layouts(2048, 512); // m = 4
  Gpu gpu = a100_80gb_sxm();
  gpu.efficiency.training_mfu = 0.5;
  const double hbm = gpu.memory_bandwidth_gb_per_s * 1e9 * gpu.efficiency.decode_bandwidth;
  const auto fused = estimate_training(pm, w, gpu, l, TrainingConfig{}, 0.0);
  w.attention_kernel = AttentionKernel::materialized;
  const auto mat = estimate_training(pm, w, gpu, l, TrainingConfig{}, 0.0);
  // Scores: 5 × 18 × 2048 = 184,320 B per token and layer (vs 34h = 78,336 B for the rest), 3 passes.
  const double tokens = 4.0 * 4.0 * 2048.0; // m × micro-batch × s on one GPU
  CHECK(mat.elementwise_s - fused.elementwise_s == Approx(tokens * 24.0 * 184'320.0 * 3.0 / hbm));
  // Stored for the 4 × 2048 tokens of the micro-batch in flight (no recompute, no pipeline).
  CHECK(mat.memory.activations_bytes - fused.memory.activations_bytes == Approx(8192.0 * 24.0 * 184'320.0));
  // Selective recompute drops them from memory (one layer's working set stays) and re-runs them.
  l.recompute = Recompute::selective;
  const auto sel = estimate_training(pm, w, gpu, l, TrainingConfig{}, 0.0);
  w.attention_kernel = AttentionKernel::fused;
  const auto sel_fused = estimate_training(pm, w, gpu, l, TrainingConfig{}, 0.0);
  CHECK(sel.memory.activations_bytes - sel_fused.memory.activations_bytes == Approx(8192.0 * 184'320.0));
  CHECK(sel.elementwise_s - sel_fused.elementwise_s == Approx(tokens * 24.0 * 184'320.0 * 4.0 / hbm));
}

namespace {

// The activation bytes `framework` adds over the generic framework for one Llama-3.1-8B run.
double activations_over_generic(TrainingFramework framework, const TrainingLayout& l, TrainingWorkload w) {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const auto generic = estimate_training(p8, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  w.framework = framework;
  const auto other = estimate_training(p8, w, h100_for_layouts(), l, TrainingConfig{}, 0.0);
  return other.memory.activations_bytes - generic.memory.activations_bytes;
}

} // namespace

TEST_CASE("torchtitan's FP32 loss peak holds 12 B per token and vocabulary entry [TT-LOSS]", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  CHECK(loss_bytes_per_logit(TrainingFramework::generic) == 6.0);
  CHECK(loss_bytes_per_logit(TrainingFramework::torchtitan) == 12.0);
  // Local batch 2 × 8192 tokens: 16,384 × 128,256 × 12 = 25.2 GB (vs 12.6 GB at 6 B).
  CHECK(logits_bytes(p8, 16384, 1, false, 12.0) / 1e9 == Approx(25.217).epsilon(1e-3));
  // Chunked: 16-bit logits of all tokens + the FP32 part (10 B) of one 1,024-token chunk.
  CHECK(logits_bytes(p8, 8192, 1, true, 12.0) == (8192.0 * 2.0 + 1024.0 * 10.0) * 128256.0);
  // In the estimate: only the framework changes the loss term.
  TrainingLayout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.micro_batch = 2;
  l.recompute = Recompute::per_op;
  CHECK(activations_over_generic(TrainingFramework::torchtitan, l, pretrain_for_layouts(8192, 16)) ==
        Approx(16384.0 * 128256.0 * 6.0));
}

TEST_CASE("Hugging Face transformers' loss holds torchtitan's 12 B per logit [HF-LOSS]", "[core]") {
  // ForCausalLMLoss upcasts the logits and calls cross_entropy: the same ops as torchtitan.
  CHECK(loss_bytes_per_logit(TrainingFramework::transformers) == 12.0);
  // Llama-3.1-8B, one GPU, micro-batch 4 × 2,048 without recompute (a first-hand H200 shape):
  // 8,192 tokens × 128,256 × (12 − 6) B = 6.30 GB more than the generic framework counts.
  TrainingLayout l;
  l.micro_batch = 4;
  l.recompute = Recompute::none;
  const double more =
      activations_over_generic(TrainingFramework::transformers, l, pretrain_for_layouts(2048, 4));
  CHECK(more == Approx(8192.0 * 128256.0 * 6.0));
  CHECK(more / 1e9 == Approx(6.304).epsilon(1e-3));
}

TEST_CASE("training frameworks: one parser, to_string's spelling") {
  for (const TrainingFramework f : k_training_frameworks)
    CHECK(parse_training_framework(to_string(f)) == f);
  CHECK(parse_training_framework("transformers") == TrainingFramework::transformers);
  CHECK_FALSE(parse_training_framework("deepspeed").has_value());
  CHECK_FALSE(parse_training_framework("").has_value());
  CHECK(training_framework_names() ==
        std::vector<std::string>{"generic", "megatron", "nemo", "torchtitan", "transformers"});
}
