// The runtime's code rewriting (runtime/code_patch.h) on code made for the test: a function
// that is one `call counter; ret`, at every kind of place in a cache line, called by
// threads while the call becomes a nop under them.
#include "code_patch.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace callprof::rt {
namespace {

constexpr uint64_t kPage = 4096;

// Page 0: the functions (each `call count; ret`), `count` (`lock incq counter(%rip); ret`)
// at its end, before it `mov $0xc3, %al; ret`, whose immediate is the ret byte a call on
// a line's last byte is pointed at, and before that `other` (`lock incq counter2(%rip);
// ret`), a second target for retargeted calls; page 1: the two counters.
class CallerPage {
 public:
  // `tail`: each function is `jmp count` instead (a tail call: count returns for it).
  explicit CallerPage(const std::vector<uint64_t>& offsets, bool tail = false) {
    void* m = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(m, MAP_FAILED);
    base_ = static_cast<uint8_t*>(m);
    std::memset(base_, 0xcc, kPage);  // int3 between the functions
    uint8_t* count = base_ + kPage - 16;
    const uint8_t inc[] = {0xf0, 0x48, 0xff, 0x05};  // lock incq disp32(%rip)
    std::memcpy(count, inc, 4);
    put32(count + 4, int32_t((base_ + kPage) - (count + 8)));
    count[8] = 0xc3;
    const uint8_t mov_al[] = {0xb0, 0xc3, 0xc3};  // mov $0xc3, %al; ret
    std::memcpy(base_ + kPage - 32, mov_al, 3);
    uint8_t* other = base_ + kPage - 48;
    std::memcpy(other, inc, 4);
    put32(other + 4, int32_t((base_ + kPage + 8) - (other + 8)));
    other[8] = 0xc3;
    for (uint64_t at : offsets) {
      base_[at] = tail ? 0xe9 : 0xe8;
      put32(base_ + at + 1, int32_t(count - (base_ + at + 5)));
      base_[at + 5] = 0xc3;
    }
    EXPECT_EQ(mprotect(base_, kPage, PROT_READ | PROT_EXEC), 0);
  }
  ~CallerPage() { munmap(base_, 2 * kPage); }
  uint64_t site(uint64_t offset) const { return reinterpret_cast<uint64_t>(base_ + offset); }
  uint64_t ret_byte() const { return site(kPage - 31); }  // an immediate 0xc3
  uint64_t other() const { return site(kPage - 48); }
  void call(uint64_t offset) const { reinterpret_cast<void (*)()>(base_ + offset)(); }
  uint64_t count() const { return __atomic_load_n(reinterpret_cast<uint64_t*>(base_ + kPage), __ATOMIC_SEQ_CST); }
  uint64_t other_count() const {
    return __atomic_load_n(reinterpret_cast<uint64_t*>(base_ + kPage + 8), __ATOMIC_SEQ_CST);
  }

 private:
  static void put32(uint8_t* at, int32_t v) { std::memcpy(at, &v, 4); }
  uint8_t* base_ = nullptr;
};

const uint8_t kNop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

int32_t displacement(uint64_t site) {
  int32_t rel = 0;
  std::memcpy(&rel, reinterpret_cast<const uint8_t*>(site) + 1, 4);
  return rel;
}

TEST(CodePatch, ACallBecomesANopWhereverItSitsInItsCacheLine) {
  // In line k, the call at byte k of it: 0..59 fit, 60 and 61 cross into the next line and
  // get the short form (jmp .+5); in line 62, one on the last byte, which becomes a call of
  // the ret byte (with none given, it stays).
  std::vector<uint64_t> offsets;
  for (uint64_t k = 0; k < 62; ++k) offsets.push_back(k * 64 + k);
  offsets.push_back(62 * 64 + 63);
  CallerPage page(offsets);
  for (uint64_t at : offsets) page.call(at);
  EXPECT_EQ(page.count(), offsets.size());
  for (uint64_t at : offsets) {
    const uint64_t in_line = at % 64;
    const auto* code = reinterpret_cast<const uint8_t*>(page.site(at));
    if (in_line == 63) {
      EXPECT_EQ(rewrite_call_as_nop(page.site(at)), Rewrite::CrossesLine) << "no ret byte given";
      EXPECT_EQ(rewrite_call_as_nop(page.site(at), page.site(0)), Rewrite::CrossesLine) << "not a ret byte";
      ASSERT_EQ(rewrite_call_as_nop(page.site(at), page.ret_byte()), Rewrite::Done);
      EXPECT_EQ(code[0], 0xe8) << "the opcode stays";
      EXPECT_EQ(page.site(at) + 5 + uint64_t(int64_t(displacement(page.site(at)))), page.ret_byte());
      EXPECT_EQ(code[5], 0xc3) << "the bytes around it stay";
      EXPECT_EQ(rewrite_call_as_nop(page.site(at), page.ret_byte()), Rewrite::NotACall) << "once only";
      continue;
    }
    const Rewrite r = rewrite_call_as_nop(page.site(at), page.ret_byte());
    ASSERT_EQ(r, Rewrite::Done) << in_line;
    if (in_line + 5 <= 64)
      EXPECT_EQ(std::memcmp(code, kNop5, 5), 0) << in_line;
    else
      EXPECT_TRUE(code[0] == 0xeb && code[1] == 0x03) << in_line << ": jmp .+5";
    EXPECT_EQ(code[5], 0xc3) << "the bytes around it stay";
    EXPECT_EQ(rewrite_call_as_nop(page.site(at)), Rewrite::NotACall) << "once only";
  }
  const uint64_t before = page.count();
  for (uint64_t at : offsets) page.call(at);
  EXPECT_EQ(page.count(), before) << "no call reaches the counter";
  EXPECT_EQ(rewrite_counts().refused_errno, 0u);
}

// A call's displacement changes to reach another target (a counting stub) wherever its four
// bytes lie in one cache line: everywhere but 1 to 3 bytes before a line's end.
TEST(CodePatch, ACallIsRetargetedWhereItsDisplacementLiesInOneLine) {
  std::vector<uint64_t> offsets;
  for (uint64_t k = 0; k < 62; ++k) offsets.push_back(k * 64 + k);
  offsets.push_back(62 * 64 + 63);
  CallerPage page(offsets);
  const uint64_t target = page.ret_byte();  // returns at once: calls through it count nothing
  for (uint64_t at : offsets) {
    const uint64_t in_line = at % 64;
    const auto* code = reinterpret_cast<const uint8_t*>(page.site(at));
    const Rewrite r = retarget_call(page.site(at), target);
    if (in_line >= 60 && in_line <= 62) {
      EXPECT_EQ(r, Rewrite::CrossesLine) << in_line;
      continue;
    }
    ASSERT_EQ(r, Rewrite::Done) << in_line;
    EXPECT_EQ(code[0], 0xe8) << "the opcode stays";
    EXPECT_EQ(page.site(at) + 5 + uint64_t(int64_t(displacement(page.site(at)))), target) << in_line;
    EXPECT_EQ(code[5], 0xc3) << "the bytes around it stay";
    EXPECT_EQ(retarget_call(page.site(at), target), Rewrite::NotACall) << "once only";
  }
  EXPECT_EQ(retarget_call(page.site(0), page.site(0) + (uint64_t(1) << 32)), Rewrite::OutOfReach);
  for (uint64_t at : offsets) page.call(at);
  EXPECT_EQ(page.count(), 2u) << "only the calls that kept their target (at 60 and 61) count";
}

TEST(CodePatch, ATailJumpBecomesAReturn) {
  const std::vector<uint64_t> offsets = {0, 64 + 30, 2 * 64 + 61};  // the last across a line: `ret` alone
  CallerPage page(offsets, true);
  for (uint64_t at : offsets) page.call(at);
  EXPECT_EQ(page.count(), 3u);
  for (uint64_t at : offsets) {
    EXPECT_EQ(rewrite_call_as_nop(page.site(at)), Rewrite::NotACall) << "a jump is not a call";
    ASSERT_EQ(rewrite_jump_as_return(page.site(at)), Rewrite::Done);
    EXPECT_EQ(reinterpret_cast<const uint8_t*>(page.site(at))[0], 0xc3);
  }
  for (uint64_t at : offsets) page.call(at);
  EXPECT_EQ(page.count(), 3u) << "the functions return at once";
}

// Another thread rewriting (the lock held): a rewrite is left for a later call (Busy), but
// a tail exit's waits a bounded time (hook removal asks for 1,000 waits: its hook returns
// into the caller, so nothing would try the site again), here until the other lets go.
TEST(CodePatch, ATailJumpWaitsABoundedTimeForAnotherRewriter) {
  CallerPage page({0, 64}, true);
  {
    const RewriteHold other;
    ASSERT_TRUE(other.held());
    EXPECT_FALSE(RewriteHold().held()) << "one rewriter at a time";
    EXPECT_EQ(rewrite_jump_as_return(page.site(0)), Rewrite::Busy);
    EXPECT_EQ(rewrite_jump_as_return(page.site(0), 20), Rewrite::Busy) << "still held after its waits";
    EXPECT_EQ(rewrite_call_as_nop(page.site(64)), Rewrite::Busy);
    EXPECT_EQ(reinterpret_cast<const uint8_t*>(page.site(0))[0], 0xe9) << "unchanged";
  }
  std::atomic<bool> held{false}, release{false};
  std::thread rewriter([&] {
    const RewriteHold hold;
    held = hold.held();
    while (!release) std::this_thread::yield();
  });
  while (!held) std::this_thread::yield();
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  EXPECT_EQ(rewrite_jump_as_return(page.site(0), UINT32_MAX), Rewrite::Done) << "done once the other let go";
  releaser.join();
  rewriter.join();
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(page.site(0))[0], 0xc3);
  page.call(0);
  page.call(64);
  EXPECT_EQ(page.count(), 1u) << "the rewritten function returns at once; the other still jumps";
}

// Sites on 62 lines: 60 at varied offsets of their line, 2 on a line's last byte.
std::vector<uint64_t> racing_offsets() {
  std::vector<uint64_t> offsets;
  for (uint64_t k = 0; k < 60; ++k) offsets.push_back(k * 64 + (k * 7) % 60);
  for (uint64_t k = 60; k < 62; ++k) offsets.push_back(k * 64 + 63);
  return offsets;
}

// Three threads calling through every site until stopped; stop() returns the calls made.
class CallingThreads {
 public:
  CallingThreads(const CallerPage& page, const std::vector<uint64_t>& offsets) {
    for (int t = 0; t < 3; ++t)
      threads_.emplace_back([&page, &offsets, this] {
        uint64_t n = 0;
        while (!stop_.load(std::memory_order_relaxed)) {
          for (uint64_t at : offsets) page.call(at), ++n;
          passes_.fetch_add(1, std::memory_order_relaxed);
        }
        calls_ += n;
      });
  }
  uint64_t stop() {
    stop_ = true;
    for (auto& t : threads_) t.join();
    threads_.clear();
    return calls_.load();
  }
  ~CallingThreads() { stop(); }
  // Passes through every site the threads have finished so far.
  uint64_t passes() const { return passes_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> passes_{0};
  std::atomic<uint64_t> calls_{0};
  std::vector<std::thread> threads_;
};

TEST(CodePatch, ThreadsRunningThroughTheCallsSeeTheOldCallOrTheNewCodeNeverAMix) {
  const std::vector<uint64_t> offsets = racing_offsets();
  for (int round = 0; round < 20; ++round) {
    CallerPage page(offsets);
    CallingThreads threads(page, offsets);
    while (page.count() < 1000) std::this_thread::yield();
    for (uint64_t at : offsets) ASSERT_EQ(rewrite_call_as_nop(page.site(at), page.ret_byte()), Rewrite::Done);
    // The threads go on running through the nops: ten more passes each, not only the one
    // each was in.
    const uint64_t passes = threads.passes();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (threads.passes() < passes + 30 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    EXPECT_GE(threads.passes(), passes + 30) << "the threads went on running through the nops";
    threads.stop();
    // A call fetched just before its rewrite may still land; none after the threads end.
    const uint64_t settled = page.count();
    for (uint64_t at : offsets) page.call(at);
    EXPECT_EQ(page.count(), settled);
  }
}

// Calls retargeted (to a counting stub, in the runtime) while three threads run through
// them: every call reaches the old target or the new one, never a mix, so the two counts
// add up to the calls made.
TEST(CodePatch, ThreadsRunningThroughRetargetedCallsReachTheOldTargetOrTheNewOne) {
  const std::vector<uint64_t> offsets = racing_offsets();
  for (int round = 0; round < 20; ++round) {
    CallerPage page(offsets);
    CallingThreads threads(page, offsets);
    while (page.count() < 1000) std::this_thread::yield();
    for (uint64_t at : offsets) ASSERT_EQ(retarget_call(page.site(at), page.other()), Rewrite::Done);
    while (page.other_count() < 1000) std::this_thread::yield();
    const uint64_t calls = threads.stop();
    EXPECT_EQ(page.count() + page.other_count(), calls) << "every call reached one of the two targets";
    const uint64_t before = page.count();
    for (uint64_t at : offsets) page.call(at);
    EXPECT_EQ(page.count(), before) << "none reaches the old target once rewritten";
  }
}

}  // namespace
}  // namespace callprof::rt
