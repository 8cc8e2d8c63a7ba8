// A stack is unwound only through return addresses: a slot whose address follows no call
// (libgcc's unwinder writes the catch's landing pad into one just before it jumps there)
// ends the stack, not whole, even where the CFI would have gone on to its base.
#include "target/inject/process_unwinder.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/inject/ptrace_thread.h"

extern "C" {
volatile unsigned long callprof_test_spins;
[[noreturn]] __attribute__((noinline, used)) void callprof_test_spin() {
  for (;;) callprof_test_spins = callprof_test_spins + 1;
}
// Each enters callprof_test_spin with rbx saved, as a function with one register to keep:
// by a call, or by a jump with the address after a nop pushed as its return address, where
// the CFI says the same as at the call's return.
void callprof_test_spin_called();
void callprof_test_spin_entered_without_call();
}

asm(R"(
  .text
  .globl callprof_test_spin_called
  .type callprof_test_spin_called, @function
callprof_test_spin_called:
  .cfi_startproc
  push %rbx
  .cfi_adjust_cfa_offset 8
  call callprof_test_spin
  .cfi_endproc
  .size callprof_test_spin_called, .-callprof_test_spin_called

  .globl callprof_test_spin_entered_without_call
  .type callprof_test_spin_entered_without_call, @function
callprof_test_spin_entered_without_call:
  .cfi_startproc
  push %rbx
  .cfi_adjust_cfa_offset 8
  nop
1:
  lea 1b(%rip), %rax
  push %rax
  .cfi_adjust_cfa_offset 8
  jmp callprof_test_spin
  .cfi_endproc
  .size callprof_test_spin_entered_without_call, .-callprof_test_spin_entered_without_call
)");

namespace callprof::inject {
namespace {

class ProcessUnwinderChild : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) != 0) GTEST_SKIP() << "no ptrace";
  }
  // Forks a child that runs `entry` forever, holds it, and unwinds its stack into frames_
  // and whole_.
  void unwind_child(void (*entry)()) {
    const pid_t child = fork();
    if (child == 0) entry();
    ASSERT_GT(child, 0);
    // Looked at until it spins in the loop (a loaded machine may start it late): the same
    // code at the same address in the child.
    const auto spin = reinterpret_cast<uint64_t>(&callprof_test_spin);
    const bool initially_whole = whole_;
    for (int attempt = 0; attempt < 200 && !in_spin(spin); ++attempt) {
      usleep(10000);
      whole_ = initially_whole;
      auto held = PtraceThread::seize(child, child, 1000);
      EXPECT_TRUE(held) << held.error().message;
      if (held) frames_ = ProcessUnwinder(child).frames(child, 64, &whole_);
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    EXPECT_TRUE(in_spin(spin)) << "the child was not in the loop after 2 s";
  }
  bool in_spin(uint64_t spin) const {
    return !frames_.empty() && frames_[0].code() >= spin && frames_[0].code() < spin + 64;
  }
  std::vector<UnwoundFrame> frames_;
  bool whole_ = false;
};

TEST_F(ProcessUnwinderChild, UnwindsThroughReturnAddressesToItsBase) {
  unwind_child(callprof_test_spin_called);
  EXPECT_TRUE(whole_);
  EXPECT_GT(frames_.size(), 3u) << "the spin, its caller, the test's frames, main's";
}

TEST_F(ProcessUnwinderChild, EndsAtASlotNoCallPrecedes) {
  whole_ = true;
  unwind_child(callprof_test_spin_entered_without_call);
  EXPECT_FALSE(whole_);
  EXPECT_EQ(frames_.size(), 1u) << "the spin alone: its return address follows a nop";
}

}  // namespace
}  // namespace callprof::inject
