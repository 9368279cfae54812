// Disaggregated prefill/decode serving (methodology §3.6): each formula against a hand-computed
// worked example, and the composition's identities.
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "app/parallel.hpp"
#include "disagg_fixtures.hpp"
#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/disagg_search.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/load_model.hpp"

using namespace rightsize;
using namespace rightsize::test;

TEST_CASE("KV bytes a prompt ships to the decode pool, by hand", "[disagg]") {
  // Llama-3.1-8B, bf16 KV: 32 layers · 8 KV heads · 128 dims · 2 (K and V) · 2 bytes = 131,072 B per
  // token; an 8,192-token prompt ships 8192 · 131072 = 1,073,741,824 B (1 GiB).
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  CHECK(kv_transfer_bytes(pm, 8192) == Approx(1073741824.0));
  CHECK(kv_transfer_bytes(pm, 0) == 0.0);
}

TEST_CASE("the KV link: NVLink inside one scale-up domain, the NIC otherwise", "[disagg]") {
  const Gpu h100 = h100_sxm();
  // TP2 prefill + TP4 decode = 6 GPUs ≤ the 8-GPU NVLink domain: NVLink, 2 lanes at 450 GB/s.
  const KvLink inside = kv_transfer_link(h100, 2, 2, h100, 4, 4);
  CHECK(inside.kind == LinkKind::scaleup);
  CHECK(inside.lanes == 2);
  CHECK(inside.gb_per_s == 450.0);
  // TP4 + TP8 = 12 > 8: RDMA over the NICs, min(4, 8) = 4 lanes at 50 GB/s.
  const KvLink across = kv_transfer_link(h100, 4, 4, h100, 8, 8);
  CHECK(across.kind == LinkKind::network);
  CHECK(across.lanes == 4);
  CHECK(across.gb_per_s == 50.0);
  // Different GPU types never share a domain: the slower NIC.
  Gpu other = h100;
  other.id = "other";
  other.nic_gb_per_s = 25.0;
  CHECK(kv_transfer_link(h100, 1, 1, other, 1, 1).kind == LinkKind::network);
  CHECK(kv_transfer_link(h100, 1, 1, other, 1, 1).gb_per_s == 25.0);
  // The lanes are the KV shards, not the GPUs: an attention-DP worker of 8 GPUs holds each prompt's
  // KV on one rank, so a 4-GPU ADP prefill worker feeding an 8-GPU ADP decode worker sends on 1 lane.
  CHECK(kv_transfer_link(h100, 4, 1, h100, 8, 1).lanes == 1);
}

TEST_CASE("KV shards of one prompt in a worker, by hand", "[disagg]") {
  // Llama-3.1-8B (8 KV heads): TP4 holds 2 heads a rank, 4 shards; TP2·PP2 2 × 2 = 4; TP16 (past the
  // 8 KV heads, which replicate) 8; attention DP 8 (TP1 per rank) 1.
  const PreparedModel llama = prepare_model(llama31_8b(), Precision{});
  Deployment d;
  d.tp = 4;
  CHECK(kv_shards(llama, d) == 4);
  d.tp = 2;
  d.pp = 2;
  CHECK(kv_shards(llama, d) == 4);
  d.tp = 16;
  d.pp = 1;
  CHECK(kv_shards(llama, d) == 8);
  d.tp = 1;
  d.attention_dp = 8;
  CHECK(kv_shards(llama, d) == 1);
  // DeepSeek-V3's MLA latent is replicated on every TP rank: TP8 is one shard, TP8·PP2 two.
  const PreparedModel ds = prepare_model(deepseek_v3(), Precision{});
  Deployment t;
  t.tp = 8;
  CHECK(kv_shards(ds, t) == 1);
  t.pp = 2;
  CHECK(kv_shards(ds, t) == 2);
}

TEST_CASE("KV transfer time, by hand", "[disagg]") {
  // 1 GiB over 4 NIC lanes of 50 GB/s at η_l = 0.75: 1,073,741,824 / (4 · 50e9 · 0.75) = 7.158 ms,
  // plus 11 µs of latency.
  KvLink link;
  link.kind = LinkKind::network;
  link.gb_per_s = 50.0;
  link.lanes = 4;
  CHECK(kv_transfer_s(1073741824.0, link, 0.75, 11e-6) == Approx(0.00715828 + 11e-6).epsilon(1e-5));
  CHECK(kv_transfer_s(0.0, link, 0.75, 11e-6) == 0.0);
}

TEST_CASE("decode pool in-flight sequences by Little's law, by hand", "[disagg]") {
  // 10 requests/s, 1,001 output tokens (1,000 decoded after the first), 20 ms TPOT, 4 decode workers:
  // 10 · 1000 · 0.020 / 4 = 50 sequences per worker.
  CHECK(decode_in_flight(10.0, 1001, 0.020, 4) == Approx(50.0));
  CHECK(decode_in_flight(10.0, 1001, 0.020, 0) == 0.0);
}

namespace {

DisaggDeployment h100_pools(const Gpu& gpu, int prefill_workers, int decode_workers) {
  DisaggDeployment dep;
  dep.prefill.gpu = &gpu;
  dep.prefill.layout.tp = 1;
  dep.prefill.layout.gpus = 1;
  dep.prefill.workers = prefill_workers;
  dep.prefill.price = GpuPrice(2.0);
  dep.decode = dep.prefill;
  dep.decode.layout.tp = 2;
  dep.decode.layout.gpus = 2;
  dep.decode.workers = decode_workers;
  dep.decode.price = GpuPrice(3.0);
  return dep;
}

} // namespace

TEST_CASE("one client: TTFT = fixed share + handoff + idle prefill + KV transfer, TPOT = pure decode step",
          "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 8192;
  w.output_tokens = 1024;
  w.concurrency = 1;
  const DisaggDeployment dep = h100_pools(gpu, 1, 1);
  const DisaggEstimate e = estimate_disagg(pm, w, dep, engine, nullptr);
  CHECK(e.link.kind == LinkKind::scaleup); // 1 + 2 GPUs in one NVLink domain
  CHECK(e.prefill_wait_s == Approx(0.0).margin(1e-12));
  CHECK(e.handoff_s == k_pd_handoff_s);
  CHECK(e.combined.ttft_s == Approx(e.ttft_fixed_s + e.handoff_s + e.prefill_service_s + e.kv_transfer_s));
  // The decode worker alone at one sequence, aggregated estimator, no prefill interference.
  InferenceWorkload wd = w;
  Deployment one = dep.decode.layout;
  const InferenceEstimate alone = estimate_inference(pm, wd, gpu, one, engine, nullptr, 3.0);
  CHECK(e.combined.tpot_s == Approx(alone.decode_step_s));
  // Cost: 1 GPU at $2 + 2 GPUs at $3 = $8 per hour.
  CHECK(e.combined.usd_per_hour == Approx(8.0));
}

TEST_CASE("closed loop: the prefill queue is exact MVA over clients per prefill worker", "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 8192;
  w.output_tokens = 256;
  w.concurrency = 64;
  const DisaggEstimate e = estimate_disagg(pm, w, h100_pools(gpu, 2, 2), engine, nullptr);
  // 64 clients over 2 prefill workers: 32 customers each; think = T_kv + fixed + 255·TPOT.
  const double think = e.kv_transfer_s + e.ttft_fixed_s + e.handoff_s + 255.0 * e.combined.tpot_s;
  const load::ClosedResult q = load::closed_mva(e.prefill_service_s, think, 32);
  CHECK(e.prefill_wait_s == Approx(q.response_s - e.prefill_service_s).epsilon(1e-3));
  CHECK(e.combined.requests_per_s == Approx(2.0 * q.throughput_per_s).epsilon(1e-3));
  // The decode batch satisfies Little's law (within the fixed point's 1 % tolerance).
  CHECK(e.decode_batch ==
        Approx(decode_in_flight(e.combined.requests_per_s, 256, e.combined.tpot_s, 2)).epsilon(0.02));
  // More prefill workers: less queueing.
  const DisaggEstimate wider = estimate_disagg(pm, w, h100_pools(gpu, 4, 2), engine, nullptr);
  CHECK(wider.prefill_wait_s < e.prefill_wait_s);
}

TEST_CASE("an attention-DP prefill worker is one queue per rank", "[disagg]") {
  // Mixtral 8x7B, one prefill worker of 2 attention-DP ranks over 2 expert groups (2 H100s); the
  // budget holds one 4,096-token prompt, so each rank serves whole prompts one at a time.
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(mixtral_8x7b(), Precision{});
  EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  engine.max_batched_tokens = 4096;
  InferenceWorkload w;
  w.input_tokens = 4096;
  w.output_tokens = 128;
  w.concurrency = 32;
  DisaggDeployment dep = h100_pools(gpu, 1, 2);
  dep.prefill.layout.tp = 1;
  dep.prefill.layout.attention_dp = 2;
  dep.prefill.layout.ep = 2;
  dep.prefill.layout.gpus = 2;
  const DisaggEstimate e = estimate_disagg(pm, w, dep, engine, nullptr);
  REQUIRE(e.prefill_prompts_per_step == 1.0);
  // 32 clients over 1 worker × 2 ranks: exact MVA with 16 customers per rank; the deployment
  // completes 2·X requests/s.
  const double think = e.kv_transfer_s + e.ttft_fixed_s + e.handoff_s + 127.0 * e.combined.tpot_s;
  const load::ClosedResult q = load::closed_mva(e.prefill_service_s, think, 16);
  CHECK(e.prefill_wait_s == Approx(q.response_s - e.prefill_service_s).epsilon(1e-3));
  CHECK(e.combined.requests_per_s == Approx(2.0 * q.throughput_per_s).epsilon(1e-3));
  // Open loop at 4 prompts/s and S_p: each rank sees 2 prompts/s, utilization 2·S_p.
  InferenceWorkload open = w;
  open.concurrency = 0;
  open.arrival = Arrival::poisson;
  open.request_rate_per_s = 4.0;
  const DisaggEstimate o = estimate_disagg(pm, open, dep, engine, nullptr);
  CHECK(o.prefill_utilization == Approx(std::min(1.0, 2.0 * o.prefill_service_s)));
  // Its capacity is the closed loop of the same pools at the most clients the decode slots hold,
  // the figure the search sizes copies by, and the load is held to it with the headroom.
  InferenceWorkload closed = w;
  closed.concurrency = 0;
  const DisaggEstimate full = estimate_disagg(pm, closed, dep, engine, nullptr);
  REQUIRE(full.combined.requests_per_s > 0.0);
  CHECK(o.combined.capacity_requests_per_s == Approx(full.combined.requests_per_s).epsilon(1e-12));
  // The search hands the closed loop it already has: the same figures.
  const DisaggEstimate handed = estimate_disagg(pm, open, dep, engine, nullptr, -1.0, nullptr, &full);
  CHECK(handed.combined.capacity_requests_per_s == o.combined.capacity_requests_per_s);
  CHECK(handed.combined.ttft_s == o.combined.ttft_s);
  CHECK(handed.combined.usd_per_million_output_tokens == o.combined.usd_per_million_output_tokens);
  CHECK(o.combined.requests_per_s == Approx(std::min(4.0, full.combined.requests_per_s)));
  Sla sla;
  sla.requests_per_s = full.combined.requests_per_s / 1.2 * 1.01; // 1 % more than capacity carries
  JudgeRules rules;
  rules.load_headroom = 0.2;
  CHECK_FALSE(judge(o.combined, sla, rules).passes());
  sla.requests_per_s = full.combined.requests_per_s / 1.2 * 0.99;
  const Verdict ok = judge(o.combined, sla, rules);
  REQUIRE(ok.term_count >= 1);
  CHECK(ok.terms[ok.term_count - 1].capacity);
  CHECK(ok.terms[ok.term_count - 1].met == !o.combined.overloaded);
  // Arrivals at twice the capacity: it serves its capacity, and its decode pool runs as at capacity
  // (batch, TPOT and memory of the rate served, not of the arrivals).
  InferenceWorkload flood = open;
  flood.request_rate_per_s = 2.0 * full.combined.requests_per_s;
  const DisaggEstimate f = estimate_disagg(pm, flood, dep, engine, nullptr);
  REQUIRE(f.combined.overloaded);
  CHECK(f.combined.requests_per_s == full.combined.requests_per_s);
  CHECK(f.decode_batch == full.decode_batch);
  CHECK(f.combined.tpot_s == full.combined.tpot_s);
  CHECK(f.combined.memory.per_gpu_bytes == full.combined.memory.per_gpu_bytes);
  // The band's slow end (methodology §3.5): the same pools at k = 1.5 × the 4 prompts/s; none at
  // k = 1, for the closed loop or past the capacity.
  const auto slow = disagg_slow_end(o, pm, open, dep, engine, {1.5, 1.5});
  InferenceWorkload faster = open;
  faster.request_rate_per_s = 6.0;
  const DisaggEstimate at_six = estimate_disagg(pm, faster, dep, engine, nullptr);
  REQUIRE(slow);
  CHECK(slow->ttft_s == Approx(at_six.combined.ttft_s));
  CHECK(slow->tpot_s == Approx(at_six.combined.tpot_s));
  CHECK(slow->overloaded == at_six.combined.overloaded);
  CHECK_FALSE(disagg_slow_end(o, pm, open, dep, engine, {1.0, 1.0}));
  CHECK_FALSE(disagg_slow_end(full, pm, closed, dep, engine, {1.5, 1.5}));
  CHECK_FALSE(disagg_slow_end(f, pm, flood, dep, engine, {1.5, 1.5}));
  // Each pool at its own k: the prefill queue at 2 × 4 = 8 prompts/s (its TTFT is the pools' at 8),
  // the decode batch at 1.5 × 4 = 6 (its TPOT the pools' at 6). A prefill GPU alone slower still
  // has a slow end; its decode batch is the point's.
  InferenceWorkload eight = open;
  eight.request_rate_per_s = 8.0;
  const DisaggEstimate at_eight = estimate_disagg(pm, eight, dep, engine, nullptr);
  REQUIRE(at_eight.prefill_utilization < 1.0);
  const auto mixed = disagg_slow_end(o, pm, open, dep, engine, {2.0, 1.5});
  REQUIRE(mixed);
  CHECK(mixed->ttft_s == Approx(at_eight.combined.ttft_s));
  CHECK(mixed->ttft_s > slow->ttft_s);
  CHECK(mixed->tpot_s == Approx(at_six.combined.tpot_s));
  const auto prefill_only = disagg_slow_end(o, pm, open, dep, engine, {2.0, 1.0});
  REQUIRE(prefill_only);
  CHECK(prefill_only->ttft_s == Approx(at_eight.combined.ttft_s));
  CHECK(prefill_only->tpot_s == Approx(o.combined.tpot_s));
}

TEST_CASE("a loaded prefill worker packs the waiting prompts into one step (Little's law)", "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  w.concurrency = 128;
  const DisaggEstimate e = estimate_disagg(pm, w, h100_pools(gpu, 1, 2), engine, nullptr);
  // Up to ⌊8,192 / 1,024⌋ = 8 prompts per step; the step is affine between one prompt and eight.
  const double t1 = e.prefill.prefill_s, t8 = e.prefill.prefill_batch_step_s;
  const double k = e.prefill_prompts_per_step;
  REQUIRE(k > 1.0);
  CHECK(k <= 8.0);
  CHECK(e.prefill_step_s == Approx(t1 + (k - 1.0) / 7.0 * (t8 - t1)));
  // k is the mean number of prompts at the worker: X·R of the MVA at the per-prompt service step/k.
  const double think = e.kv_transfer_s + e.ttft_fixed_s + e.handoff_s + 255.0 * e.combined.tpot_s;
  const load::ClosedResult q = load::closed_mva(e.prefill_step_s / k, think, 128);
  CHECK(k == Approx(std::min(8.0, q.throughput_per_s * q.response_s)).epsilon(0.05));
  // Against a worker that cannot batch (a 1,024-token budget): more requests per second, less wait.
  EngineConfig narrow = engine;
  narrow.max_batched_tokens = 1024;
  const DisaggEstimate one = estimate_disagg(pm, w, h100_pools(gpu, 1, 2), narrow, nullptr);
  CHECK(one.prefill_prompts_per_step == 1.0);
  CHECK(e.combined.requests_per_s > one.combined.requests_per_s);
  CHECK(e.prefill_wait_s < one.prefill_wait_s);
  // The TTFT parts the reports print add up to the mean TTFT: the loaded (batched) step, not the idle
  // one-prompt prefill, is what a prompt waits out.
  for (const DisaggEstimate* x : {&e, &one}) {
    CHECK(x->ttft_fixed_s + x->handoff_s + x->prefill_wait_s + x->client_wait_s + x->prefill_step_s +
              x->kv_transfer_s ==
          Approx(x->combined.ttft_s));
  }
  CHECK(e.prefill_step_s > e.prefill_service_s);
}

TEST_CASE("auto concurrency meets the SLA and fits the decode KV", "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 2048;
  w.output_tokens = 256;
  Sla sla;
  sla.tpot_ms = 30.0;
  sla.ttft_ms = 2000.0;
  const DisaggEstimate e = estimate_disagg(pm, w, h100_pools(gpu, 1, 2), engine, &sla);
  CHECK(e.combined.concurrency >= 1);
  CHECK(e.combined.tpot_s * 1e3 <= 30.0);
  CHECK(e.combined.ttft_s * 1e3 <= 2000.0);
  CHECK_FALSE(e.combined.clients_exceed_kv);
  CHECK(std::isfinite(e.combined.usd_per_million_output_tokens));
}

TEST_CASE("the disaggregated search ranks passing units by cost and judges every one", "[disagg]") {
  const DisaggSearchInputs in = small_disagg_search(30.0, 3000.0);
  const std::vector<Gpu>& gpus = in.gpus;
  const std::vector<PreparedModel>& models = in.models;
  const InferenceWorkload& w = in.workload;
  const Sla& sla = in.sla;
  const SearchPolicy& policy = in.policy;
  const DisaggGrid& grid = in.grid;
  const DisaggRecommendation r = run_search(in, grid);
  REQUIRE_FALSE(r.candidates.empty());
  CHECK(r.evaluated == static_cast<int>(r.candidates.size() + r.rejected.size()));
  // The GPU pairs run through app::parallel_for on three threads: the same units in the same order.
  const ParallelFor on_three = app::parallel_on(3);
  const DisaggRecommendation many = run_search(in, grid, &on_three);
  CHECK(many.evaluated == r.evaluated);
  const auto same = [](const std::vector<DisaggCandidate>& a, const std::vector<DisaggCandidate>& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].prefill_gpu_index == b[i].prefill_gpu_index);
      CHECK(a[i].decode_gpu_index == b[i].decode_gpu_index);
      CHECK(a[i].unit.prefill.workers == b[i].unit.prefill.workers);
      CHECK(a[i].unit.decode.workers == b[i].unit.decode.workers);
      CHECK(a[i].unit.decode.layout.tp == b[i].unit.decode.layout.tp);
      CHECK(a[i].copies == b[i].copies);
      CHECK(a[i].whole.ttft_s == b[i].whole.ttft_s);
    }
  };
  same(r.candidates, many.candidates);
  same(r.rejected, many.rejected);
  bool mixed = false;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const DisaggCandidate& c = r.candidates[i];
    CHECK(c.verdict.passes());
    CHECK(c.whole.requests_per_s * 1.0 >= 5.0);
    if (i > 0) {
      CHECK(c.usd_per_million_output_tokens_at_load >=
            r.candidates[i - 1].usd_per_million_output_tokens_at_load);
    }
    mixed = mixed || c.prefill_gpu_index != c.decode_gpu_index;
    // At the SLA's 5 req/s a unit's prefill workers are busy the capacity share of that load:
    // utilization at capacity × 5 / (copies × the unit's requests/s), never above the capacity figure.
    CHECK(c.prefill_utilization_at_load ==
          Approx(c.estimate.prefill_utilization * std::min(1.0, 5.0 / c.whole.requests_per_s)));
    CHECK(c.prefill_utilization_at_load <= c.estimate.prefill_utilization);
  }
  CHECK(mixed); // mixed GPU types for the two pools are searched
  for (const DisaggCandidate& c : r.rejected)
    CHECK_FALSE(c.verdict.passes());

  // A third GPU type from another vendor: mixed only within a vendor, never across.
  std::vector<Gpu> three = gpus;
  three.push_back(a100_80gb_sxm());
  three.back().id = "other-vendor";
  three.back().vendor = "amd";
  for (std::size_t i = 0; i < 2; ++i)
    three[i].vendor = "nvidia";
  const std::vector<GpuPrice> prices3 = {3.0, 2.0, 1.0};
  const DisaggRecommendation r3 = recommend_disagg(models, w, sla, three, prices3, policy, grid);
  bool nvidia_mixed = false;
  bool other_alone = false;
  const auto pair_ok = [&](const DisaggCandidate& c) {
    const bool across = (c.prefill_gpu_index == 2) != (c.decode_gpu_index == 2);
    CHECK_FALSE(across);
    nvidia_mixed = nvidia_mixed || (c.prefill_gpu_index != c.decode_gpu_index);
    other_alone = other_alone || (c.prefill_gpu_index == 2 && c.decode_gpu_index == 2);
  };
  for (const DisaggCandidate& c : r3.candidates)
    pair_ok(c);
  for (const DisaggCandidate& c : r3.rejected)
    pair_ok(c);
  CHECK(nvidia_mixed);
  CHECK(other_alone);
}

namespace {

// Every figure of two estimates the search reads (the combined estimate, the decode worker, the
// operating point), compared exactly: a memo must not change a single bit.
void check_same(const DisaggEstimate& a, const DisaggEstimate& b) {
  CHECK(a.combined.concurrency == b.combined.concurrency);
  CHECK(a.combined.ttft_s == b.combined.ttft_s);
  CHECK(a.combined.tpot_s == b.combined.tpot_s);
  CHECK(a.combined.ttft.p99_s == b.combined.ttft.p99_s);
  CHECK(a.combined.requests_per_s == b.combined.requests_per_s);
  CHECK(a.combined.usd_per_million_output_tokens == b.combined.usd_per_million_output_tokens);
  CHECK(a.combined.memory.per_gpu_bytes == b.combined.memory.per_gpu_bytes);
  CHECK(a.decode.decode_step_s == b.decode.decode_step_s);
  CHECK(a.decode.memory.kv_cache_bytes == b.decode.memory.kv_cache_bytes);
  CHECK(a.decode_batch == b.decode_batch);
  CHECK(a.prefill_prompts_per_step == b.prefill_prompts_per_step);
  CHECK(a.prefill_wait_s == b.prefill_wait_s);
}

} // namespace

TEST_CASE("decode steps kept across units change no figure, and a memo of another pool is not read",
          "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 2048;
  w.output_tokens = 256;
  Sla sla;
  sla.tpot_ms = 30.0;
  sla.ttft_ms = 2000.0;
  // One memo through the units of a grid on one decode pool (as recommend_disagg keeps it): each
  // auto-concurrency estimate equals the one computed alone.
  DecodeStepMemo memo;
  for (int p = 1; p <= 3; ++p) {
    for (int d = 1; d <= 3; ++d) {
      const DisaggDeployment dep = h100_pools(gpu, p, d);
      INFO(p << "P" << d << "D");
      check_same(estimate_disagg(pm, w, dep, engine, &sla, -1.0, &memo),
                 estimate_disagg(pm, w, dep, engine, &sla));
    }
  }
  const auto known = [](const DecodeStepMemo& m) {
    return std::count_if(m.step_s.begin(), m.step_s.end(), [](double t) { return t > 0.0; });
  };
  CHECK(known(memo) > 0);
  CHECK(memo.key.tp == 2);
  // The same memo handed a unit whose decode pool is TP1 (its key differs): started again, and the
  // TP1 steps are not the TP2 steps it held.
  DisaggDeployment narrow = h100_pools(gpu, 2, 2);
  narrow.decode.layout.tp = 1;
  narrow.decode.layout.gpus = 1;
  const std::vector<double> tp2_steps = memo.step_s;
  check_same(estimate_disagg(pm, w, narrow, engine, &sla, -1.0, &memo),
             estimate_disagg(pm, w, narrow, engine, &sla));
  CHECK(memo.key.tp == 1);
  CHECK(known(memo) > 0);
  for (std::size_t b = 0; b < std::min(tp2_steps.size(), memo.step_s.size()); ++b) {
    if (tp2_steps[b] > 0.0 && memo.step_s[b] > 0.0) CHECK(memo.step_s[b] != tp2_steps[b]);
  }
  // Other lengths: started again as well.
  InferenceWorkload longer = w;
  longer.input_tokens = 8192;
  check_same(estimate_disagg(pm, longer, narrow, engine, &sla, -1.0, &memo),
             estimate_disagg(pm, longer, narrow, engine, &sla));
  CHECK(memo.key.input_tokens == 8192);
}

TEST_CASE("the workers kept across rates and prefill pools change no figure", "[disagg]") {
  const Gpu gpu = h100_sxm();
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 2048;
  w.output_tokens = 256;
  w.arrival = Arrival::poisson;
  // One memo through open loops at several rates, their slow ends and two prefill layouts on one
  // decode pool (as a search's copy counts visit them): each equals the estimate made alone.
  DecodeStepMemo memo;
  for (int prefill_tp : {1, 2}) {
    DisaggDeployment dep = h100_pools(gpu, 2, 2);
    dep.prefill.layout.tp = prefill_tp;
    dep.prefill.layout.gpus = prefill_tp;
    for (double rate : {2.0, 6.0, 12.0}) {
      w.request_rate_per_s = rate;
      INFO("prefill TP" << prefill_tp << " at " << rate << " req/s");
      const DisaggEstimate kept = estimate_disagg(pm, w, dep, engine, nullptr, -1.0, &memo);
      check_same(kept, estimate_disagg(pm, w, dep, engine, nullptr));
      const auto slow_kept = disagg_slow_end(kept, pm, w, dep, engine, {1.5, 1.2}, &memo);
      const auto slow_alone = disagg_slow_end(kept, pm, w, dep, engine, {1.5, 1.2});
      REQUIRE(slow_kept.has_value() == slow_alone.has_value());
      if (slow_kept) {
        CHECK(slow_kept->ttft_s == slow_alone->ttft_s);
        CHECK(slow_kept->tpot_s == slow_alone->tpot_s);
        CHECK(slow_kept->memory.per_gpu_bytes == slow_alone->memory.per_gpu_bytes);
      }
    }
  }
  CHECK(memo.prefill.size() == 2); // one idle prefill worker per prefill layout
  CHECK_FALSE(memo.worker.empty());
}
