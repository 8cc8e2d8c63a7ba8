// RE2 behind Pattern; a pattern RE2 rejects (bad syntax, or a program larger than the
// memory budget) becomes one error line.
#include "util/pattern.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include "util/escape.h"

namespace callprof {

Result<Pattern> Pattern::compile(std::string_view pattern, std::string_view option) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return make_error(fmt::format("invalid {} regex '{}': {}", option, escape_text(pattern), re->error()));
  Pattern p;
  p.re_ = std::move(re);
  p.text_ = std::string(pattern);
  return p;
}

bool Pattern::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

namespace {

bool any_match(const std::vector<Pattern>& patterns, std::string_view s) {
  for (const Pattern& p : patterns)
    if (p.search(s)) return true;
  return false;
}

}  // namespace

bool NameFilter::module_excluded(std::string_view path) const {
  return (!include_modules.empty() && !any_match(include_modules, path)) || any_match(exclude_modules, path);
}

bool NameFilter::function_excluded(std::string_view name) const {
  return (!include.empty() && !any_match(include, name)) || any_match(exclude, name);
}

}  // namespace callprof
