// Which compiler built an ELF file, from its .comment section: the hooks each compiler
// emits cost differently, so compensation picks the constants measured for it.
#pragma once

#include <string>

namespace callprof {

// "clang" when a Clang version string is there (its objects are linked with GCC's start
// files, whose "GCC: ..." strings every program carries), else "gcc" when GCC's is, else ""
// (no such section, or the file cannot be read).
std::string elf_compiler(const std::string& path);

}  // namespace callprof
