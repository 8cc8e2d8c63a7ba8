// The runtime's own threads (the snapshot writer, the attach's control thread): detached,
// named, and with every signal blocked, so that they never run the program's handlers.
#pragma once

#include <stdint.h>

namespace callprof::rt {

// Finds libc's pthread_create (not an interposer's, nor ours) for start_runtime_thread:
// from a normal context, before the first fork whose child may start a runtime thread (a
// fork-child handler must not walk the loaded objects: module_walk.h).
void find_thread_creation();

bool start_runtime_thread(void* (*routine)(void*), const char* name, uint64_t stack_bytes);

}  // namespace callprof::rt
