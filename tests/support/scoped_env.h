// An environment variable set (or unset) for a scope, then put back as it was: tests that
// point callprof's cache or temporary directories elsewhere (XDG_CACHE_HOME, TMPDIR, HOME)
// leave the next test the environment they found, whatever assertion ended them.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace callprof::test_support {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* was = std::getenv(name)) saved_ = was;
    set(value);
  }
  ~ScopedEnv() { set(saved_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) const {
    if (value)
      setenv(name_, value->c_str(), 1);
    else
      unsetenv(name_);
  }
  const char* name_;
  std::optional<std::string> saved_;
};

}  // namespace callprof::test_support
