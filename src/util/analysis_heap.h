// The C library's allocator tuned for a process that reads a profile: it builds and drops a
// few hundred MB of arrays once (the parsed file, the trees, their per-node quantities). On
// the project's VMs a 4 KiB page fault costs about 25 us and was most of a view's time on a
// million-node profile (bench/analysis): this puts the heap on transparent huge pages and
// keeps freed memory for reuse instead of returning it to the kernel and faulting it in again.
#pragma once

#include <cstddef>

namespace callprof {

// Call once, early in main, before any other thread runs. Only for commands that analyse
// profiles: the process keeps the memory it used until it exits.
void tune_heap_for_analysis();

// Faults in the next `bytes` of the tuned heap on a background thread, while the caller goes
// on: the analysis is about to fill about that much. On the project's VMs memory touched for
// the first time after the host took it back costs about 2.5 ms per MB, a third of a cold
// view of a million nodes (bench/analysis/fresh_memory.sh); this puts that cost on the other
// core. Nothing in the memory changes. A no-op before tune_heap_for_analysis.
void warm_heap_ahead(size_t bytes);

}  // namespace callprof
