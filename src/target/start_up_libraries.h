// The shared libraries a program loads at start-up (target/shared_libraries.h), from
// callprof's cache (~/.cache/callprof) when nothing the loader's answer depends on changed:
// running the program's loader was 0.9 ms of CPU of every exact-mode recording, a tenth of
// an empty program's. The entry is keyed by the program file (path and identity),
// LD_LIBRARY_PATH, /etc/ld.so.cache and /etc/ld.so.preload; it holds the libraries and the
// directories they were found in, each with its identity, and serves only while all of them
// still match (a library rebuilt, a file added beside one). What it cannot see: a new
// library in a directory searched before the one that answered and holding none of the
// program's libraries (a RUNPATH directory, a hwcaps subdirectory), until the program, the
// loader's cache or the directories above change. So only hook removal uses it, where a
// library missed keeps its hooks (slower, nothing wrong); filters run the loader.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof {

// shared_libraries(executable), from the cache when it holds a matching entry, else from
// the loader (and then remembered). Without the cache (--no-symbol-cache, no cache
// directory) the loader alone.
Result<std::vector<std::string>> start_up_libraries(const std::string& executable);

namespace start_up_detail {
// The entry for `key` and its libraries as written, and back (nullopt when the text is not
// an entry of `key`, or any library or directory in it changed since).
std::string encode(const std::string& key, const std::vector<std::string>& libraries);
std::optional<std::vector<std::string>> decode(const std::string& text, const std::string& key);
// The key for `executable` in this environment; nullopt when the program cannot be looked at.
std::optional<std::string> key_of(const std::string& executable);
}  // namespace start_up_detail

}  // namespace callprof
