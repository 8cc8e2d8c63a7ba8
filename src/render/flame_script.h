// The flame graph's script (src/render/flame.js), embedded at build time.
#pragma once

#include <string_view>

namespace callprof {

std::string_view flame_script();

}  // namespace callprof
