#pragma once
// The words of every judged term (core's Term): one wording function per term, each saying it in the
// three forms a command prints (docs/ARCHITECTURE.md "One decision point").
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "rightsize/judge.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// The words a workload's figures are said in: a language model's requests ("end-to-end", "req/s",
/// "at concurrency 8"), or the items an image or encoder model is judged in (methodology §3.7: one
/// request is one image or item, run in batches).
struct Vocabulary {
  std::string_view latency = "end-to-end";  ///< the whole-request latency term
  std::string_view rate = "req/s";          ///< the unit of the request rate
  std::string_view at_once = "concurrency"; ///< what runs at once ("at concurrency 8", "at batch 8")
};
/// The vocabulary of a model kind: decoder requests, DiT/UNet images, ViT items.
Vocabulary vocabulary_of(ModelKind kind);

/// How a term is said:
/// - rejection: why a candidate failed, with its numbers ("TPOT 71.0 ms > SLA 50 ms at concurrency 16");
/// - check: one line of a verdict's term list, met or missed ("TPOT 41.2 ms (band p90 44.0 ms) ≤ 50 ms");
/// - caution: a term the point estimate meets and its band's pessimistic end misses (--confidence p50);
///   only latency and load terms have one.
enum class TermForm : std::uint8_t { rejection, check, caution };

/// What the words depend on besides the term.
struct TermWording {
  TermForm form = TermForm::rejection;
  std::int64_t concurrency = 0; ///< rejection form: "at concurrency N"
  Vocabulary words;
  bool cost_per_run = false; ///< training: a budget is a total per run, not $/h
};

/// Appends the term in the asked form; allocation-free in the rejection form (the sweep writer's path).
void append_term(fmt::memory_buffer& out, const TermCheck& term, const TermWording& how);
std::string describe(const TermCheck& term, const TermWording& how);

} // namespace rightsize::cli
