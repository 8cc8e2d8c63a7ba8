// What a thread ran, for its start routine column (docs/modes.md): std::thread starts its
// workers through libstdc++'s own routine, which Debian's stripped library leaves unnamed,
// so the name is taken from the thread's tree below the C++ library's wrappers.
#pragma once

#include <string_view>
#include <vector>

#include "model/call_tree.h"
#include "model/profile.h"

namespace callprof {

// Whether `name` is the C++ library's own code (std::thread's _State_impl::_M_run,
// std::__invoke, ...): "void std::__invoke_impl<void, ...>(...)" is, "ns::f<std::string>(int)"
// is not.
bool library_wrapper(std::string_view name);

// The routine itself when the thread's tree has it at its top, else the function the
// thread entered first, and below the library's wrappers there the heaviest callee whose
// calls reach the program's own code (the heaviest of all when none does).
FunctionId thread_callable(const CallTree& tree, FunctionId routine, const std::vector<Function>& functions);

}  // namespace callprof
