// A user-given regular expression (RE2 syntax), searched in names from a profile or a
// program: linear time and constant stack whatever the name's length, unlike std::regex.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace re2 {
class RE2;
}

namespace callprof {

class Pattern {
 public:
  // `option` names where the pattern came from, for the error ("--filter").
  static Result<Pattern> compile(std::string_view pattern, std::string_view option);

  // Does the pattern match anywhere in `text`?
  bool search(std::string_view text) const;
  const std::string& text() const { return text_; }

 private:
  std::shared_ptr<const re2::RE2> re_;  // shared: RE2 is immutable and thread-safe once built
  std::string text_;
};

}  // namespace callprof
