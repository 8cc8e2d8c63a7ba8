// A user-given regular expression (RE2 syntax), searched in names from a profile or a
// program: linear time and constant stack whatever the name's length, unlike std::regex.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

// Exact mode's --include, --exclude, --include-module and --exclude-module, as the runtime
// applies them (and as diff reads them back from a profile): a module outside the include
// list or in the exclude list is left out whole; then a function outside the include
// list or in the exclude list.
struct NameFilter {
  std::vector<Pattern> include, exclude, include_modules, exclude_modules;
  bool module_excluded(std::string_view path) const;
  bool function_excluded(std::string_view name) const;
  bool excludes(std::string_view name, std::string_view module_path) const {
    return module_excluded(module_path) || function_excluded(name);
  }
};

}  // namespace callprof
