// Whether a program keeps frame pointers, decided from its code: `--call-graph auto`
// samples with frame pointers when it does, and copies the stack for DWARF unwinding when
// it does not (Debian's -O2 default), where a frame-pointer walk loses the callers.
#pragma once

#include <cstddef>
#include <string>

namespace callprof {

struct FramePointerShare {
  size_t functions = 0;           // sized functions looked at (up to a few thousand)
  size_t with_frame_pointer = 0;  // starting with push %rbp; mov %rsp,%rbp (after endbr64)
  bool keeps_frame_pointers() const { return functions > 0 && 2 * with_frame_pointer >= functions; }
};

// Reads the function symbols (.symtab, else .dynsym) of an x86-64 ELF file and each one's
// first bytes. An unreadable file gives 0 functions.
FramePointerShare frame_pointer_share(const std::string& path);

}  // namespace callprof
