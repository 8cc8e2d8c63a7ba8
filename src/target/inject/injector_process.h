// load_runtime in a process of its own (docs/attach.md, "If callprof is killed"): forked,
// in a session of its own, holding nothing of callprof's but the pipe it answers through.
// A borrowed thread runs our calls with nowhere valid to return to until its tracer puts
// its registers back: were that tracer callprof, a kill -9 of callprof in the middle of an
// attach would end the program. The injector is not in callprof's process group or
// session (Ctrl-C, a kill of the group, a hang-up reach it not), and whatever happens to
// callprof it finishes its step, gives every thread back and exits, holding the attach lock
// (`lock_fd`, attach_lock.h) till then.
#pragma once

#include <sys/types.h>

#include <string>

#include "target/inject/load_runtime.h"
#include "util/result.h"

namespace callprof::inject {

Result<LoadedRuntime> load_runtime_apart(pid_t pid, const std::string& runtime, const std::string& settings,
                                         const std::string& frames_path, int timeout_ms, int lock_fd);

}  // namespace callprof::inject
