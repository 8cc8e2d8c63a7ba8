// Where a recording writes its profile. The path is checked before the program starts (a
// run of an hour must not end in "cannot write"), and nothing that is not a profile is
// ever replaced: `-o /dev/null` as root would otherwise rename the system's null device
// aside, and `-o ./prog` the program itself.
#pragma once

#include <string>

#include "util/result.h"

namespace callprof::record {

// Ok when `path` can take a profile: it does not exist or is a regular file other than
// `program` (the executable about to run, "" for none), and its directory exists and is
// writable. Otherwise one line saying what is wrong.
Status check_output(const std::string& path, const std::string& program);

// Moves an existing profile at `path` to `path.old`, so the previous run stays one step
// back, as both `record` and `attach` do before they write.
void keep_previous(const std::string& path);

}  // namespace callprof::record
