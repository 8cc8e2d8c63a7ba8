// Processes the program leaves running when it ends (an orphaned child, a daemon) are
// adopted by callprof (PR_SET_CHILD_SUBREAPER), so that the recording can wait for them
// and collect what they record, instead of losing it.
#pragma once

#include <sys/types.h>

#include <vector>

#include "util/result.h"

namespace callprof {

// From now on, orphaned descendants become this process's children.
Status adopt_orphans();
// This process's children that are still running (adopted orphans, once the program has
// been waited for), from /proc.
std::vector<pid_t> running_children();
// Waits until no child is left; false when SIGINT or SIGTERM stopped the wait first.
bool wait_for_children();

}  // namespace callprof
