// The exact-mode runtime a launched program preloads: where callprof's runtime library is
// installed, and the LD_PRELOAD list that puts it (and the allocation interposer) first.
#pragma once

#include <string>

#include "util/result.h"

namespace callprof {

// $CALLPROF_RUNTIME, else libcallprof-rt.so next to the callprof executable (the build tree)
// or where `cmake --install` puts it relative to the executable (../lib/callprof).
Result<std::string> find_runtime();

// `runtime`, then libcallprof-alloc.so beside it when `alloc`, then the caller's own
// LD_PRELOAD, colon-separated.
std::string preload_list(const std::string& runtime, bool alloc);
// The allocation interposer (--alloc): beside the runtime.
std::string alloc_library(const std::string& runtime);

}  // namespace callprof
