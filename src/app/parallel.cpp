// Independent jobs on several threads (app/parallel.hpp).
#include "app/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rightsize::app {

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& job) {
  const std::size_t n = std::min<std::size_t>(count, static_cast<std::size_t>(std::max(1, threads)));
  if (n <= 1) {
    for (std::size_t i = 0; i < count; ++i)
      job(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex first_mutex;
  const auto worker = [&] {
    for (std::size_t i = next++; i < count && !failed; i = next++) {
      try {
        job(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(first_mutex);
        if (!first) first = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (std::size_t t = 1; t < n; ++t)
    pool.emplace_back(worker);
  worker(); // this thread is one of the n
  for (std::thread& th : pool)
    th.join();
  if (first) std::rethrow_exception(first);
}

ParallelFor parallel_on(int threads) {
  return {std::max(1, threads), [threads](std::size_t count, const std::function<void(std::size_t)>& job) {
            parallel_for(count, threads, job);
          }};
}

} // namespace rightsize::app
