// System-call names, numbers and strace-like classes for x86-64, and the selection syntax
// users write (`file,network,!close`). Names come from libseccomp rather than a table of
// our own, so new calls appear with a libseccomp update; calls it does not know yet are
// still traceable by number (`451` or `syscall_451`).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "util/result.h"

namespace callprof::syscalls {

inline constexpr uint32_t kMaxSyscallNumber = 1024;  // bits in the probe's selection bitmap
using SyscallSet = std::bitset<kMaxSyscallNumber>;

// "write" for 1; "syscall_N" for numbers libseccomp has no x86-64 name for; "" for
// nr >= kMaxSyscallNumber. The view stays valid for the life of the program.
std::string_view syscall_name(uint32_t nr);

// The x86-64 number of a name (also "syscall_N" and plain decimal N); nullopt if unknown.
std::optional<uint32_t> syscall_number(std::string_view name);

// Class names in the order `--list` should show them: file (including strace's desc),
// network, process, memory, ipc, signal, time, blocking, all.
std::span<const std::string_view> syscall_class_names();

// The members of a class (nullopt if `name` is not a class). Classes overlap (execve is in
// file and process, read in file and blocking).
std::optional<SyscallSet> syscall_class(std::string_view name);

// Comma-separated system-call names, numbers and classes, applied in order; `!x` removes
// x; a spec starting with `!` starts from all. A word that is both a class and a call
// (`time`) means the class; `%time` is always the class. Errors: an unknown word, an empty
// item, or a selection that ends up empty.
Result<SyscallSet> parse_syscall_selection(std::string_view spec);

// "EBADF" for EBADF or -EBADF; the kernel-internal restart codes a traced call can return
// when a signal interrupts it ("ERESTARTSYS", …); "" if unknown.
std::string_view errno_name(int err);

}  // namespace callprof::syscalls
