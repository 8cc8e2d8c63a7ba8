// The private directory a recording shares with its target (the runtime's dumps), removed
// with everything in it on every way out: its destructor, a fatal signal to callprof
// (remove_live_temp_dirs, from a handler), and, after kill -9, the next recording.
#pragma once

#include <string>

#include "util/result.h"

namespace callprof {

class TempDir {
 public:
  // Under $TMPDIR (else /tmp), mode 0700; an absolute path, so that a program that changes
  // directory still finds it. Holds a lock on <dir>/.lock for its lifetime, and is named by
  // a marker in the user's cache (<cache>/running) while it lives. First removes the
  // directories of callprof runs that died without removing theirs (their lock is free):
  // those their markers name, or, without a cache to keep markers in (and once when the
  // markers start), those remove_stale_temp_dirs finds in $TMPDIR.
  static Result<TempDir> create();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  TempDir(std::string path, int lock_fd, std::string marker);
  std::string path_;
  int lock_fd_ = -1;
  std::string marker_;  // "" when none could be written
};

// Removes every live TempDir's directory now, with system calls only: safe in a signal
// handler that is about to end callprof.
void remove_live_temp_dirs();

// The callprof-XXXXXX directories under `parent` that are ours and whose run is over (their
// lock is free, or they have no lock and are over an hour old: an older callprof's), removed;
// returns how many. Another user's directories and running recordings' are left alone.
int remove_stale_temp_dirs(const std::string& parent);

}  // namespace callprof
