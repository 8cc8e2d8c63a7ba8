// Each function's text in an export's own encoding, made on first use and kept: a streamed
// export repeats a name once per line or event (millions of times), the escaping once per
// function is enough.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "query/query.h"

namespace callprof {

template <typename Encode>  // std::string(std::string_view full_name)
class FunctionTexts {
 public:
  FunctionTexts(const Analysis& a, Encode encode)
      : a_(a), encode_(std::move(encode)), text_(a.profile().functions.size()) {}

  const std::string& operator[](FunctionId f) {
    if (f >= text_.size()) return other_.try_emplace(f, encode_(a_.full_name(f))).first->second;
    std::optional<std::string>& t = text_[f];
    if (!t) t = encode_(a_.full_name(f));
    return *t;
  }

 private:
  const Analysis& a_;
  Encode encode_;
  std::vector<std::optional<std::string>> text_;
  std::unordered_map<FunctionId, std::string> other_;  // kNoFunction, ids outside the table
};

}  // namespace callprof
