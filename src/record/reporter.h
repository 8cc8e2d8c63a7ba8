// How a recording speaks while it runs: progress notes, warnings, and its own failures
// after the target has started. The CLI prints them (and drops notes and warnings under
// -q); tests can collect them.
#pragma once

#include <string>

namespace callprof::record {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void note(const std::string& message) = 0;
  virtual void warn(const std::string& message) = 0;
  virtual void error(const std::string& message) = 0;  // one line; the recording goes on where it can
};

}  // namespace callprof::record
