// callprof's cache of what earlier recordings on this machine learnt (the hooks'
// calibration, modules' symbols): one directory, one file per key, named by a hash of the
// key (which the file holds itself, to be compared), the files written longest ago removed
// beyond a count. Best effort throughout: a cache that cannot be read or written is no error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/whole_file.h"

namespace callprof {

// $XDG_CACHE_HOME/callprof, else ~/.cache/callprof; none without either (both must be absolute).
std::optional<std::filesystem::path> user_cache_dir();

// `<prefix>-<16 hex digits of the key's hash><suffix>`: stable across builds and runs.
std::string cache_file_name(std::string_view prefix, std::string_view key, std::string_view suffix);

// What tells a file's versions apart in a key: its device, inode, size and modification
// time to the nanosecond; none when it cannot be looked at.
std::optional<std::string> file_identity(const std::string& path);

// Replaces the file (creating its directory) through a temporary renamed into place, so a
// reader sees the old contents or the new; not synced to disk: a crash may lose the write,
// never leave half of it under the name. Then, when the file is new, keeps only the `kept`
// files of the same prefix and suffix written last. False when it could not write.
bool write_cache_file(const std::filesystem::path& path, std::string_view bytes, std::string_view prefix,
                      std::string_view suffix, size_t kept);

// Keeps only the `kept` files of `dir` named `<prefix>-...<suffix>` written last.
void keep_newest_cache_files(const std::filesystem::path& dir, std::string_view prefix, std::string_view suffix,
                             size_t kept);

// A value worked out once per key: read back from the file `<prefix>-<hash of key><suffix>`
// in `dir` when `decode(bytes)` takes it (it checks the key the file holds), else
// `compute()`d and, when that succeeds, written through `encode(value)`, the `kept` files of
// the prefix written last kept. `compute` returns a Result (or anything that converts to
// bool and dereferences to the value), `decode` an optional of the value.
template <typename Compute, typename Decode, typename Encode>
auto cached_value(const std::filesystem::path& dir, std::string_view key, std::string_view prefix,
                  std::string_view suffix, size_t kept, Compute compute, Decode decode, Encode encode)
    -> decltype(compute()) {
  const std::filesystem::path file = dir / cache_file_name(prefix, key, suffix);
  if (auto cached = decode(read_whole_file(file))) return *cached;
  auto value = compute();
  if (value) (void)write_cache_file(file, encode(*value), prefix, suffix, kept);
  return value;
}

}  // namespace callprof
