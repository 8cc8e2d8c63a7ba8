// Names of the query options' enumerations, as the CLI takes them and JSON writes them.
#include <array>
#include <utility>

#include "query/query.h"

namespace callprof {
namespace {

constexpr std::array<std::pair<ThreadMerge, std::string_view>, 3> kMerges = {
    {{ThreadMerge::Paths, "paths"}, {ThreadMerge::Graft, "graft"}, {ThreadMerge::StartRoutine, "start"}}};

}  // namespace

std::optional<ThreadMerge> parse_thread_merge(std::string_view name) {
  for (auto [merge, text] : kMerges)
    if (text == name) return merge;
  return std::nullopt;
}

std::string_view thread_merge_name(ThreadMerge merge) {
  for (auto [m, text] : kMerges)
    if (m == merge) return text;
  return "paths";
}

std::string_view name_style_name(NameStyle style) {
  switch (style) {
    case NameStyle::Short:
      return "short";
    case NameStyle::Templates:
      return "templates";
    case NameStyle::Full:
      return "full";
  }
  return "short";
}

}  // namespace callprof
