#include "cli/judge_options.hpp"

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_judge_options(CLI::App* command, JudgeOptions& options) {
  command
      ->add_option("--confidence", options.confidence,
                   "p90 (default): SLAs must hold at the pessimistic end of the error band; p50: at the "
                   "point estimate")
      ->group("Judging");
  command
      ->add_option("--headroom", options.headroom,
                   "throughput headroom over the SLA's peak load (default 0.2): the load is met when the "
                   "judged throughput reaches peak × (1 + headroom); recommend sizes replicas for it")
      ->group("Judging");
}

void warn_unused_headroom(const JudgeOptions& options, const Spec& spec) {
  if (options.headroom >= 0.0 && spec.mode == WorkloadMode::training)
    warn("--headroom: a training run has no serving load to add headroom to; it changes nothing");
}

Confidence confidence_of(const JudgeOptions& options) {
  if (const auto c = parse_confidence(options.confidence)) return *c;
  throw Error(ErrorKind::usage, "--confidence", "",
              fmt::format("expected p50 or p90, got \"{}\"", options.confidence));
}

} // namespace rightsize::cli
