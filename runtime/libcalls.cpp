// Placeholder until the PLT interposition lands.
#include "libcalls.h"

namespace callprof::rt {

void install_libcalls() {}
uint32_t libcall_count() { return 0; }
LibCallInfo libcall_info(uint32_t) { return LibCallInfo{0, 0, ""}; }

}  // namespace callprof::rt
