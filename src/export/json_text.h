// JSON text pieces shared by the streaming JSON writers (speedscope, chrome).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/escape.h"

namespace callprof {

// A JSON string literal: control characters (C1 too, util/escape.h's inert_json) escaped,
// invalid UTF-8 replaced by U+FFFD (names come from profiled binaries and can hold any bytes).
inline std::string json_string(std::string_view s) {
  using nlohmann::json;
  return inert_json(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace callprof
