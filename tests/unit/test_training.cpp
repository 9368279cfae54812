// Training estimator against hand-computed worked examples (methodology §3.1–3.5, §4.1–4.2, §5.3–5.4,
// §6.2) and its invariants (seeded property tests).
#include <random>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/training.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

constexpr double k_8b = 8'030'261'248.0; // methodology §1.2
constexpr double k_70b = 70'553'706'496.0;

TrainingWorkload pretrain(std::int64_t seq, std::int64_t global_batch) {
  TrainingWorkload w;
  w.seq_len = seq;
  w.global_batch = global_batch;
  return w;
}

TrainingLayout layout(int tp, int pp, int dp, int zero, Recompute rc = Recompute::none) {
  TrainingLayout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.zero_stage = zero;
  l.recompute = rc;
  return l;
}

// H100 with the training GEMM efficiency this module recommends for the catalog (docs/training.md).
Gpu h100_training() {
  Gpu g = h100_sxm();
  g.efficiency.training_mfu = 0.50;
  return g;
}

} // namespace

TEST_CASE("bytes per parameter by optimizer (methodology §3.1)", "[core]") {
  const auto adam = state_bytes_per_param(Optimizer::adamw, false);
  CHECK(adam.weights + adam.gradients + adam.optimizer == 16.0);
  CHECK(model_state_bytes(k_8b, adam, 0, 1) / 1e9 == Approx(128.48).epsilon(1e-4)); // "128.5 GB"
  const auto megatron = state_bytes_per_param(Optimizer::adamw, true);
  CHECK(model_state_bytes(k_8b, megatron, 0, 1) / 1e9 == Approx(144.54).epsilon(1e-4)); // 18 B: "144.5 GB"
  const auto bnb = state_bytes_per_param(Optimizer::adamw_8bit, false);
  CHECK(bnb.weights + bnb.gradients + bnb.optimizer == 10.0); // 2 + 2 + 4 + 2
  const auto sgd = state_bytes_per_param(Optimizer::sgd, false);
  CHECK(sgd.weights + sgd.gradients + sgd.optimizer == 12.0);                        // 2 + 2 + 4 + 4
  CHECK(model_state_bytes(k_70b, adam, 0, 1) / 1e9 == Approx(1128.9).epsilon(1e-4)); // "1,129 GB"
}

TEST_CASE("ZeRO stages shard model states per methodology §3.2 table", "[core]") {
  const auto b = state_bytes_per_param(Optimizer::adamw, false);
  auto gb = [&](double params, int stage, int n) { return model_state_bytes(params, b, stage, n) / 1e9; };
  // 8B: N_d = 8 → 4Ψ + 12Ψ/8 = 5.5Ψ = 44.2; 2Ψ + 14Ψ/8 = 3.75Ψ = 30.1; 16Ψ/8 = 2Ψ = 16.1 GB.
  CHECK(gb(k_8b, 1, 8) == Approx(44.2).margin(0.05));
  CHECK(gb(k_8b, 2, 8) == Approx(30.1).margin(0.05));
  CHECK(gb(k_8b, 3, 8) == Approx(16.1).margin(0.05));
  CHECK(gb(k_8b, 1, 16) == Approx(38.1).margin(0.05));
  CHECK(gb(k_8b, 2, 16) == Approx(23.1).margin(0.05));
  CHECK(gb(k_8b, 3, 16) == Approx(8.0).margin(0.05));
  CHECK(gb(k_8b, 1, 64) == Approx(33.6).margin(0.05));
  CHECK(gb(k_8b, 2, 64) == Approx(17.8).margin(0.05));
  CHECK(gb(k_8b, 3, 64) == Approx(2.0).margin(0.05));
  // 70B at N_d = 8: 388 / 265 / 141 GB.
  CHECK(gb(k_70b, 1, 8) == Approx(388.0).margin(0.5));
  CHECK(gb(k_70b, 2, 8) == Approx(265.0).margin(0.5));
  CHECK(gb(k_70b, 3, 8) == Approx(141.0).margin(0.5));
  // ZeRO paper example (secondary restatement): Ψ = 7.5 B on 64 GPUs → 31.4 / 16.6 / 1.9 GB.
  CHECK(gb(7.5e9, 1, 64) == Approx(31.4).margin(0.05));
  CHECK(gb(7.5e9, 2, 64) == Approx(16.6).margin(0.05));
  CHECK(gb(7.5e9, 3, 64) == Approx(1.9).margin(0.05));
}

TEST_CASE("activation bytes per layer, recompute modes and logits (methodology §3.3)", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  // 8h + 4h_q + 4h_kv + 8I = 32,768 + 16,384 + 4,096 + 114,688 = 167,936 B/token/layer.
  CHECK(activation_bytes_per_token_layer(p8, 1, false) == 167'936.0);
  CHECK(activation_bytes_per_token_layer(p70, 1, false) == 331'776.0);
  // TP8 without SP: 8h replicated + (4h_q + 4h_kv + 8I)/8 = 32,768 + 135,168/8 = 49,664; with SP ÷8.
  CHECK(activation_bytes_per_token_layer(p8, 8, false) == 49'664.0);
  CHECK(activation_bytes_per_token_layer(p8, 8, true) == 20'992.0);
  // 8B, s = 8192, b = 1: 32 × 8192 × 167,936 = 44.0 GB; full recompute 32 × 8192 × 2 × 4096 = 2.15 GB.
  CHECK(stored_activation_bytes(p8, 8192, 32, 1, false, Recompute::none) / 1e9 ==
        Approx(44.02).epsilon(1e-3));
  CHECK(stored_activation_bytes(p8, 8192, 32, 1, false, Recompute::full) / 1e9 ==
        Approx(2.147).epsilon(1e-3));
  // FlashAttention: no s² term, so selective stores what "none" stores.
  CHECK(stored_activation_bytes(p8, 8192, 32, 1, false, Recompute::selective) ==
        stored_activation_bytes(p8, 8192, 32, 1, false, Recompute::none));
  CHECK(stored_activation_bytes(p8, 4096, 32, 1, false, Recompute::none) / 1e9 == Approx(22.0).epsilon(2e-3));
  // 70B, s = 8192: 217 GB, 27.2 GB per GPU at TP8 + SP; full recompute 10.7 GB.
  CHECK(stored_activation_bytes(p70, 8192, 80, 1, false, Recompute::none) / 1e9 ==
        Approx(217.4).epsilon(1e-3));
  CHECK(stored_activation_bytes(p70, 8192, 80, 8, true, Recompute::none) / 1e9 ==
        Approx(27.17).epsilon(1e-3));
  CHECK(stored_activation_bytes(p70, 8192, 80, 1, false, Recompute::full) / 1e9 ==
        Approx(10.74).epsilon(1e-3));
  // Logits: 8192 × 128,256 × 6 = 6.30 GB; vocab-parallel over 8 → 0.79 GB.
  CHECK(logits_bytes(p8, 8192, 1) == 8192.0 * 128256.0 * 6.0);
  CHECK(logits_bytes(p8, 8192, 1) / 1e9 == Approx(6.30).epsilon(1e-3));
  CHECK(logits_bytes(p8, 8192, 8) == Approx(logits_bytes(p8, 8192, 1) / 8.0));
}

TEST_CASE("LoRA parameters and the QLoRA base (methodology §3.4)", "[core]") {
  // r = 16, all seven projections: q 131,072 + k 81,920 + v 81,920 + o 131,072 + 3 × 294,912
  // = 1,310,720 per layer × 32 = 41,943,040 (0.52 %); 70B: 2,588,672 × 80 = 207,093,760.
  CHECK(lora_trainable_params(llama31_8b(), 16) == 41'943'040);
  CHECK(lora_trainable_params(llama31_70b(), 16) == 207'093'760);
  CHECK(static_cast<double>(lora_trainable_params(llama31_8b(), 16)) * 16.0 / 1e9 ==
        Approx(0.67).epsilon(0.01)); // states
  // QLoRA: (8,030,261,248 − 1,050,673,152) × 4.127/8 + 1,050,673,152 × 2 ≈ 5.70 GB.
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  CHECK(qlora_base_weight_bytes(p8) == Approx(6'979'588'096.0 * 4.127 / 8.0 + 2'101'346'304.0));
  CHECK(qlora_base_weight_bytes(p8) / 1e9 == Approx(5.70).epsilon(0.005));
  // 70B: 68,452,360,192 × 4.127/8 + 2,101,346,304 × 2 = 39.5 GB. (Methodology §3.4 prints 37.4 GB: it
  // adds the 8B's 2.1 GB of embedding + head; the 70B's are 4.2 GB at 16 bit.)
  CHECK(qlora_base_weight_bytes(prepare_model(llama31_70b(), Precision{})) / 1e9 ==
        Approx(39.52).epsilon(0.001));
}

TEST_CASE("LoRA memory: frozen base plus adapter states only", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingWorkload w = pretrain(2048, 16);
  w.method = TrainingMethod::lora;
  const auto e = estimate_training(p8, w, h100_training(), layout(1, 1, 1, 0), TrainingConfig{}, 0.0);
  const double lora = 41'943'040.0;
  CHECK(e.trainable_params == 41'943'040);
  CHECK(e.memory.weights_bytes == Approx(16'060'522'496.0 + 2.0 * lora));
  CHECK(e.memory.gradients_bytes == Approx(2.0 * lora));
  CHECK(e.memory.optimizer_bytes == Approx(12.0 * lora));
  w.method = TrainingMethod::qlora;
  const auto q = estimate_training(p8, w, h100_training(), layout(1, 1, 1, 0), TrainingConfig{}, 0.0);
  CHECK(q.memory.weights_bytes == Approx(qlora_base_weight_bytes(p8) + 2.0 * lora));
  CHECK(q.memory.per_gpu_bytes < e.memory.per_gpu_bytes);
}

TEST_CASE("training FLOPs and GPU-hours reproduce methodology §4.2", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  // 6 × 7,504,658,432 + 6 × 32 × 4096 × 8192 = 51,470,401,536 FLOP per token.
  const auto f = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::none, 0);
  CHECK(f.model_per_token == Approx(51'470'401'536.0));
  CHECK(f.hardware_per_token == f.model_per_token);
  const double c = 100e9 * f.model_per_token; // 100 B tokens
  CHECK(c == Approx(5.15e21).epsilon(1e-3));
  CHECK(c / (989e12 * 0.40 * 3600.0) == Approx(3614.0).epsilon(1e-3));        // H100-hours at MFU 40 %
  CHECK(c / (989e12 * 0.40 * 3600.0) * 4.32 == Approx(15.6e3).epsilon(2e-3)); // §6.2: $15.6 k
  // Forward: 2 × 7,504,658,432 + 16,384 × 32 × 4096 = 17,156,800,512. Full recompute re-runs it minus
  // the LM head (2·V·h = 1,050,673,152); selective re-runs only the attention core (2,147,483,648).
  CHECK(f.forward_per_token == Approx(17'156'800'512.0));
  const auto full = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::full, 0);
  CHECK(full.hardware_per_token - full.model_per_token == Approx(16'106'127'360.0));
  const auto sel = training_flops_per_token(p8, 8192, TrainingMethod::full, Recompute::selective, 0);
  CHECK(sel.hardware_per_token - sel.model_per_token == Approx(2'147'483'648.0));
  // LoRA: 4·N_mm + 3 × attention forward + 6·N_lora = 30,018,633,728 + 6,442,450,944 + 251,658,240.
  const auto lora = training_flops_per_token(p8, 8192, TrainingMethod::lora, Recompute::none, 41'943'040);
  CHECK(lora.model_per_token == Approx(36'712'742'912.0));
}

TEST_CASE("estimate GPU-hours equal FLOPs / (peak × MFU); cost counts GPU-hours once", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingWorkload w = pretrain(8192, 512);
  w.tokens = 100e9;
  const auto e = estimate_training(p8, w, h100_training(), layout(1, 1, 64, 2), TrainingConfig{}, 4.32);
  const double c = 100e9 * 51'470'401'536.0;
  CHECK(e.gpu_hours == Approx(c / (989.5e12 * e.mfu * 3600.0)));
  CHECK(e.gpu_hours == Approx(e.time_to_train_s * 64 / 3600.0));
  CHECK(e.time_to_train_planning_s == Approx(e.time_to_train_s * 1.3)); // the default planning overhead
  CHECK(e.gpu_hours_planning == Approx(1.3 * e.gpu_hours));
  CHECK(e.usd_per_hour == Approx(4.32 * 64));
  CHECK(e.usd_total == Approx(e.gpu_hours_planning * 4.32));
  CHECK(e.usd_total_ideal == Approx(e.gpu_hours * 4.32));
  CHECK(e.nodes == 8);
  CHECK(e.mfu == Approx(e.model_tflops_per_gpu / 989.5));
}

TEST_CASE("pipeline bubble (methodology §5.3)", "[core]") {
  CHECK(pipeline_bubble_fraction(8, 32) == Approx(7.0 / 39.0)); // 17.9 %
  CHECK(pipeline_bubble_fraction(8, 8) == Approx(7.0 / 15.0));  // 46.7 %
  CHECK(pipeline_bubble_fraction(4, 16) == Approx(3.0 / 19.0)); // 15.8 %
  CHECK(pipeline_bubble_fraction(1, 4) == 0.0);
  // In the estimate: p = 8, m = 32 micro-batches, one DP rank → the idle share of the step is 7/39.
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const auto e =
      estimate_training(p8, pretrain(4096, 32), h100_training(), layout(1, 8, 1, 0), TrainingConfig{}, 0.0);
  CHECK(e.micro_batches == 32);
  CHECK(e.bubble_s / (e.compute_s + e.comm_exposed_s + e.bubble_s) == Approx(7.0 / 39.0));
}

TEST_CASE("DP gradient all-reduce of the 8B on 8 NVLink GPUs ≈ 0.08 s (methodology §5.4)", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  Gpu g = h100_training();
  g.efficiency.communication = 0.8; // 450 × 0.8 = 360 GB/s as in the worked example
  TrainingConfig cfg;
  cfg.dp_overlap_fraction = 0.0;
  const auto e = estimate_training(p8, pretrain(2048, 8), g, layout(1, 1, 8, 0), cfg, 0.0);
  // 2 × 7/8 × 16,060,522,496 B / 360e9 B/s + 5 µs + 14 × 0.8 µs = 0.0781 s.
  CHECK(e.comm_exposed_s == Approx(2.0 * 7.0 / 8.0 * 2.0 * k_8b / 360e9 + 5e-6 + 14 * 0.8e-6));
  CHECK(e.comm_exposed_s == Approx(0.078).epsilon(0.01));
  // Across 8 nodes (64 GPUs, 50 GB/s NIC at 0.8): the 8 members of the ring in each node carry one NCCL
  // channel each over their own NIC, min(8 × 50, 450 NVLink) × 0.8 = 320 GB/s of bus bandwidth:
  // 2 × 63/64 × 16.06 GB / 320 GB/s + 5 µs + 126 × 6 µs ≈ 0.0996 s (one NIC per ring would be 0.79 s).
  const auto x = estimate_training(p8, pretrain(2048, 64), g, layout(1, 1, 64, 0), cfg, 0.0);
  CHECK(x.comm_exposed_s == Approx(2.0 * 63.0 / 64.0 * 2.0 * k_8b / 320e9 + 5e-6 + 126 * 6e-6));
  CHECK(x.comm_exposed_s == Approx(0.0996).epsilon(0.01));
  // TP8 inside each node leaves one DP member per node: its 1/8 of the gradients over one NIC, 40 GB/s.
  const auto tp8 = estimate_training(p8, pretrain(2048, 8), g, layout(8, 1, 8, 0), cfg, 0.0);
  CHECK(tp8.dp_comm_exposed_s == Approx(2.0 * 7.0 / 8.0 * 2.0 * k_8b / 8.0 / 40e9).epsilon(0.02));
  // With overlap only the part the last micro-batch's backward cannot hide stays exposed.
  const auto hidden = estimate_training(p8, pretrain(2048, 8), g, layout(1, 1, 8, 0), TrainingConfig{}, 0.0);
  CHECK(hidden.comm_exposed_s == Approx(0.2 * e.comm_exposed_s));
}

TEST_CASE("per-GPU memory of full fine-tuning adds states, activations, reserve and slack", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const TrainingConfig cfg;
  const auto e = estimate_training(p8, pretrain(8192, 8), h100_training(), layout(1, 1, 8, 3), cfg, 0.0);
  const MemoryEstimate& m = e.memory;
  CHECK(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes == Approx(2.0 * k_8b)); // 16.1 GB (§3.2)
  CHECK(m.activations_bytes == Approx(44'023'414'784.0 + 8192.0 * 128256.0 * 6.0));     // 44.0 + 6.3 GB
  // ZeRO-3 gather buffer: 2 layers × 218,112,000 params × 2 B (methodology §3.2).
  const double gather = 2.0 * 2.0 * (k_8b - 2.0 * 525'336'576.0) / 32.0;
  const double itemized = 2.0 * k_8b + m.activations_bytes + gather;
  CHECK(m.overhead_bytes == Approx(cfg.runtime_reserve_bytes + gather + 0.08 * itemized));
  CHECK(m.per_gpu_bytes == Approx(itemized * 1.08 + cfg.runtime_reserve_bytes));
  CHECK(m.per_gpu_bytes / 1e9 == Approx(74.8).epsilon(0.002));
  CHECK(m.usable_per_gpu_bytes == Approx(80.0 * 1073741824.0 * 0.99 * 0.95)); // 80.8 GB
  CHECK(m.fits);
  // Two sequences per micro-batch double the 50 GB of activations: only full recompute fits then.
  auto two = layout(1, 1, 8, 3);
  two.micro_batch = 2;
  CHECK_FALSE(estimate_training(p8, pretrain(8192, 16), h100_training(), two, cfg, 0.0).memory.fits);
  two.recompute = Recompute::full;
  CHECK(estimate_training(p8, pretrain(8192, 16), h100_training(), two, cfg, 0.0).memory.fits);
}

TEST_CASE("optimizer offload moves states to the host and pays PCIe (methodology §3.5)", "[core]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingLayout l = layout(1, 1, 1, 0, Recompute::full);
  l.cpu_offload = true;
  const auto e = estimate_training(p8, pretrain(2048, 4), h100_training(), l, TrainingConfig{}, 0.0);
  CHECK(e.memory.optimizer_bytes == 0.0);
  CHECK(e.memory.weights_bytes == Approx(2.0 * k_8b));
  // 4Ψ over PCIe Gen5 at 64 × 0.75 GB/s, plus the CPU update at 1e9 params/s.
  CHECK(e.offload_s == Approx(4.0 * k_8b / 48e9 + k_8b / 1e9));
  CHECK(e.optimizer_step_s == 0.0);
}

TEST_CASE("MFU of a Megatron-like Llama-70B run on 64+ H100 lands in the 38–48 % band (§4.5)", "[core]") {
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  for (int gpus : {64, 128, 256}) {
    const auto e = search_training_layout(p70, pretrain(4096, 1024), h100_training(), gpus, LayoutPins{},
                                          TrainingConfig{}, 0.0);
    CAPTURE(gpus, e.layout.tp, e.layout.pp, e.layout.dp);
    CHECK(e.memory.fits);
    CHECK(e.mfu >= 0.38);
    CHECK(e.mfu <= 0.48);
  }
  LayoutPins pins; // the classic Megatron split: TP8 inside the node, PP4 across nodes
  pins.tp = 8;
  pins.pp = 4;
  const auto m =
      search_training_layout(p70, pretrain(4096, 1024), h100_training(), 64, pins, TrainingConfig{}, 0.0);
  CHECK(m.layout.tp == 8);
  CHECK(m.layout.pp == 4);
  CHECK(m.layout.dp == 2);
  CHECK(m.mfu >= 0.38);
  CHECK(m.mfu <= 0.48);
}

TEST_CASE("search honours pins and workload choices, and reports when nothing fits", "[core]") {
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  TrainingWorkload w = pretrain(4096, 256);
  w.zero_stage = 1;
  w.recompute = Recompute::full;
  LayoutPins pins;
  pins.tp = 4;
  const auto e = search_training_layout(p70, w, h100_training(), 32, pins, TrainingConfig{}, 0.0);
  CHECK(e.layout.tp == 4);
  CHECK(e.layout.zero_stage == 1);
  CHECK(e.layout.recompute == Recompute::full);
  CHECK(e.gpus == 32);
  CHECK(e.memory.fits);
  // 70B full fine-tuning on one node of 8 H100 needs > 141 GB/GPU of states: nothing fits.
  const auto no = search_training_layout(p70, pretrain(4096, 64), h100_training(), 8, LayoutPins{},
                                         TrainingConfig{}, 0.0);
  CHECK_FALSE(no.memory.fits);
  CHECK(no.bound == Bound::capacity);
  CHECK(no.gpus == 8);
  // Deterministic.
  const auto again = search_training_layout(p70, pretrain(4096, 64), h100_training(), 8, LayoutPins{},
                                            TrainingConfig{}, 0.0);
  CHECK(again.memory.per_gpu_bytes == no.memory.per_gpu_bytes);
  CHECK(again.layout.tp == no.layout.tp);
  CHECK(again.layout.pp == no.layout.pp);
  // QLoRA of the 70B fits one 80 GB GPU.
  TrainingWorkload q = pretrain(2048, 16);
  q.method = TrainingMethod::qlora;
  const auto one = search_training_layout(p70, q, h100_training(), 1, LayoutPins{}, TrainingConfig{}, 0.0);
  CHECK(one.memory.fits);
  CHECK(one.trainable_params == 207'093'760);
}

TEST_CASE("MoE: expert parallelism shards experts and pays all-to-all", "[core]") {
  const PreparedModel mx = prepare_model(mixtral_8x7b(), Precision{});
  TrainingLayout l = layout(1, 1, 8, 1, Recompute::full);
  const auto e1 = estimate_training(mx, pretrain(4096, 64), h100_training(), l, TrainingConfig{}, 0.0);
  l.ep = 8;
  const auto e8 = estimate_training(mx, pretrain(4096, 64), h100_training(), l, TrainingConfig{}, 0.0);
  CHECK(e8.memory.weights_bytes < e1.memory.weights_bytes / 3.0);
  CHECK(e8.comm_exposed_s > e1.comm_exposed_s);
  const auto s = search_training_layout(mx, pretrain(4096, 256), h100_training(), 16, LayoutPins{},
                                        TrainingConfig{}, 0.0);
  CHECK(s.memory.fits);
}

TEST_CASE("enum names", "[core]") {
  CHECK(std::string(to_string(TrainingMethod::qlora)) == "qlora");
  CHECK(std::string(to_string(Optimizer::adamw_8bit)) == "adamw-8bit");
  CHECK(std::string(to_string(Recompute::selective)) == "selective");
}

TEST_CASE("properties: ZeRO-3 memory, recompute ordering, linear time and cost", "[core][property]") {
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> dp_pick(1, 32);
  std::uniform_int_distribution<int> seq_pick(256, 16384);
  std::uniform_int_distribution<int> mb_pow(0, 3);
  std::uniform_int_distribution<int> tp_pow(0, 3);
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const PreparedModel p70 = prepare_model(llama31_70b(), Precision{});
  const Gpu g = h100_training();
  const TrainingConfig cfg;
  for (int i = 0; i < 200; ++i) {
    const PreparedModel& pm = (i % 2 == 0) ? p8 : p70;
    TrainingWorkload w = pretrain(seq_pick(rng), 512);
    TrainingLayout l = layout(1 << tp_pow(rng), 1, dp_pick(rng), 3);
    l.micro_batch = std::int64_t{1} << mb_pow(rng);
    // More GPUs under ZeRO-3 never need more memory per GPU.
    TrainingLayout more = l;
    more.dp += dp_pick(rng);
    const auto a = estimate_training(pm, w, g, l, cfg, 1.0);
    const auto b = estimate_training(pm, w, g, more, cfg, 1.0);
    CHECK(b.memory.per_gpu_bytes <= a.memory.per_gpu_bytes);
    // full ≤ selective ≤ none in memory, ≥ in step time.
    l.zero_stage = i % 4;
    l.pp = (i % 3 == 0) ? 2 : 1;
    l.recompute = Recompute::none;
    const auto none = estimate_training(pm, w, g, l, cfg, 1.0);
    l.recompute = Recompute::selective;
    const auto sel = estimate_training(pm, w, g, l, cfg, 1.0);
    l.recompute = Recompute::full;
    const auto full = estimate_training(pm, w, g, l, cfg, 1.0);
    CHECK(full.memory.per_gpu_bytes <= sel.memory.per_gpu_bytes);
    CHECK(sel.memory.per_gpu_bytes <= none.memory.per_gpu_bytes);
    CHECK(full.step_time_s >= sel.step_time_s * (1.0 - 1e-12));
    CHECK(sel.step_time_s >= none.step_time_s * (1.0 - 1e-12));
    // More tokens → proportionally more time and cost.
    w.tokens = 1e9 * (1 + i % 7);
    const auto t1 = estimate_training(pm, w, g, l, cfg, 2.5);
    w.tokens *= 3.0;
    const auto t3 = estimate_training(pm, w, g, l, cfg, 2.5);
    CHECK(t3.time_to_train_s == Approx(3.0 * t1.time_to_train_s));
    CHECK(t3.usd_total == Approx(3.0 * t1.usd_total));
    CHECK(t3.gpu_hours == Approx(3.0 * t1.gpu_hours));
  }
}

TEST_CASE("Megatron-LM 2021 A100 throughput cases stay within ±25 % (validation-public.json)", "[core]") {
  // GPT layers (MHA, LayerNorm, GELU 4h, biases, tied embeddings, V = 51,200), s = 2048, full recompute,
  // ZeRO-0, A100 80GB SXM at the recommended GEMM efficiency 0.50. Measured TFLOP/s use Megatron's
  // formula 96·l·h²·(1 + s/6h + V/16lh) per token, applied here to the predicted tokens/s.
  struct Case {
    int layers, hidden, heads, gpus, tp, pp, dp;
    std::int64_t global_batch;
    double measured_tflops;
  };
  const Case cases[] = {{24, 2304, 24, 32, 1, 1, 32, 512, 137.0},
                        {80, 12288, 96, 1536, 8, 8, 24, 2304, 148.0},
                        {128, 25600, 160, 3072, 8, 64, 6, 3072, 163.0}};
  Gpu g = a100_80gb_sxm();
  g.efficiency.training_mfu = 0.50;
  for (const Case& c : cases) {
    ModelSpec m;
    m.layers = c.layers;
    m.hidden_size = c.hidden;
    m.heads = m.kv_heads = c.heads;
    m.head_dim = c.hidden / c.heads;
    m.ffn_size = 4 * std::int64_t{c.hidden};
    m.ffn_gated = false;
    m.vocab_size = 51200;
    m.tied_embeddings = m.qkv_bias = m.o_bias = m.mlp_bias = true;
    m.norm = NormKind::layer;
    m.attention.kind = AttentionKind::mha;
    TrainingWorkload w = pretrain(2048, c.global_batch);
    w.zero_stage = 0;
    w.recompute = Recompute::full;
    LayoutPins pins;
    pins.tp = c.tp;
    pins.pp = c.pp;
    pins.dp = c.dp;
    const auto e =
        search_training_layout(prepare_model(m, Precision{}), w, g, c.gpus, pins, TrainingConfig{}, 0.0);
    const double l = c.layers, h = c.hidden;
    const double per_token = 96.0 * l * h * h * (1.0 + 2048.0 / (6.0 * h) + 51200.0 / (16.0 * l * h));
    CAPTURE(c.layers);
    CHECK(e.memory.fits);
    CHECK(per_token * e.tokens_per_s_per_gpu / 1e12 == Approx(c.measured_tflops).epsilon(0.25));
  }
}
