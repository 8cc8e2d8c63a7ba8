// A well-formed runtime dump (wire/raw_dump.h) built field by field, shared by the dump
// reader's unit test and the seed corpus of its fuzz target.
#pragma once

#include <string>

namespace callprof::test {

// A process with one module and one thread: root -> main (open) -> leaf, plus one call of
// a signal handler grafted under main, and 5,000 calls of a removed function counted by its
// counting stubs.
std::string sample_raw_dump();

}  // namespace callprof::test
