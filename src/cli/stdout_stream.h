// A buffered std::ostream onto standard output's descriptor, for large documents (a 1 M-node
// report --json is ~440 MB): written as it is produced, where building it in memory first
// cost a copy per doubling of the buffer and its memory. Not for the pager's path.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <ostream>
#include <streambuf>
#include <vector>

namespace callprof::cli {

class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer() : buffer_(size_t(1) << 20) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  ~StdoutBuffer() override { sync(); }
  bool failed() const { return failed_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(STDOUT_FILENO, p, size_t(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        break;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return failed_ ? -1 : 0;
  }

 private:
  std::vector<char> buffer_;
  bool failed_ = false;
};

}  // namespace callprof::cli
