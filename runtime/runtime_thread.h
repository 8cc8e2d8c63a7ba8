// The runtime's own threads (the snapshot writer, the attach's control thread): detached,
// named, and with every signal blocked, so that they never run the program's handlers.
#pragma once

#include <stdint.h>

namespace callprof::rt {

bool start_runtime_thread(void* (*routine)(void*), const char* name, uint64_t stack_bytes);

}  // namespace callprof::rt
