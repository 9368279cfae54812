// Parameter and KV-cache counts against methodology §1.2, §1.3, §2.3 worked examples.
#include <cmath>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/model.hpp"

using namespace rightsize;
using namespace rightsize::test;

TEST_CASE("dense decoder parameter count matches the published Llama-3.1 figures", "[core]") {
  // methodology §1.2: 8,030,261,248 and 70,553,706,496.
  const ParamCounts c8 = count_params(llama31_8b());
  CHECK(c8.total == 8'030'261'248);
  CHECK(c8.mm_active == 7'504'658'432);
  CHECK(c8.per_layer_attention == 41'943'040);
  ModelSpec m70 = llama31_8b();
  m70.layers = 80;
  m70.hidden_size = 8192;
  m70.heads = 64;
  m70.ffn_size = 28672;
  const ParamCounts c70 = count_params(m70);
  CHECK(c70.total == 70'553'706'496);
  CHECK(c70.mm_active == 69'501'714'432);
}

TEST_CASE("MLA + MoE parameter count matches DeepSeek-V3 (671.03 B total, 37.55 B active)", "[core]") {
  const ParamCounts c = count_params(deepseek_v3());
  CHECK(c.per_layer_attention == 187'107'328); // methodology §1.3: MLA 187.1 M per layer
  CHECK(static_cast<double>(c.total) / 1e9 == Approx(671.03).epsilon(0.001));
  CHECK(static_cast<double>(c.active) / 1e9 == Approx(37.55).epsilon(0.002));
}

TEST_CASE("KV bytes per token: GQA and MLA worked examples", "[core]") {
  // methodology §2.3: 2·32·8·128·2 = 131,072; MLA 61·(512+64)·2 = 70,272.
  CHECK(kv_cache_bytes_per_token(llama31_8b(), 2.0) == 131072.0);
  ModelSpec m70 = llama31_8b();
  m70.layers = 80;
  CHECK(kv_cache_bytes_per_token(m70, 2.0) == 327680.0);
  CHECK(kv_cache_bytes_per_token(deepseek_v3(), 2.0) == 70272.0);
  CHECK(kv_cache_bytes_per_token(llama31_8b(), 1.0) == 65536.0); // fp8 KV halves it
}

TEST_CASE("params_upper_bound is count_params' formula in double arithmetic", "[core]") {
  // One parameter counter: io's overflow guard and the exact count agree to the parameter.
  for (const ModelSpec& m : {llama31_8b(), llama31_70b()}) {
    CHECK(params_upper_bound(m) == Approx(static_cast<double>(count_params(m).total)).epsilon(1e-12));
  }
  // Where the 64-bit count would overflow, the bound stays finite and above the io limit.
  ModelSpec huge = llama31_8b();
  huge.hidden_size = 4'000'000;
  huge.ffn_size = 16'000'000;
  huge.layers = 100'000;
  const double bound = params_upper_bound(huge);
  CHECK(std::isfinite(bound));
  CHECK(bound > 9.3e18); // past INT64_MAX: the exact count cannot be taken, io refuses first
}
