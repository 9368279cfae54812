// workload.prefix_cache and workload.kv_offload (docs/model-spec.md "workload", methodology §3.9).
#include "io/spec/prefix_cache_io.hpp"

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "rightsize/units.hpp"

namespace rightsize::io {
namespace {

constexpr std::int64_t k_max_turns = 1000;
constexpr std::int64_t k_max_conversations = 1'000'000'000;
constexpr double k_max_tier_gib = 1e6;           // a petabyte-class tier per replica is absurd
constexpr double k_max_nvme_gb_per_s = 10'000.0; // per node

// Each turn's prompt repeats the previous turns (methodology §3.9), so the mean prompt must hold
// them: ISL = u + (T − 1)(u + O)/2 with u ≥ max(P, 1) new tokens per turn.
void check_turns(const JsonReader& at, const InferenceWorkload& w, std::int64_t turns, std::int64_t prefix) {
  const std::int64_t u_min = std::max<std::int64_t>(1, prefix);
  const std::int64_t needed = u_min + ((turns - 1) * (u_min + w.output_tokens) + 1) / 2;
  if (w.input_tokens < needed)
    at.fail(fmt::format("expected workload.input_tokens (the mean prompt over a conversation, which repeats "
                        "the previous turns and their {}-token answers) of at least {} for {} turns, got {}",
                        w.output_tokens, needed, turns, w.input_tokens));
}

PrefixCache parse_structure(const JsonReader& v, const InferenceWorkload& w) {
  PrefixCache pc;
  if (auto p = v.find("shared_prefix_tokens")) {
    pc.shared_prefix_tokens = positive_count(*p, 10'000'000, "tokens");
    if (pc.shared_prefix_tokens >= w.input_tokens)
      p->fail(fmt::format("expected fewer tokens than workload.input_tokens ({}): the rest of each prompt is "
                          "its own, got {}",
                          w.input_tokens, pc.shared_prefix_tokens));
  }
  if (auto t = v.find("turns")) {
    pc.turns = static_cast<int>(positive_count(*t, k_max_turns, "turns per conversation"));
    check_turns(*t, w, pc.turns, pc.shared_prefix_tokens);
  }
  if (auto c = v.find("conversations")) {
    if (pc.turns <= 1)
      c->fail("expected only with turns above 1 (conversations keep their context between turns)");
    pc.conversations = positive_count(*c, k_max_conversations, "conversations");
  }
  if (!pc.enabled())
    v.fail("expected hit_rate, shared_prefix_tokens or turns above 1: without one nothing is cached");
  return pc;
}

} // namespace

void parse_prefix_cache(const JsonReader& v, Spec& spec) {
  v.expect_keys({"hit_rate", "shared_prefix_tokens", "turns", "conversations", "working_set_tokens"});
  if (spec.model.kind != ModelKind::decoder) v.fail("expected only for a text model's prompts");
  InferenceWorkload& w = spec.inference;
  const auto rate = v.find("hit_rate");
  if (!rate) {
    if (auto ws = v.find("working_set_tokens"))
      ws->fail("expected only with hit_rate (the structure gives the working set)");
    w.prefix_cache = parse_structure(v, w);
    return;
  }
  for (const char* key : {"shared_prefix_tokens", "turns", "conversations"}) {
    if (auto other = v.find(key))
      other->fail("expected hit_rate or the structure it comes from (shared_prefix_tokens, turns, "
                  "conversations), not both");
  }
  w.prefix_cache.hit_rate = rate->as_number(0.0, 1.0);
  if (auto ws = v.find("working_set_tokens")) {
    w.prefix_cache.working_set_tokens = positive_count(*ws, 100'000'000'000, "tokens");
  } else {
    spec.assumptions.emplace_back(
        "workload.prefix_cache.working_set_tokens not given: the cache is taken to hold every prefix the "
        "hit rate reuses (its capacity is not checked)");
  }
}

void parse_kv_offload(const JsonReader& v, Spec& spec) {
  v.expect_keys({"tier", "size_gib", "read_gb_per_s", "target_hit_rate"});
  KvOffload& off = spec.inference.kv_offload;
  if (!spec.inference.prefix_cache.enabled())
    v.fail("expected workload.prefix_cache too: the tier holds cached prefixes");
  off.tier = v.at("tier").as_choice({"cpu", "nvme"}) == "cpu" ? OffloadTier::cpu : OffloadTier::nvme;
  const JsonReader size = v.at("size_gib");
  if (size.is_string()) {
    (void)size.as_choice({"auto"});
    off.sized = true;
  } else {
    if (!size.is_number())
      size.fail("expected GiB per replica (a positive number) or \"auto\", got " +
                describe_value(size.value()));
    off.bytes = positive_amount(size, k_max_tier_gib, "GiB") * k_bytes_per_gib;
  }
  if (auto target = v.find("target_hit_rate")) {
    if (!off.sized) target->fail("expected only with \"size_gib\": \"auto\" (the tier is sized for it)");
    off.target_hit_rate = target->as_number(0.0, 1.0);
    if (off.target_hit_rate <= 0.0) target->fail("expected a hit rate above 0, got 0");
  }
  const auto read = v.find("read_gb_per_s");
  if (off.tier == OffloadTier::nvme) {
    if (!read)
      v.fail("expected read_gb_per_s (the node's NVMe read bandwidth, GB/s) for tier \"nvme\": the catalog "
             "does not know the drives");
    off.read_gb_per_s = positive_amount(*read, k_max_nvme_gb_per_s, "GB/s");
  } else if (read) {
    read->fail("expected only with tier \"nvme\" (host memory loads over the catalog's host link)");
  }
}

} // namespace rightsize::io
