// Whether a loaded object defines a symbol, found by reading the objects' own dynamic
// symbol tables. glibc's dlsym reports a missing symbol through an error string it
// allocates with malloc, which is the program's malloc when the program defines one: the
// runtime asks dlsym only for symbols that are there.
#pragma once

namespace callprof::rt {

// True when an object other than the one containing `except` (0: none excluded) defines
// `name` with a default version (what dlsym finds).
bool symbol_defined(const char* name, const void* except = nullptr);

// dlsym(RTLD_NEXT, name) for the object containing this code, or null when no object
// after it defines the symbol (without the allocation a failed dlsym makes).
void* next_symbol(const char* name);

}  // namespace callprof::rt
