#pragma once
// Running independent jobs on several threads for the core's searches (rightsize::ParallelFor):
// the core starts no thread (tests/core_purity.sh); the app lends it these.
#include <cstddef>
#include <functional>

#include "rightsize/disagg_search.hpp"

namespace rightsize::app {

/// Runs job(0) … job(count − 1), each once, on up to `threads` threads (1: in turn on this one).
/// The first exception a job throws is rethrown once every thread has ended; the jobs not yet
/// started then are not run.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& job);

/// A ParallelFor that runs its jobs through parallel_for on `threads` threads.
ParallelFor parallel_on(int threads);

} // namespace rightsize::app
