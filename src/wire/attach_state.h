// Whether a window is open in a process `callprof attach` loaded the runtime into: the
// runtime's exported `callprof_attach_state` (runtime/attach.cpp). callprof reads it before
// it begins another window, one at a time: a killed callprof's window ends a little after
// its death, once the runtime sees the control pipe close, has waited 20 ms for the hooks
// under way and has written its data (21-25 ms on a two-thread program).
#pragma once

#include <stdint.h>

namespace callprof::wire {

inline constexpr const char* kAttachStateSymbol = "callprof_attach_state";
inline constexpr int32_t kAttachNever = 0;    // loaded, no window readied yet
inline constexpr int32_t kAttachOpen = 1;     // a window readied or open, or ending
inline constexpr int32_t kAttachDormant = 2;  // the last window ended: another may begin

}  // namespace callprof::wire
