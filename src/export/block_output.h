// The streamed exports' output: text collects in a block and goes to the stream each time
// the block passes 1 MiB, so a large export never sits whole in memory.
#pragma once

#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>

namespace callprof {

class BlockOutput {
 public:
  static constexpr size_t kFlushBytes = size_t(1) << 20;

  explicit BlockOutput(std::ostream& out) : out_(out) {}

  // Writes what the block holds; false once the stream has failed.
  bool flush() {
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
    return bool(out_);
  }

 protected:
  void number(uint64_t v) {
    char digits[24];
    buf_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  }
  void maybe_flush() {
    if (buf_.size() >= kFlushBytes) flush();
  }

  std::string buf_;

 private:
  std::ostream& out_;
};

}  // namespace callprof
