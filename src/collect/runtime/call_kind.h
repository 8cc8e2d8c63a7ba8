// Which kind of x86-64 instruction made a call, judged from the bytes just before its
// return address: `call rel32` (direct) or `call r/m64` (indirect, through a pointer).
#pragma once

#include <cstdint>
#include <span>

namespace callprof {

enum class CallKind { Unknown, Direct, Indirect };

// `before` holds the bytes that end at the return address (up to 8 are used).
CallKind classify_call(std::span<const uint8_t> before);

}  // namespace callprof
