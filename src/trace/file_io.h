// Whole-file I/O for profiles (internal): bounded reads and atomic replacement, with
// errors that read "cannot read <path>: <reason>" / "cannot write <path>: <reason>".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/result.h"

namespace callprof::trace {

// An open file descriptor, closed on destruction.
class InputFile {
 public:
  // A regular file, a pipe or FIFO, or "-" for standard input.
  static Result<InputFile> open(const std::string& path);
  InputFile(InputFile&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }
  InputFile& operator=(InputFile&&) = delete;
  ~InputFile();

  // Appends to `out` until it holds `limit` bytes or the file ends. Memory grows with the
  // bytes actually read, so `limit` may come from an untrusted header.
  Status read_until(std::vector<uint8_t>& out, uint64_t limit);

 private:
  InputFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  static Result<InputFile> from_stdin();
  int fd_;
  std::string path_;
};

// Writes `bytes` to a new temporary file next to `path`, syncs it and renames it over
// `path`. On failure `path` is untouched and the temporary file is removed.
Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

// Creates and removes the temporary file write_file_atomically would use for `path`.
Status check_writable(const std::string& path);

}  // namespace callprof::trace
