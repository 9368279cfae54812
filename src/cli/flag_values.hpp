#pragma once
// Flag values more than one command reads, parsed before any file is: each bad value is a usage
// Error naming its flag.
#include <string>

#include "app/sweep.hpp"
#include "io/runs/bench_runs.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// --deployment "2xL40S", "8 x H100-SXM", "L4" -> (count, GPU as typed; the catalog resolves it).
/// "64xH100-SXM:TP4·PP2" adds the layout as recommend prints it (app::layout_label; "TP4xPP2" and
/// "TP8 EP8" too) as pins: TP and PP (1 when unnamed), EP and attention DP when named.
/// A layout that is not one is a usage error naming --deployment.
DeploymentSpec parse_deployment(const std::string& text);

/// One rule for shares on the command line and in JSON: "20%" is a percentage, a bare number is a
/// fraction (0.2 = 20%, as JSON writes it). A bare number above 10 is refused as ambiguous.
double parse_share(const std::string& text, const char* flag);

/// --rank-by: cost_per_token, cost_per_request, latency, gpus or energy.
RankBy parse_rank_by(const std::string& text);

/// sweep --mode: estimate or recommend.
app::SweepMode parse_sweep_mode(const std::string& text);

/// --threads: 0 to 256; 0 = the hardware concurrency (at least 1).
int worker_threads(int threads);

/// calibrate's run-context flags that need no file (--engine, --recompute, --precision): each bad one
/// is a usage Error naming it (--gpu and --model are checked against the catalog and the presets).
void check_run_context(const io::RunContext& context);

/// A GPU count or parallel degree: 0 (unset) to 65536.
void check_layout_count(int value, const char* flag);

} // namespace rightsize::cli
