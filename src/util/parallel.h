// Plain fork-join over the machine's cores for the analysis's independent passes (reading
// each thread's tree, the per-node quantities, the function and edge rows). The work
// items must not throw: an exception escaping a worker ends the process.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace callprof {

// Calls body(i) for every i in [0, n), on up to hardware_concurrency threads (this one
// included); returns when all are done.
template <typename Body>
void parallel_for(size_t n, Body body) {
  const size_t workers = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) body(i);
  };
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
}

// Runs every task, in parallel where there are cores.
template <typename... Tasks>
void parallel_invoke(Tasks&&... tasks) {
  auto run = [&](size_t i) {
    size_t k = 0;
    ((k++ == i ? void(tasks()) : void()), ...);
  };
  parallel_for(sizeof...(Tasks), run);
}

}  // namespace callprof
