#include "target/inject/remote_call.h"

#include <signal.h>

namespace callprof::inject {
namespace {

constexpr uint64_t kRedZone = 128;
constexpr uint64_t kFlagDirection = 0x400;

// Where the call starts: the data below the thread's red zone, then a 16-byte aligned stack
// with the return address (0) pushed, as a `call` leaves it.
Result<user_regs_struct> call_registers(PtraceThread& t, uint64_t function, std::vector<uint64_t> args,
                                        const std::string& data) {
  user_regs_struct r = t.saved_regs();
  uint64_t sp = (r.rsp - kRedZone - 256) & ~uint64_t(15);
  if (!data.empty()) {
    sp = (sp - data.size() - 1) & ~uint64_t(15);
    if (Status s = t.write_memory(sp, data.c_str(), data.size() + 1); !s) return s.error();
    for (uint64_t& a : args)
      if (a == kStackData) a = sp;
  }
  sp -= 8;
  const uint64_t return_to = 0;
  if (Status s = t.write_memory(sp, &return_to, 8); !s) return s.error();
  unsigned long long* regs[] = {&r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9};
  for (size_t i = 0; i < args.size() && i < 6; ++i) *regs[i] = args[i];
  r.rsp = sp;
  r.rip = function;
  r.rax = 0;
  r.orig_rax = ~0ull;           // not in a system call: nothing to restart
  r.eflags &= ~kFlagDirection;  // the ABI's promise at a call
  return r;
}

}  // namespace

Result<uint64_t> remote_call(PtraceThread& thread, uint64_t function, std::vector<uint64_t> args,
                             const std::string& stack_data, int timeout_ms) {
  if (args.size() > 6) return make_error("remote_call: more than six arguments");
  auto regs = call_registers(thread, function, std::move(args), stack_data);
  if (!regs) return regs.error();
  if (Status s = thread.set_regs(*regs); !s) return s.error();
  int deliver = 0;
  for (;;) {
    auto stop = thread.run(deliver, timeout_ms);
    if (!stop) return stop.error();
    if (stop->exited) return make_error("the process ended during the call");
    if (stop->signal == SIGSEGV && stop->regs.rip == 0) return uint64_t(stop->regs.rax);
    if (stop->interrupted) return make_error("the call did not return within " + std::to_string(timeout_ms) + " ms");
    deliver = stop->signal;  // the program's own signal: it gets it now
    if (deliver == SIGSEGV || deliver == SIGBUS || deliver == SIGILL)
      return make_error("the call faulted (signal " + std::to_string(deliver) + ")");
  }
}

}  // namespace callprof::inject
