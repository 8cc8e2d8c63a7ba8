// Whether a thread stopped by ptrace may be borrowed to run the loader (dlopen) and the
// runtime's start: nothing on its stack may be inside libc or the dynamic loader, which
// could hold the very locks those need (malloc's arena, the loader's lock, stdio's), so
// only a thread running the program's own code, every caller up to its base frames too,
// qualifies. Its stack is unwound with libdwfl (DWARF CFI); a stack it cannot unwind down
// to its base does not qualify.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <string>
#include <vector>

#include "target/inject/process_unwinder.h"
#include "util/result.h"

namespace callprof::inject {

// Address ranges of a process's mappings of libc and the dynamic loader (/proc/PID/maps).
struct SystemCode {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  bool contains(uint64_t address) const;
};
Result<SystemCode> system_code_of(pid_t pid);

// The code addresses of unwound frames: the pc, then one byte into each call instruction.
std::vector<uint64_t> code_addresses(const std::vector<UnwoundFrame>& frames);

// Whether a thread stopped with registers `regs` sits in a system call that waits for
// something outside the process (read, poll, sleep, accept, wait...), which libc makes
// without holding a lock of its own or the loader's: futex and the memory calls are not.
bool waiting_in_blocking_call(const user_regs_struct& regs);

// Whether a thread stopped with registers `regs` waits in a futex, and the libc function
// its own code called to get there, `called` (as the symbol table names it), is one of
// the synchronisation calls that wait for the program's own objects -- a condition
// variable, a mutex, a semaphore, a thread's end -- holding no lock of libc's or the
// loader's meanwhile: pthread_cond_wait, pthread_join, sem_wait, pthread_mutex_lock and
// their timed forms. An idle thread of a pool waits there; a thread waiting for malloc's or
// the loader's lock does not qualify (it may hold another).
bool waiting_on_program_object(const user_regs_struct& regs, const std::string& called);
// The libc function the program's code called, on a stack (code_addresses) whose innermost
// frames are libc's: the outermost of them, by name; "" when there is none.
std::string called_from_program(const std::vector<uint64_t>& frames, const SystemCode& system,
                                const ProcessUnwinder& unwinder);

// The rule above, on code_addresses of a stack (innermost first): no frame in libc or the loader,
// except the base ones every thread starts from (__libc_start_main, start_thread, clone3),
// which must be where the unwinding ended; `blocking` (waiting_in_blocking_call or
// waiting_on_program_object): the innermost frames may be libc's too, the wrappers of
// that call (an idle thread).
bool safe_to_borrow(const std::vector<uint64_t>& frames, const SystemCode& system, bool blocking = false);

}  // namespace callprof::inject
