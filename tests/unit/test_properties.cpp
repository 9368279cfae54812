// Property tests (seeded random generation) for the estimator's invariants on random
// architectures, not only Llama: memory is monotone in parameters, context and concurrency; the
// recommend winner meets every SLA and no cheaper passing candidate exists; results do not depend
// on catalog order and are deterministic; formats round-trip.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "io/json/checks.hpp"
#include "io/json/json_reader.hpp"
#include "render/render.hpp"
#include "rightsize/search.hpp"
#include "rightsize/text.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

using i64 = std::int64_t;
constexpr std::uint64_t k_seed = 20261122;

i64 pick(std::mt19937_64& rng, std::initializer_list<i64> values) {
  std::uniform_int_distribution<std::size_t> d(0, values.size() - 1);
  return *(values.begin() + static_cast<std::ptrdiff_t>(d(rng)));
}

i64 between(std::mt19937_64& rng, i64 lo, i64 hi) {
  return std::uniform_int_distribution<i64>(lo, hi)(rng);
}

// A random valid decoder: MHA/GQA/MQA or MLA, dense or MoE, optional sliding window, gated or
// plain FFN, tied or not. Sizes span 10M to ~100B parameters.
ModelSpec random_model(std::mt19937_64& rng) {
  ModelSpec m;
  m.name = "random";
  m.layers = between(rng, 1, 96);
  m.heads = pick(rng, {1, 2, 4, 8, 12, 16, 32, 64});
  m.head_dim = pick(rng, {32, 64, 96, 128});
  m.hidden_size = rng() % 4 == 0 ? between(rng, 64, 8192) : m.heads * m.head_dim;
  std::vector<i64> divisors;
  for (i64 k = 1; k <= m.heads; ++k) {
    if (m.heads % k == 0) divisors.push_back(k);
  }
  m.kv_heads = divisors[static_cast<std::size_t>(between(rng, 0, static_cast<i64>(divisors.size()) - 1))];
  m.attention.kind = m.kv_heads == m.heads ? AttentionKind::mha
                     : m.kv_heads == 1     ? AttentionKind::mqa
                                           : AttentionKind::gqa;
  m.ffn_size = between(rng, 1, 4) * m.hidden_size;
  m.ffn_gated = rng() % 2 == 0;
  m.vocab_size = pick(rng, {1000, 32000, 128256, 262144});
  m.tied_embeddings = rng() % 3 == 0;
  m.qkv_bias = rng() % 4 == 0;
  m.norm = rng() % 4 == 0 ? NormKind::layer : NormKind::rms;
  if (rng() % 3 == 0) {
    m.moe.experts = pick(rng, {4, 8, 16, 64});
    m.moe.experts_per_token = between(rng, 1, std::min<i64>(8, m.moe.experts));
    m.moe.expert_ffn_size = between(rng, 1, 4) * 256;
    m.moe.shared_experts = between(rng, 0, 2);
    m.moe.dense_layers = between(rng, 0, m.layers);
  }
  if (rng() % 5 == 0) {
    m.attention.kind = AttentionKind::mla;
    m.kv_heads = m.heads;
    m.attention.kv_lora_rank = pick(rng, {128, 512});
    m.attention.rope_head_dim = 64;
    m.attention.qk_nope_head_dim = 128;
    m.attention.v_head_dim = 128;
    m.attention.q_lora_rank = pick(rng, {0, 1536});
    m.head_dim = 192;
  }
  if (rng() % 4 == 0) {
    m.attention.sliding_window = pick(rng, {512, 4096});
    m.attention.sliding_window_layers = between(rng, 0, m.layers);
  }
  return m;
}

Precision random_precision(std::mt19937_64& rng) {
  static const NumberFormat formats[] = {NumberFormat::bf16, NumberFormat::fp8, NumberFormat::int4_awq,
                                         NumberFormat::fp16, NumberFormat::fp32};
  return precision_from_shorthand(formats[rng() % 5]);
}

InferenceWorkload workload(i64 input, i64 output, i64 concurrency) {
  InferenceWorkload w;
  w.input_tokens = input;
  w.output_tokens = output;
  w.concurrency = concurrency;
  return w;
}

InferenceEstimate run(const ModelSpec& m, const Precision& p, const InferenceWorkload& w, const Gpu& gpu,
                      const Deployment& d) {
  return estimate_inference(prepare_model(m, p), w, gpu, d, EngineConfig{}, nullptr, 1.0);
}

// More parameters, context or clients never need less memory while every client holds a KV slot;
// clients beyond the slots queue holding none, so a replica whose pool is full holds the pool and
// no more (methodology §3.1 "Clients beyond the KV slots").
void check_grows(const InferenceEstimate& base, const InferenceEstimate& more) {
  if (!base.clients_exceed_kv && !more.clients_exceed_kv) {
    CHECK(more.memory.per_gpu_bytes >= base.memory.per_gpu_bytes);
  } else {
    // A pool that holds at least one sequence holds what fits in it (none fits: no pool at all).
    if (more.max_concurrency >= 1) CHECK(more.memory.per_gpu_bytes <= more.memory.usable_per_gpu_bytes);
    CHECK(more.max_concurrency <= base.max_concurrency);
  }
}

std::vector<Gpu> gpus() {
  return {h100_sxm(), l40s(), a100_80gb_sxm()};
}
const std::vector<double> k_prices = {4.32, 1.50, 2.70};

double cost_key(const Candidate& c) {
  return c.usd_per_million_output_tokens_at_load;
}

} // namespace

TEST_CASE("memory never shrinks with more parameters, context or clients while each holds a slot (random "
          "architectures)",
          "[core][property]") {
  std::mt19937_64 rng(k_seed);
  const Gpu gpu = h100_sxm();
  for (int i = 0; i < 300; ++i) {
    const ModelSpec m = random_model(rng);
    const Precision p = random_precision(rng);
    Deployment d;
    d.tp = static_cast<int>(pick(rng, {1, 2, 4, 8}));
    d.gpus = d.tp;
    const InferenceWorkload w = workload(between(rng, 1, 32768), between(rng, 1, 4096), between(rng, 1, 512));
    const InferenceEstimate base = run(m, p, w, gpu, d);
    REQUIRE(std::isfinite(base.memory.per_gpu_bytes));
    INFO("model " << i << ": L=" << m.layers << " h=" << m.hidden_size << " heads=" << m.heads
                  << " tp=" << d.tp);
    ModelSpec deeper = m;
    deeper.layers += between(rng, 1, 16);
    CHECK(count_params(deeper).total >= count_params(m).total);
    check_grows(base, run(deeper, p, w, gpu, d));
    ModelSpec wider_ffn = m;
    wider_ffn.ffn_size += between(rng, 1, 4096);
    if (wider_ffn.moe.experts > 0) wider_ffn.moe.expert_ffn_size += between(rng, 1, 1024);
    check_grows(base, run(wider_ffn, p, w, gpu, d));
    InferenceWorkload longer = w;
    longer.input_tokens += between(rng, 1, 100000);
    check_grows(base, run(m, p, longer, gpu, d));
    InferenceWorkload busier = w;
    busier.concurrency += between(rng, 1, 512);
    const InferenceEstimate more = run(m, p, busier, gpu, d);
    if (!more.clients_exceed_kv) CHECK(more.memory.per_gpu_bytes >= base.memory.per_gpu_bytes);
    CHECK(more.max_concurrency == base.max_concurrency); // the slots do not depend on the clients
  }
}

TEST_CASE("recommend: the winner meets every SLA and no cheaper passing candidate exists",
          "[core][property]") {
  std::mt19937_64 rng(k_seed + 1);
  const auto list = gpus();
  std::size_t compared = 0; // cases with a winner to compare against the brute force
  for (int i = 0; i < 40; ++i) {
    const ModelSpec m = random_model(rng);
    const std::vector<PreparedModel> models = {prepare_model(m, Precision{}),
                                               prepare_model(m, random_precision(rng))};
    const InferenceWorkload w = workload(between(rng, 64, 8192), between(rng, 16, 1024), 0);
    Sla sla;
    sla.tpot_ms = std::uniform_real_distribution<double>(5.0, 120.0)(rng);
    if (rng() % 2 == 0) sla.ttft_ms = std::uniform_real_distribution<double>(50.0, 5000.0)(rng);
    sla.requests_per_s = std::uniform_real_distribution<double>(0.1, 100.0)(rng);
    const SearchPolicy policy;
    const Recommendation r = recommend(models, w, sla, list, k_prices, policy);
    INFO("case " << i << ": L=" << m.layers << " h=" << m.hidden_size << " experts=" << m.moe.experts);
    for (const Candidate& c : r.candidates) {
      CHECK(c.meets_sla);
      CHECK(c.estimate.memory.fits);
      CHECK(c.estimate.memory.per_gpu_bytes <= c.estimate.memory.usable_per_gpu_bytes);
      CHECK(c.estimate.tpot_s * 1e3 <= *sla.tpot_ms);
      if (sla.ttft_ms) CHECK(c.estimate.ttft_s * 1e3 <= *sla.ttft_ms);
      CHECK(c.estimate.requests_per_s >= *sla.requests_per_s * (1.0 - 1e-12));
    }
    // Brute force over every (precision, GPU, layout): no passing candidate is cheaper than the winner.
    double cheapest = std::numeric_limits<double>::infinity();
    std::size_t passing = 0;
    for (const PreparedModel& pm : models) {
      for (std::size_t g = 0; g < list.size(); ++g) {
        for (const Deployment& layout : replica_layouts(pm.model, list[g], policy)) {
          const Candidate c = evaluate_candidate(pm, w, sla, list[g], layout, k_prices[g], policy);
          if (!c.meets_sla) continue;
          ++passing;
          cheapest = std::min(cheapest, cost_key(c));
        }
      }
    }
    CHECK(r.candidates.size() == passing);
    if (!r.candidates.empty()) {
      CHECK(cost_key(r.candidates.front()) == cheapest);
      ++compared;
    }
  }
  REQUIRE(compared > 0);
}

TEST_CASE("recommend does not depend on catalog order and is deterministic", "[core][property]") {
  std::mt19937_64 rng(k_seed + 2);
  for (int i = 0; i < 20; ++i) {
    const ModelSpec m = random_model(rng);
    const std::vector<PreparedModel> models = {prepare_model(m, random_precision(rng))};
    const InferenceWorkload w = workload(between(rng, 64, 8192), between(rng, 16, 1024), 0);
    Sla sla;
    sla.tpot_ms = std::uniform_real_distribution<double>(10.0, 100.0)(rng);
    sla.requests_per_s = std::uniform_real_distribution<double>(0.5, 50.0)(rng);
    const auto list = gpus();
    const Recommendation a = recommend(models, w, sla, list, k_prices, SearchPolicy{});
    const Recommendation again = recommend(models, w, sla, list, k_prices, SearchPolicy{});
    std::vector<std::size_t> order(list.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<Gpu> shuffled;
    std::vector<double> prices;
    for (std::size_t k : order) {
      shuffled.push_back(list[k]);
      prices.push_back(k_prices[k]);
    }
    const Recommendation b = recommend(models, w, sla, shuffled, prices, SearchPolicy{});
    REQUIRE(a.candidates.size() == b.candidates.size());
    REQUIRE(a.rejected.size() == b.rejected.size());
    REQUIRE(a.candidates.size() == again.candidates.size());
    for (std::size_t k = 0; k < a.candidates.size(); ++k) {
      const Candidate& x = a.candidates[k];
      const Candidate& y = b.candidates[k];
      CHECK(list[x.gpu_index].id == shuffled[y.gpu_index].id);
      CHECK(x.layout.tp == y.layout.tp);
      CHECK(x.layout.pp == y.layout.pp);
      CHECK(x.layout.ep == y.layout.ep);
      CHECK(x.replicas == y.replicas);
      CHECK(cost_key(x) == cost_key(y));
      CHECK(x.estimate.tpot_s == again.candidates[k].estimate.tpot_s);
      CHECK(x.estimate.memory.per_gpu_bytes == again.candidates[k].estimate.memory.per_gpu_bytes);
    }
    for (std::size_t k = 0; k < a.rejected.size(); ++k) {
      CHECK(list[a.rejected[k].gpu_index].id == shuffled[b.rejected[k].gpu_index].id);
      CHECK(a.rejected[k].rejection.term == b.rejected[k].rejection.term);
    }
  }
}

TEST_CASE("every estimate of a random valid model is finite and non-negative", "[core][property]") {
  std::mt19937_64 rng(k_seed + 3);
  const auto list = gpus();
  for (int i = 0; i < 300; ++i) {
    const ModelSpec m = random_model(rng);
    const PreparedModel pm = prepare_model(m, random_precision(rng));
    const InferenceWorkload w = workload(between(rng, 1, 10'000'000), between(rng, 1, 100'000),
                                         rng() % 2 == 0 ? 0 : between(rng, 1, 1'000'000));
    Deployment d;
    d.tp = static_cast<int>(pick(rng, {1, 2, 4, 8}));
    d.pp = static_cast<int>(pick(rng, {1, 1, 2}));
    d.gpus = d.tp * d.pp;
    const Gpu& gpu = list[rng() % list.size()];
    const InferenceEstimate e = estimate_inference(pm, w, gpu, d, EngineConfig{}, nullptr, 2.0);
    INFO("case " << i);
    for (double v : {e.memory.per_gpu_bytes, e.memory.kv_cache_bytes, e.ttft_s, e.tpot_s, e.e2e_s,
                     e.prefill_s, e.output_tokens_per_s, e.requests_per_s, e.usd_per_hour,
                     e.usd_per_million_output_tokens, e.usd_per_request}) {
      CHECK(std::isfinite(v));
      CHECK(v >= 0.0);
    }
    CHECK((!e.memory.fits || e.memory.per_gpu_bytes <= e.memory.usable_per_gpu_bytes));
  }
}

TEST_CASE("round trips: precision names, JSON pointer tokens, grouped counts, round_sig", "[io][property]") {
  for (const auto& info : all_formats()) {
    CHECK(parse_number_format(info.name) == info.format);
    std::string upper(info.name);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    CHECK(parse_number_format(upper) == info.format);
  }
  std::mt19937_64 rng(k_seed + 4);
  const std::string alphabet = "ab~/0 ~1~0/";
  for (int i = 0; i < 500; ++i) {
    std::string key;
    const auto length = between(rng, 0, 8);
    for (i64 k = 0; k < length; ++k)
      key += alphabet[rng() % alphabet.size()];
    const nlohmann::json doc = {{key, i}};
    std::string text = "/";
    text.append(io::pointer_token(key));
    const nlohmann::json::json_pointer pointer(text);
    CHECK(doc.at(pointer) == i);
  }
  for (int i = 0; i < 500; ++i) {
    const i64 v = static_cast<i64>(rng());
    std::string text = with_commas(v);
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    CHECK(std::stoll(text) == v);
  }
  for (i64 v : {std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max(), i64{0}, i64{-1}, i64{999},
                i64{1000}}) {
    std::string text = with_commas(v);
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    CHECK(std::stoll(text) == v);
  }
  std::uniform_real_distribution<double> exponent(-320.0, 308.0);
  for (int i = 0; i < 2000; ++i) {
    const double v = (rng() % 2 == 0 ? 1.0 : -1.0) * std::pow(10.0, exponent(rng));
    const double once = cli::round_sig(v);
    INFO("value " << v);
    CHECK(std::isfinite(once));
    CHECK(cli::round_sig(once) == once);
  }
  for (double v : {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()}) {
    CHECK(std::isfinite(cli::round_sig(v)));
  }
}
