#pragma once
// What one request may search within the contract of docs/reliability.md "Resource limits" (2 s
// and 512 MB on a 2-core machine): the work is sized before it is done, and a larger request is
// refused up front with the limit named (issue 42). Measured on the shared 2-core machine, CPU time
// of a Release build: recommend of a MoE model over 20,000 GPU types 5 s / 820 MB; --explain with
// JSON 340 KB per GPU type (2,000 types: 696 MB); --disagg 24 types 0.9–1.6 s, 48 types 2.0–2.3 s;
// sweep --mode recommend about 47 µs per point and GPU type (10,000 points × 24 types: 11.4 s); a
// training recommend (Llama-3.1-70B pretraining) over 4,000 types 10.7 s before its layout search
// got faster (issue 40: about 1.3 ms per GPU type since); a training sweep's layout search 0.1–0.3 ms
// per point (4,000 points on MI355X at 128–1,024 GPUs: 0.56 s).
#include <cstddef>
#include <cstdint>
#include <string>

namespace rightsize::app {

inline constexpr std::size_t k_max_search_gpu_types = 4'000;  ///< recommend (about 1 s, 170 MB)
inline constexpr std::size_t k_max_explain_gpu_types = 500;   ///< recommend --explain (about 170 MB)
inline constexpr std::size_t k_max_training_gpu_types = 500;  ///< a training recommend (about 1.3 s)
inline constexpr std::size_t k_max_disagg_gpu_types = 32;     ///< recommend --disagg (about 1.5 s)
inline constexpr std::uint64_t k_max_sweep_searches = 30'000; ///< sweep --mode recommend: points × GPU types
/// recommend --disagg: xPyD units judged (disagg_units_at_most, counted before the search). A unit
/// costs 3–83 µs of CPU on one core (2026-12-02; mixtral-moe 3, hf-config 16, DeepSeek-V3 32–37,
/// Llama-3.1-8B on B200 83: the client-count search's queues), so the count sizes the search only
/// roughly: the shipped hf-config example has 102,144 at most (1.2 s), the shipped catalog with two
/// more GPU types of 16 pool layouts 110,336; DeepSeek-V3 over 18 copies of B200, 110,592 at most,
/// takes 3.6–3.9 s of CPU, 2.0 s on two threads (the worst accepted); 19 copies are refused.
inline constexpr std::size_t k_max_disagg_units = 112'000;
/// A training spec's sweep: points of estimate mode (a layout search each) and points × GPU types of
/// recommend mode (each GPU type searched over its counts).
inline constexpr std::uint64_t k_max_training_sweep_points = 4'000;
inline constexpr std::uint64_t k_max_training_sweep_searches = 1'200;
/// A serving spec whose request lengths vary (its percentiles a convolution, about 0.1 ms a point;
/// 0.25–0.3 ms for Llama-3.1-8B, whose every point is feasible): points of estimate mode and points ×
/// GPU types of recommend mode. 2026-12-02, two cores: 4,000 points of a 64 MiB trace (read in about
/// 0.8 s) take 1.6 s; 15,000 took 3.4 s, and 15,000 of a lognormal prompt 2.1 s.
inline constexpr std::uint64_t k_max_spread_sweep_points = 4'000;
inline constexpr std::uint64_t k_max_spread_sweep_searches = 7'500;
/// An open loop's search (Poisson arrivals or a trace) sizes its replicas at the rate and judges
/// each count at its band's slow end (two estimates a count, a bisection over the counts where the
/// sized one misses): 2026-12-02, one core, DeepSeek-V3 at 20,000 req/s over the shipped catalog's
/// 27 types, 5.2 ms per GPU type (0.17 ms closed loop), with varying lengths 13.7 ms. So its
/// recommend searches at most 80 GPU types (0.42 s), 33 with varying lengths (0.45 s), and its
/// sweep --mode recommend at most 400 searches (points × GPU types), 150 with varying lengths.
/// 2026-12-03, two threads: 540 searches took 1.8–2.2 s (3.5–4.1 s of CPU; CI found 4.14 s over
/// tests/limits.sh's 4 s), so the limits fell from 600 and 200; the step loop then computed its mean
/// prompt's work once per step instead of twice: 378 searches take 0.7–1.0 s (1.3–1.8 s of CPU),
/// 135 with varying lengths 0.9–1.3 s (1.5–2.2 s of CPU).
inline constexpr std::size_t k_max_open_loop_gpu_types = 80;
inline constexpr std::size_t k_max_open_loop_spread_gpu_types = 33;
inline constexpr std::uint64_t k_max_open_loop_sweep_searches = 400;
inline constexpr std::uint64_t k_max_open_loop_spread_sweep_searches = 150;

/// Refuses (ErrorKind::usage naming `flag`) a search of more than `limit` GPU types, counting each
/// of its `precisions` as a search of its own (gpu_types × precisions): `what` names the search
/// ("recommend --disagg").
void check_search_gpu_types(std::size_t gpu_types, std::size_t precisions, std::size_t limit,
                            const char* flag, const std::string& what);

/// Refuses (ErrorKind::usage naming --disagg) a disaggregated search of more than `limit` xPyD
/// units (`units`: disagg_units_at_most, counted before the search runs).
void check_disagg_units(std::size_t units, std::size_t limit);

} // namespace rightsize::app
