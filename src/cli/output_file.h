// Where `record` and `attach` write their profile. The path is checked before the program
// starts (a run of an hour must not end in "cannot write"), and nothing that is not a
// profile is ever replaced: `-o /dev/null` as root would otherwise rename the system's
// null device aside, and `-o ./prog` the program itself.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "util/result.h"

namespace callprof::cli {

// Ok when `path` can take a profile: it does not exist or is a regular file other than
// `program` (the executable about to run, "" for none), and its directory exists and is
// writable. Otherwise one line saying what is wrong.
Status check_output(const std::string& path, const std::string& program);

// Moves an existing profile at `path` to `path.old`, so the previous run stays one step
// back, as both `record` and `attach` do before they write.
void keep_previous(const std::string& path);

// Writes through `write` into a file beside `path`, renamed over it once complete: a
// failure leaves no partial file, and the previous one intact.
Status write_file_atomically(const std::string& path, const std::function<Status(std::ostream&)>& write);

// `bytes` to standard output (`path` "" or "-") or atomically to the file `path`.
Status write_output(const std::string& path, std::string_view bytes);

}  // namespace callprof::cli
