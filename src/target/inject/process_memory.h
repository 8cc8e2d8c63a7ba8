// Another process's memory, read or written whole or not at all (process_vm_readv/writev:
// ptrace's permission, the process need not be stopped). Writes go through the process's
// page protections: only writable memory (its stacks, its data) can be written.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace callprof::inject {

inline bool read_process_memory(pid_t pid, uint64_t address, void* out, size_t size) {
  iovec local{out, size}, remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == ssize_t(size);
}

inline bool write_process_memory(pid_t pid, uint64_t address, const void* data, size_t size) {
  iovec local{const_cast<void*>(data), size}, remote{reinterpret_cast<void*>(address), size};
  return process_vm_writev(pid, &local, 1, &remote, 1, 0) == ssize_t(size);
}

}  // namespace callprof::inject
