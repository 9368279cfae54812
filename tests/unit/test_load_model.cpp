// Arrival-model formulas (methodology §4.7) and engine profiles (§4.6) against hand-computed values.
#include <cmath>
#include <cstdint>

#include <catch2/catch.hpp>

#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/load_model.hpp"

using namespace rightsize;

TEST_CASE("exact MVA of one queue and a think time, by hand", "[load]") {
  // S = 1 s, Z = 1 s. k = 1: R = 1, X = 1/(1+1) = 0.5, Q = 0.5.
  // k = 2: R = 1·(1 + 0.5) = 1.5, X = 2/(1.5 + 1) = 0.8, Q = 1.2; U = X·S = 0.8.
  const load::ClosedResult r = load::closed_mva(1.0, 1.0, 2);
  CHECK(r.response_s == Approx(1.5));
  CHECK(r.throughput_per_s == Approx(0.8));
  CHECK(r.utilization == Approx(0.8));
  // No think time: two customers always queue, R = S·(1 + 1) = 2, X = 1, U = 1.
  const load::ClosedResult busy = load::closed_mva(1.0, 0.0, 2);
  CHECK(busy.response_s == Approx(2.0));
  CHECK(busy.utilization == Approx(1.0));
  CHECK(load::closed_mva(1.0, 1.0, 0).throughput_per_s == 0.0);
}

TEST_CASE("exact MVA at a fractional population, by hand", "[load]") {
  // S = 1 s, Z = 1 s: k = 1 gives R = 1, X = 0.5; k = 2 gives R = 1.5, X = 0.8 (above).
  // 1.5 customers: R = 1.25, X = 0.65, U = 0.65.
  const load::ClosedResult r = load::closed_mva_at(1.0, 1.0, 1.5);
  CHECK(r.response_s == Approx(1.25));
  CHECK(r.throughput_per_s == Approx(0.65));
  CHECK(r.utilization == Approx(0.65));
  // A whole count is closed_mva's.
  CHECK(load::closed_mva_at(1.0, 1.0, 2.0).response_s == Approx(1.5));
  // Half a customer: X = 0.25 (half of one's), and the response is one service, R = 1.
  const load::ClosedResult half = load::closed_mva_at(1.0, 1.0, 0.5);
  CHECK(half.response_s == Approx(1.0));
  CHECK(half.throughput_per_s == Approx(0.25));
}

TEST_CASE("Kingman's G/G/1 wait, by hand", "[load]") {
  // (c_a² + c_s²)/2 · ρ/(1 − ρ) · S: Poisson arrivals (c_a = 1), deterministic service (c_s = 0).
  CHECK(load::kingman_wait_s(0.1, 0.5, 1.0, 0.0) == Approx(0.05)); // 0.5 · 1 · 0.1
  CHECK(load::kingman_wait_s(0.1, 0.8, 1.0, 0.0) == Approx(0.2));  // 0.5 · 4 · 0.1
  CHECK(load::kingman_wait_s(0.1, 0.8, 2.0, 0.0) == Approx(0.8));  // bursty: 2 · 4 · 0.1
  CHECK(std::isinf(load::kingman_wait_s(0.1, 1.0, 1.0, 0.0)));
  CHECK(load::kingman_wait_s(0.1, 0.0, 1.0, 0.0) == 0.0);
}

TEST_CASE("wait quantiles of an exponential tail, by hand", "[load]") {
  // Mean 0.2 s, P(wait) = 0.5: conditional mean 0.4 s; q-quantile 0.4·ln(0.5/(1 − q)).
  CHECK(load::wait_quantile_s(0.2, 0.5, 0.5) == Approx(0.0));
  CHECK(load::wait_quantile_s(0.2, 0.5, 0.9) == Approx(0.4 * std::log(5.0)));   // 0.6438 s
  CHECK(load::wait_quantile_s(0.2, 0.5, 0.99) == Approx(0.4 * std::log(50.0))); // 1.5648 s
  CHECK(load::wait_quantile_s(0.0, 0.5, 0.99) == 0.0);
  CHECK(load::normal_quantile(0.5) == 0.0);
  CHECK(load::normal_quantile(0.9) == Approx(1.2816));
  CHECK(load::normal_quantile(0.99) == Approx(2.3263));
}

TEST_CASE("SGLang's defaults follow GPU memory and TP; vLLM's do not", "[engine]") {
  const EngineConfig sglang = test::shipped_engine(EngineKind::sglang);
  Gpu h100 = test::h100_sxm(); // 80 GB → 73.7 GiB visible: the 35–160 GiB tier
  CHECK(engine_for_gpu(sglang, h100, 2).max_batched_tokens == 8192);
  CHECK(engine_for_gpu(sglang, h100, 2).cuda_graph_max_batch == 256);
  CHECK(engine_for_gpu(sglang, h100, 8).cuda_graph_max_batch == 512);
  Gpu b200 = h100;
  b200.memory_bytes = 180e9; // 165.9 GiB visible: above 160 GiB
  CHECK(engine_for_gpu(sglang, b200, 1).max_batched_tokens == 16384);
  Gpu l4 = test::l40s();
  l4.memory_bytes = 24e9; // 21.1 GiB: below 35 GiB
  CHECK(engine_for_gpu(sglang, l4, 1).max_batched_tokens == 2048);
  CHECK(engine_for_gpu(sglang, l4, 1).cuda_graph_max_batch == 8);
  const EngineConfig vllm = test::shipped_engine(EngineKind::vllm);
  CHECK(engine_for_gpu(vllm, b200, 1).max_batched_tokens == vllm.max_batched_tokens);
  EngineConfig pinned = sglang;
  pinned.gpu_memory_tier_count = 0; // what --max-batched-tokens does
  pinned.max_batched_tokens = 4096;
  CHECK(engine_for_gpu(pinned, b200, 1).max_batched_tokens == 4096);
  CHECK(parse_engine_kind("tensorrt-llm") == EngineKind::trtllm);
  CHECK_FALSE(parse_engine_kind("TGI").has_value());
}

TEST_CASE("an unmeasured GPU never gets a better factor than a measured sibling", "[calibration]") {
  Gpu measured = test::h100_sxm();
  measured.architecture = "Hopper";
  measured.efficiency.provenance = "defaults: methodology §4.5";
  Gpu sibling = measured;
  sibling.id = "H200-SXM";
  Gpu stranger = measured;
  stranger.id = "MI300X";
  stranger.architecture = "CDNA 3";
  Calibration cal;
  FittedEfficiency pooled;
  pooled.gpu_id.assign(1, '*'); // (assign: GCC 12 -Wrestrict false positive on = "*")
  pooled.efficiency.decode_bandwidth = 0.79;
  pooled.efficiency.prefill_compute = 0.50;
  pooled.communication_source = "fitted"; // no GPU measured on its own: every GPU gets the pool
  pooled.communication_cases = {"x", "y"};
  FittedEfficiency own;
  own.gpu_id = "H100-SXM";
  own.efficiency.decode_bandwidth = 0.70;
  own.efficiency.prefill_compute = 0.36;
  own.decode_source = own.prefill_source = "fitted";
  own.decode_cases = {"a", "b"};
  own.prefill_cases = {"c"};
  cal.gpus = {pooled, own};
  std::vector<Gpu> gpus{measured, sibling, stranger};
  apply_calibration(cal, gpus);
  CHECK(gpus[0].efficiency.decode_bandwidth == Approx(0.70)); // its own fit
  CHECK(gpus[1].efficiency.decode_bandwidth == Approx(0.70)); // pooled 0.79 capped at the Hopper sibling
  CHECK(gpus[1].efficiency.prefill_compute == Approx(0.36));
  CHECK(gpus[2].efficiency.prefill_compute == Approx(0.36)); // no CDNA sibling: lowest measured anywhere
  CHECK(gpus[1].efficiency.provenance.find("extrapolated from Hopper siblings") != std::string::npos);
  CHECK(gpus[2].efficiency.provenance.find("extrapolated (no measured sibling)") != std::string::npos);
  CHECK(gpus[0].efficiency.provenance.find("decode fitted (2 cases)") != std::string::npos);
  CHECK(gpus[2].efficiency.provenance.find("communication pooled over GPUs (2 cases)") != std::string::npos);
}

TEST_CASE("every GPU takes the pooled UNet fraction, measured entries too", "[calibration]") {
  Gpu own_entry = test::h100_sxm();
  own_entry.efficiency.entry_measured = true;
  Gpu fitted = test::l40s();
  fitted.efficiency.provenance = "defaults: methodology §4.5";
  Calibration cal;
  FittedEfficiency pooled;
  pooled.gpu_id.assign(1, '*');
  pooled.efficiency.unet_gemm_fraction = 0.7;
  pooled.unet_cases = {"u1", "u2"};
  FittedEfficiency l40s; // a per-GPU entry as read from the JSON: no fraction of its own
  l40s.gpu_id = fitted.id;
  cal.gpus = {pooled, l40s};
  std::vector<Gpu> gpus{own_entry, fitted};
  apply_calibration(cal, gpus);
  CHECK(gpus[0].efficiency.unet_gemm_fraction == Approx(0.7));
  CHECK(gpus[1].efficiency.unet_gemm_fraction == Approx(0.7));
}

TEST_CASE("the calibration leaves an entry's own measured factors alone", "[calibration]") {
  Gpu gpu = test::h100_sxm();
  gpu.efficiency.decode_bandwidth = 0.5;
  gpu.efficiency.provenance = "our lab";
  gpu.efficiency.entry_measured = true;
  Calibration cal;
  FittedEfficiency own;
  own.gpu_id = gpu.id;
  own.efficiency.decode_bandwidth = 0.84;
  own.decode_source = "fitted";
  own.decode_cases = {"a", "b"};
  cal.gpus = {own};
  std::vector<Gpu> gpus{gpu};
  apply_calibration(cal, gpus);
  CHECK(gpus[0].efficiency.decode_bandwidth == Approx(0.5));
  CHECK(gpus[0].efficiency.provenance == "our lab");
  gpus[0].efficiency.entry_measured = false; // the defaults: replaced
  apply_calibration(cal, gpus);
  CHECK(gpus[0].efficiency.decode_bandwidth == Approx(0.84));
}

TEST_CASE("a factor fitted to the serving rows names its rows, not a count of one case", "[calibration]") {
  Gpu gpu = test::h100_sxm();
  gpu.efficiency.provenance = "defaults: methodology §4.5";
  Calibration cal;
  FittedEfficiency own;
  own.gpu_id = gpu.id;
  own.decode_source = "serving";
  own.decode_cases = {"serving-measurements.csv: 132 dense-model rows on H100-SXM"};
  cal.gpus = {own};
  std::vector<Gpu> gpus{gpu};
  apply_calibration(cal, gpus);
  CHECK_THAT(gpus[0].efficiency.provenance,
             Catch::Contains("decode fitted (serving-measurements.csv: 132 dense-model rows on H100-SXM)"));
}

TEST_CASE("inference bands respect the physical floors and build E2E from TTFT and TPOT", "[calibration]") {
  Calibration cal;
  BandEntry ttft{FigureKind::ttft, "X", 0.5, 2.0, 100, "own", ""};
  BandEntry tpot{FigureKind::tpot, "X", 0.5, 2.0, 100, "own", ""};
  BandEntry tput{FigureKind::throughput, "X", 0.5, 2.0, 100, "own", ""};
  cal.bands = {ttft, tpot, tput};
  cal.classes = {ClassWidening{"dense", 10, 1.0}};
  InferenceEstimate e;
  e.ttft_s = 0.1;
  e.tpot_s = 0.02;
  e.e2e_s = 0.1 + 99 * 0.02; // OSL 100
  e.ttft_floor_s = 0.08;     // above 0.5 × 0.1: the floor wins
  e.tpot_floor_s = 0.015;    // above 0.5 × 0.02
  e.output_tokens_per_s = 1000.0;
  e.requests_per_s = 10.0;
  const InferenceBands b = inference_bands(cal, "X", "dense", Reach::measured, e);
  CHECK(b.ttft.low == Approx(0.08));
  CHECK(b.ttft.high == Approx(0.2));
  CHECK(b.tpot.low == Approx(0.015));
  CHECK(b.e2e.low == Approx(0.08 + 99 * 0.015)); // 1.565 s
  CHECK(b.e2e.high == Approx(0.2 + 99 * 0.04));  // 4.16 s
  // Tokens/s at this concurrency cannot beat the decode floor: ≤ 1000 × 0.02/0.015 = 1,333.
  CHECK(b.output_tokens_per_s.high == Approx(1000.0 * 0.02 / 0.015));
  CHECK(b.output_tokens_per_s.low == Approx(500.0));
  e.open_loop = true; // an open loop serves its rate by construction
  CHECK(inference_bands(cal, "X", "dense", Reach::measured, e).requests_per_s.high == Approx(10.0));
}

// The O(N) recursion of Reiser & Lavenberg, as written in methodology §3.1: closed_mva evaluates the
// product form it solves and must agree with it.
static load::ClosedResult mva_recursion(double service_s, double think_s, int customers) {
  load::ClosedResult r;
  double queue = 0.0;
  for (int k = 1; k <= customers; ++k) {
    r.response_s = service_s * (1.0 + queue);
    r.throughput_per_s = static_cast<double>(k) / (r.response_s + think_s);
    queue = r.throughput_per_s * r.response_s;
  }
  r.utilization = std::min(1.0, r.throughput_per_s * service_s);
  return r;
}

TEST_CASE("exact MVA's product form equals the recursion, light to saturated", "[load]") {
  // z = Z/S from far below to far above the customer counts: both summations (from the empty
  // station when N ≤ z, outwards from ⌊z⌋ thinking otherwise), the knee N ≈ z and far past it.
  for (const double think : {0.0, 1e-3, 0.5, 3.0, 40.0, 700.0, 2000.0, 1e6}) {
    for (const int n : {1, 2, 3, 7, 50, 299, 300, 301, 1000, 5000}) {
      const load::ClosedResult want = mva_recursion(1.0, think, n);
      const load::ClosedResult got = load::closed_mva(1.0, think, n);
      INFO("Z/S = " << think << ", N = " << n);
      CHECK(got.response_s == Approx(want.response_s).epsilon(1e-9));
      CHECK(got.throughput_per_s == Approx(want.throughput_per_s).epsilon(1e-9));
      CHECK(got.utilization == Approx(want.utilization).epsilon(1e-9));
    }
  }
  // Scale: S = 0.25 s, Z = 30 s, 120 customers, against the recursion at the same S and Z.
  const load::ClosedResult a = load::closed_mva(0.25, 30.0, 120);
  const load::ClosedResult b = mva_recursion(0.25, 30.0, 120);
  CHECK(a.response_s == Approx(b.response_s).epsilon(1e-9));
  CHECK(a.throughput_per_s == Approx(b.throughput_per_s).epsilon(1e-9));
}

TEST_CASE("exact MVA past saturation: the closed form where the sums would add nothing", "[load]") {
  // Far past the knee (N − z many √z) the station is never idle to double precision and
  // closed_mva returns U = 1, R = N·S − Z without summing (load_model.cpp, `saturated`). Across
  // the switch (at about N − z = √(120·z)) and far past it, the result is the recursion's.
  for (const double think : {3.0, 40.0, 700.0, 5000.0}) {
    const int knee = static_cast<int>(think + std::sqrt(120.0 * think));
    for (const int n : {knee - 40, knee - 3, knee, knee + 3, knee + 40, 4 * knee + 50}) {
      if (n < 1) continue;
      const load::ClosedResult want = mva_recursion(0.5, 0.5 * think, n);
      const load::ClosedResult got = load::closed_mva(0.5, 0.5 * think, n);
      INFO("Z/S = " << think << ", N = " << n);
      CHECK(got.response_s == Approx(want.response_s).epsilon(1e-11));
      CHECK(got.throughput_per_s == Approx(want.throughput_per_s).epsilon(1e-11));
      CHECK(got.utilization == Approx(want.utilization).epsilon(1e-11));
    }
  }
}

TEST_CASE("wave prefill steps: the sum of ceilings in closed form", "[load]") {
  // Hand-worked: ⌈3/4⌉ + ⌈6/4⌉ + ⌈9/4⌉ + ⌈12/4⌉ + ⌈15/4⌉ = 1 + 2 + 3 + 3 + 4 = 13.
  CHECK(load::ceil_sum(5, 3, 4) == 13);
  // A wave of 8 prompts of 3,000 tokens in 8,192-token steps: their last tokens end steps
  // 1, 1, 2, 2, 2, 3, 3, 3 (3,000·i / 8,192 = 0.37, 0.73, 1.10, 1.46, 1.83, 2.20, 2.56, 2.93): 17.
  CHECK(load::ceil_sum(8, 3000, 8192) == 17);
  CHECK(load::ceil_sum(0, 3000, 8192) == 0);
  CHECK(load::ceil_sum(7, 0, 8192) == 0);
  CHECK(load::ceil_sum(4, 8192, 8192) == 10); // whole steps: 1 + 2 + 3 + 4
  // Against the direct sum, over prompt lengths on both sides of the budget and waves to 1,100.
  for (const std::int64_t budget : {16, 2048, 8192, 16384}) {
    for (const std::int64_t isl : {1, 7, 256, 1000, 2048, 3001, 8192, 8193, 32768, 100000}) {
      std::int64_t direct = 0;
      for (std::int64_t i = 1; i <= 1100; ++i) {
        direct += (i * isl + budget - 1) / budget;
        if (i == 1 || i == 33 || i == 512 || i == 1100) {
          INFO("budget " << budget << ", ISL " << isl << ", n " << i);
          CHECK(load::ceil_sum(i, isl, budget) == direct);
        }
      }
    }
  }
  // The io limits' corner: 1,000,000 clients of 10,000,000 tokens in 16-token steps stays exact:
  // Σ i·625,000 = 625,000 · n(n+1)/2.
  CHECK(load::ceil_sum(1'000'000, 10'000'000, 16) == 625'000LL * (1'000'000LL * 1'000'001LL / 2));
}

TEST_CASE("expert reads extrapolate to family siblings only; an unmeasured family keeps the dense rate",
          "[calibration]") {
  Gpu h200 = test::h100_sxm();
  h200.id = "H200-SXM";
  h200.architecture = "Hopper";
  Gpu h100 = h200;
  h100.id = "H100-SXM";
  Gpu a100 = test::a100_80gb_sxm();
  a100.architecture = "Ampere GA100";
  Calibration cal;
  const FittedEfficiency fitted = test::expert_read_fit("H200-SXM", 0.6);
  FittedEfficiency h100_entry; // measured dense factors, no MoE rows of its own
  h100_entry.gpu_id = "H100-SXM";
  FittedEfficiency a100_entry;
  a100_entry.gpu_id = a100.id;
  cal.gpus = {fitted, h100_entry, a100_entry};
  std::vector<Gpu> gpus{h200, h100, a100};
  apply_calibration(cal, gpus);
  const Deployment one;
  const ModelSpec moe = test::mixtral_8x7b();
  const ModelSpec dense = test::llama31_8b();
  CHECK(gpus[0].efficiency.expert_read == Approx(0.6));
  CHECK(efficiency_provenance(gpus[0], one, moe).find("expert reads fitted (serving-measurements.csv: 219") !=
        std::string::npos);
  CHECK(gpus[1].efficiency.expert_read == Approx(0.6)); // the Hopper sibling's
  CHECK(efficiency_provenance(gpus[1], one, moe).find("expert reads extrapolated from Hopper siblings") !=
        std::string::npos);
  // A dense model reads no routed experts: its provenance does not mention them.
  CHECK(efficiency_provenance(gpus[1], one, dense).find("expert reads") == std::string::npos);
  CHECK(gpus[2].efficiency.expert_read == 1.0); // no Ampere GPU measured: the dense rate, unsaid
  CHECK(efficiency_provenance(gpus[2], one, moe).find("expert reads") == std::string::npos);
}

TEST_CASE("Poisson in-flight quantile and the share of time above a cap: worked examples", "[load]") {
  // L = 1: P(N ≤ 3) = e^-1·(1 + 1 + 1/2 + 1/6) = 0.98101, P(N ≤ 4) = 0.98101 + e^-1/24 = 0.99634, so
  // the p99 is 4 and the count exceeds 4 with probability 1 − 0.99634 = 0.00366.
  CHECK(load::poisson_in_flight_quantile(1.0, 0.99) == 4.0);
  CHECK(load::poisson_above_probability(1.0, 4.0) == Approx(0.0036598).epsilon(1e-4));
  CHECK(load::poisson_above_probability(1.0, 0.0) == Approx(1.0 - std::exp(-1.0)));
  // L = 33 (the mean in flight): P(N ≤ 46) = 0.98744, P(N ≤ 47) = 0.99167, so 47, where
  // L + z·√L = 33 + 2.3263·5.7446 = 46.36 rounds up to the same cap.
  CHECK(load::poisson_in_flight_quantile(33.0, 0.99) == 47.0);
  CHECK(load::poisson_above_probability(33.0, 47.0) == Approx(0.0083341).epsilon(1e-4));
  // L = 400 (normal approximation): 400 + 2.3263·20 = 446.526; above 446: 1 − Φ((446.5 − 400)/20)
  // = 1 − Φ(2.325) = 0.010036.
  CHECK(load::poisson_in_flight_quantile(400.0, 0.99) == Approx(446.526));
  CHECK(load::poisson_above_probability(400.0, 446.0) == Approx(0.010036).epsilon(1e-3));
  // Nothing in flight: no cap needed, never above one.
  CHECK(load::poisson_in_flight_quantile(0.0, 0.99) == 0.0);
  CHECK(load::poisson_above_probability(0.0, 1.0) == 0.0);
}
