// Calling a function inside another process, on one of its threads held by ptrace, as if
// that thread had called it: below its red zone on its own stack, with the System V
// calling convention, returning to address 0 so that the return faults straight back into
// our hands. Everything the call changes in the thread's registers is put back by
// PtraceThread::release. Protocol and its safety: docs/attach.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "target/inject/ptrace_thread.h"

namespace callprof::inject {

// Stands, in `args`, for the address where `stack_data` was copied.
inline constexpr uint64_t kStackData = ~uint64_t(0) - 0x5a;

// Calls function(args...) (at most six integer arguments) in `thread` and returns its rax.
// `stack_data` (a path, say) is copied to the thread's stack first. Signals that reach the
// thread meanwhile are delivered, as they could be at any instruction. An error when the
// call did not return within `timeout_ms`, faulted, or the process ended.
Result<uint64_t> remote_call(PtraceThread& thread, uint64_t function, std::vector<uint64_t> args,
                             const std::string& stack_data, int timeout_ms);

}  // namespace callprof::inject
