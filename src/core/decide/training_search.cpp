// Layout search for a training job on a fixed number of GPUs: enumerate TP × PP × EP × ZeRO ×
// micro-batch × recompute (DP takes the rest), keep the fastest layout that fits, else the one
// needing the least memory. Deterministic: fixed enumeration order, strict improvement to replace.
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/estimate/training_detail.hpp"

namespace rightsize {
namespace {

constexpr int k_max_tp = 8; // TP stays inside one NVLink/PCIe node (methodology §5.2)
constexpr int k_max_pp = 16;
constexpr std::int64_t k_max_micro_batch = 64;
constexpr int k_max_vp = 8;  // interleaving beyond 8 chunks per rank only adds P2P sends
constexpr int k_max_cp = 32; // ring attention beyond 32 ranks is not searched (pins may exceed it)
// Searched CP keeps at least this many tokens per rank: shorter shards leave the ring exchange
// unhidden (Megatron-Core recommends CP for long sequences, docs/training.md §3).
constexpr std::int64_t k_min_tokens_per_cp_rank = 4096;

bool divides(std::int64_t divisor, std::int64_t value) {
  return divisor > 0 && value % divisor == 0;
}

bool tp_allowed(const ModelSpec& m, int tp, int gpus, const Gpu& gpu) {
  if (!divides(tp, gpus)) return false;
  if (tp > std::min(k_max_tp, std::max(1, gpu.gpus_per_node))) return false;
  if (tp == 1) return true;
  if (!divides(tp, m.heads)) return false;
  // KV heads are split by TP or replicated once TP exceeds them (methodology §2.3).
  if (m.attention.kind != AttentionKind::mla && m.kv_heads > 0) {
    return divides(tp, m.kv_heads) || divides(m.kv_heads, tp);
  }
  return true;
}

// `a` is better than `b`: fits beats not fitting; among fitting layouts higher tokens/s; among
// layouts that do not fit, less memory per GPU. Equal values keep the earlier layout.
bool better(const TrainingEstimate& a, const TrainingEstimate& b) {
  if (a.memory.fits != b.memory.fits) return a.memory.fits;
  if (a.memory.fits) return a.tokens_per_s > b.tokens_per_s;
  return a.memory.per_gpu_bytes < b.memory.per_gpu_bytes;
}

struct Choices {
  std::array<int, 4> zero{};
  int zero_count = 0;
  std::array<Recompute, 4> recompute{};
  int recompute_count = 0;
  std::int64_t micro_batch = 0; // 0 = search
  int vp = 0;                   // 0 = search
  int cp = 0;                   // 0 = search
};

// Context-parallel degree `cp` is admissible for a split of `rest` = gpus/(tp·pp) GPUs.
bool cp_allowed(const Choices& ch, int cp, int rest, std::int64_t seq_len) {
  if (!divides(cp, rest)) return false;
  if (ch.cp > 0) return cp == ch.cp;
  if (cp == 1) return true;
  // Load-balanced causal ring attention splits each sequence into 2·cp chunks [MEG-CP].
  return cp <= k_max_cp && divides(2LL * cp, seq_len) && seq_len / cp >= k_min_tokens_per_cp_rank;
}

Choices choices(const TrainingWorkload& w, const LayoutPins& pins) {
  Choices c;
  const int zero = pins.zero_stage >= 0 ? pins.zero_stage : w.zero_stage;
  if (zero >= 0) {
    c.zero[0] = std::min(zero, 3);
    c.zero_count = 1;
  } else {
    c.zero = {0, 1, 2, 3};
    c.zero_count = 4;
  }
  const std::optional<Recompute> rc = pins.recompute ? pins.recompute : w.recompute;
  if (rc) {
    c.recompute[0] = *rc;
    c.recompute_count = 1;
  } else {
    c.recompute = {Recompute::none, Recompute::selective, Recompute::full, Recompute::per_op};
    c.recompute_count = 4;
  }
  c.micro_batch = pins.micro_batch > 0 ? pins.micro_batch : w.micro_batch;
  c.vp = pins.vp > 0 ? pins.vp : w.virtual_pipeline_stages;
  c.cp = pins.cp > 0 ? pins.cp : w.context_parallel;
  return c;
}

// Running best over the enumeration; the zero / micro-batch / recompute dimensions of one
// (tp, pp, dp, ep) split are tried here.
struct Search {
  const detail::TrainingContext* ctx;
  const Choices* ch;
  std::int64_t global_batch;
  std::int64_t layers;
  bool cpu_offload;
  const GpuPrice* price;
  TrainingEstimate best;
  bool have = false;
  /// bill_instances(1, gpus, price, tp) by TP degree: every layout of the search has the same GPUs.
  std::vector<std::pair<int, InstanceBill>> bills;

  const InstanceBill& bill_for(const TrainingLayout& l) {
    for (const auto& [tp, bill] : bills)
      if (tp == l.tp) return bill;
    bills.emplace_back(l.tp, bill_instances(1, l.gpus(), *price, l.tp));
    return bills.back().second;
  }

  // Interleaving needs a pipeline, whole layers per chunk and at least p micro-batches in flight
  // (Megatron's interleaved schedule [NAR21 §2.2]); a pinned v is taken as given.
  bool vp_allowed(int pp, int vp, std::int64_t m) const {
    if (ch->vp > 0) return vp == (pp > 1 ? ch->vp : 1);
    if (vp == 1) return true;
    return pp > 1 && layers % (static_cast<std::int64_t>(pp) * vp) == 0 && m >= pp;
  }

  void consider(const TrainingLayout& l, const detail::StageSplit* stages) {
    // Once a layout fits, one that does not can never be better (`better`): its memory, which
    // alone decides fitting (training_memory), is checked before the step-time estimate.
    // The same memory estimate goes on to evaluate_training.
    const std::int64_t per_pass = static_cast<std::int64_t>(l.dp) * l.micro_batch;
    const MemoryEstimate memory =
        detail::training_memory(*ctx, l, (global_batch + per_pass - 1) / per_pass, *stages);
    if (have && best.memory.fits && !memory.fits) return;
    const TrainingEstimate e = detail::evaluate_training(*ctx, l, *price, *stages, &bill_for(l), &memory);
    if (!have || better(e, best)) {
      best = e;
      have = true;
    }
  }

  void split(int tp, int pp, int dp, int ep, int cp) {
    TrainingLayout l;
    l.tp = tp;
    l.pp = pp;
    l.dp = dp;
    l.ep = ep;
    l.cp = cp;
    l.sequence_parallel = tp > 1;
    l.cpu_offload = cpu_offload;
    const bool zero_pinned = ch->zero_count == 1;
    // The stages' parameters depend on TP, PP, VP and EP only: derived once per VP.
    const int vp_max = std::max(k_max_vp, ch->vp);
    std::vector<detail::StageSplit> stages_by_vp(static_cast<std::size_t>(vp_max) + 1);
    for (int vp = 1; vp <= vp_max; ++vp) {
      l.vp = vp;
      stages_by_vp[static_cast<std::size_t>(vp)] = detail::stage_split(*ctx, l);
    }
    const std::int64_t mb_cap = std::min(k_max_micro_batch, std::max<std::int64_t>(1, global_batch / dp));
    for (int zi = 0; zi < ch->zero_count; ++zi) {
      l.zero_stage = ch->zero[static_cast<std::size_t>(zi)];
      // ZeRO > 0 with one DP rank equals ZeRO-0; ZeRO-2/3 do not combine with pipelines (DeepSpeed).
      if (!zero_pinned && ((l.zero_stage > 0 && dp == 1) || (l.zero_stage > 1 && pp > 1))) continue;
      const std::int64_t mb_first = ch->micro_batch > 0 ? ch->micro_batch : 1;
      const std::int64_t mb_last = ch->micro_batch > 0 ? ch->micro_batch : mb_cap;
      for (l.micro_batch = mb_first; l.micro_batch <= mb_last; l.micro_batch *= 2) {
        const std::int64_t per_pass = static_cast<std::int64_t>(dp) * l.micro_batch;
        const std::int64_t m = (global_batch + per_pass - 1) / per_pass;
        for (int vp = 1; vp <= vp_max; ++vp) {
          if (!vp_allowed(pp, vp, m)) continue;
          l.vp = vp;
          for (int ri = 0; ri < ch->recompute_count; ++ri) {
            l.recompute = ch->recompute[static_cast<std::size_t>(ri)];
            consider(l, &stages_by_vp[static_cast<std::size_t>(vp)]);
          }
        }
      }
    }
  }
};

} // namespace

TrainingEstimate search_training_layout(const PreparedModel& model, const TrainingWorkload& workload,
                                        const Gpu& gpu, int gpus, const LayoutPins& pins,
                                        const TrainingConfig& config, const GpuPrice& price) {
  const detail::TrainingContext ctx = detail::make_training_context(model, workload, gpu, config);
  const ModelSpec& m = model.model;
  gpus = std::max(1, gpus);
  const Choices ch = choices(workload, pins);
  Search search{&ctx,
                &ch,
                std::max<std::int64_t>(1, workload.global_batch),
                std::max<std::int64_t>(1, m.layers),
                workload.cpu_offload_optimizer,
                &price,
                TrainingEstimate{},
                false,
                {}};
  for (int tp = 1; tp <= std::max(k_max_tp, pins.tp); ++tp) {
    if (pins.tp > 0 ? tp != pins.tp : !tp_allowed(m, tp, gpus, gpu)) continue;
    for (int pp = 1; pp <= std::max(k_max_pp, pins.pp); ++pp) {
      if (pins.pp > 0 ? pp != pins.pp : !divides(pp, m.layers)) continue;
      if (!divides(static_cast<std::int64_t>(tp) * pp, gpus)) continue;
      const int rest = gpus / (tp * pp);
      for (int cp = ch.cp > 0 ? ch.cp : 1; cp <= rest; cp = ch.cp > 0 ? rest + 1 : cp * 2) {
        if (!cp_allowed(ch, cp, rest, workload.seq_len)) continue;
        const int dp = rest / cp;
        if (pins.dp > 0 && dp != pins.dp) continue;
        // EP is carved out of DP (Megatron-core: ep divides dp) and divides the routed experts; a dense
        // model has none to split (its EP > 1 layouts would repeat EP 1's estimate).
        for (int ep = 1; ep <= dp; ++ep) {
          if (pins.ep > 0 ? ep != pins.ep
                          : (ep > 1 && !(m.moe.experts > 0 && divides(ep, m.moe.experts) && divides(ep, dp))))
            continue;
          search.split(tp, pp, dp, ep, cp);
        }
      }
    }
  }
  if (search.have) return search.best;
  // The pins admit no layout of `gpus` GPUs: evaluate them as given and report that it cannot run.
  TrainingLayout l;
  l.tp = std::max(1, pins.tp);
  l.pp = std::max(1, pins.pp);
  l.cp = std::max(1, ch.cp);
  l.vp = std::max(1, ch.vp);
  l.dp = pins.dp > 0 ? pins.dp : std::max(1, gpus / (l.tp * l.pp * l.cp));
  l.ep = std::max(1, pins.ep);
  l.zero_stage = ch.zero[0];
  l.micro_batch = std::max<std::int64_t>(1, ch.micro_batch);
  l.recompute = ch.recompute[0];
  l.sequence_parallel = l.tp > 1;
  l.cpu_offload = workload.cpu_offload_optimizer;
  const TrainingLayout n = detail::normalized_layout(l);
  TrainingEstimate e = detail::evaluate_training(ctx, n, price, detail::stage_split(ctx, n));
  e.memory.fits = false;
  e.bound = Bound::capacity;
  return e;
}

} // namespace rightsize
