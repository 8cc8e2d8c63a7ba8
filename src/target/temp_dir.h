// The private directory a recording shares with its target (the runtime's dumps), removed
// with everything in it when the recording ends.
#pragma once

#include <string>

#include "util/result.h"

namespace callprof {

class TempDir {
 public:
  // Under $TMPDIR (else /tmp), mode 0700; an absolute path, so that a program that changes
  // directory still finds it.
  static Result<TempDir> create();
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace callprof
