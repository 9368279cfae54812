#include "cli/judge_options.hpp"

#include <fmt/format.h>

#include "app/context.hpp"
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

app::Deferred<Confidence> deferred_confidence(const JudgeOptions& options) {
  if (const auto c = parse_confidence(options.confidence)) return app::Deferred<Confidence>(*c);
  return app::Deferred<Confidence>(Error(ErrorKind::usage, "--confidence", "",
                                         fmt::format("expected p50 or p90, got \"{}\"", options.confidence)));
}

Confidence confidence_of(const JudgeOptions& options) {
  return deferred_confidence(options).get();
}

double headroom_of(const JudgeOptions& options) {
  (void)app::throughput_headroom(options.headroom); // the one range check, raised before any file is read
  return options.headroom;
}

} // namespace rightsize::cli
