// A program built to be attached (patched_code.h, return_addresses.h), on this test's own
// process: the sites its functions built with -fpatchable-function-entry have, where a
// thread inside their nops goes on, which frames are open, and the return addresses an
// earlier window left replaced given back in the right order.
#include "target/inject/patched_code.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "symbols/elf_functions.h"
#include "symbols/elf_sections.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/process_unwinder.h"
#include "target/inject/ptrace_thread.h"
#include "target/inject/return_addresses.h"
#include "wire/return_stacks.h"

extern "C" int callprof_test_patchable_one(int);
extern "C" int callprof_test_patchable_two(int);
extern "C" int callprof_test_patchable_with_cold_part(int);

namespace callprof::inject {
namespace {

// Where the function's nops are: at its start, or after its endbr64.
uint64_t site_of(const void* fn) {
  const auto* b = static_cast<const uint8_t*>(fn);
  return reinterpret_cast<uint64_t>(fn) + (std::memcmp(b, "\xf3\x0f\x1e\xfa", 4) == 0 ? 4 : 0);
}

TEST(PatchedCode, FindsTheSitesOfThisProcesssPatchableFunctions) {
  auto modules = mapped_modules(getpid());
  ASSERT_TRUE(modules) << modules.error().message;
  const PatchedCode code(getpid(), *modules);
  ASSERT_FALSE(code.empty());
  EXPECT_GE(code.sites(), 2u);
  EXPECT_FALSE(code.ranges().empty());
  for (const void* fn : {reinterpret_cast<const void*>(&callprof_test_patchable_one),
                         reinterpret_cast<const void*>(&callprof_test_patchable_two)}) {
    const uint64_t site = site_of(fn);
    EXPECT_EQ(code.past_nops(site), 0u) << "at the site: its call runs";
    for (uint64_t pc = site + 1; pc < site + kPatchBytes; ++pc)
      EXPECT_EQ(code.past_nops(pc), site + kPatchBytes) << "inside the nops: moved past them";
    EXPECT_EQ(code.past_nops(site + kPatchBytes), 0u);
  }
  EXPECT_EQ(callprof_test_patchable_two(2), 6);
}

// The sections `record` lists in its function plan for the runtime ("p" lines): read from
// the file at link-time addresses, they hold this process's sites once relocated.
TEST(PatchedCode, TheFilesSectionsListTheSitesOnceRelocated) {
  auto modules = mapped_modules(getpid());
  ASSERT_TRUE(modules) << modules.error().message;
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  uint64_t bias = UINT64_MAX;
  for (const MappedModule& m : *modules)
    if (m.path == self) bias = m.bias;
  ASSERT_NE(bias, UINT64_MAX) << self;
  auto sections = allocated_sections(self, kPatchableSection);
  ASSERT_TRUE(sections) << sections.error().message;
  ASSERT_FALSE(sections->empty());
  std::set<uint64_t> sites;
  for (const auto& [start, end] : *sections)
    for (uint64_t at = start + bias; at + 8 <= end + bias; at += 8) sites.insert(*reinterpret_cast<uint64_t*>(at));
  for (const void* fn : {reinterpret_cast<const void*>(&callprof_test_patchable_one),
                         reinterpret_cast<const void*>(&callprof_test_patchable_two)})
    EXPECT_EQ(sites.count(site_of(fn)), 1u);
  auto none = allocated_sections(self, "no-such-section");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(allocated_sections("/proc/self/status", kPatchableSection)) << "not ELF: an error";
}

TEST(PatchedCode, AFrameIsOpenOnceItsEntryRan) {
  EXPECT_FALSE(PatchedCode::frame_open(0x1000, 0x1000, true)) << "at the site: the entry is to come";
  EXPECT_FALSE(PatchedCode::frame_open(0x1004, 0x1000, true)) << "at its endbr64";
  EXPECT_TRUE(PatchedCode::frame_open(0x1000, 0x1002, true)) << "inside the nops: moved past, entry skipped";
  EXPECT_TRUE(PatchedCode::frame_open(0x1000, 0x1040, true));
  EXPECT_TRUE(PatchedCode::frame_open(0x1000, 0x1040, false)) << "a return address: it called something";
}

// This test's own cold parts (GCC's, with libstdc++'s and GoogleTest's inlined code): each
// maps to the function its name names, this file's among them.
TEST(PatchedCode, EachColdPartMapsToTheFunctionItsNameNames) {
  const auto owners = cold_part_owners("/proc/self/exe");
  if (owners.empty()) GTEST_SKIP() << "the compiler made no cold part";
  auto functions = elf_functions("/proc/self/exe");
  ASSERT_TRUE(functions);
  std::map<uint64_t, std::vector<std::string>> named;  // aliases share an address (C1/C2)
  for (const ElfFunction& f : *functions) named[f.address].push_back(f.linkage_name);
  bool ours = false;
  for (const auto& [part, owner] : owners) {
    bool matches = false;
    for (const std::string& p : named[part])
      for (const std::string& o : named[owner]) {
        matches = matches || p.rfind(o + ".cold", 0) == 0;
        ours = ours || o == "callprof_test_patchable_with_cold_part";
      }
    EXPECT_TRUE(matches) << named[part].front() << " is no cold part of " << named[owner].front();
  }
  EXPECT_TRUE(ours) << owners.size() << " parts";
}

// A thread stopped in a call made from a function's cold part (GCC puts a catch block
// there) has that function open: the part runs on its frame, after its entry.
TEST(PatchedCode, AFrameInItsFunctionsColdPartIsThatFunctions) {
  if (geteuid() != 0 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) != 0) GTEST_SKIP() << "no ptrace";
  const auto owner = reinterpret_cast<uint64_t>(&callprof_test_patchable_with_cold_part);
  auto functions = elf_functions("/proc/self/exe");
  ASSERT_TRUE(functions);
  uint64_t in_file = 0;  // the function's file address, as cold_part_owners gives them
  for (const ElfFunction& f : *functions)
    if (f.linkage_name == "callprof_test_patchable_with_cold_part") in_file = f.address;
  bool has_cold_part = false;
  for (const auto& [part, of] : cold_part_owners("/proc/self/exe")) has_cold_part = has_cold_part || of == in_file;
  if (!has_cold_part) GTEST_SKIP() << "the compiler made no cold part of callprof_test_patchable_with_cold_part";
  const pid_t child = fork();
  if (child == 0) _exit(callprof_test_patchable_with_cold_part(1));
  ASSERT_GT(child, 0);
  // Looked at until it spins in the cold callee (a loaded machine may start it late).
  std::string return_into;
  std::vector<OpenFrame> open;
  for (int attempt = 0; attempt < 200 && !return_into.ends_with(".cold"); ++attempt) {
    usleep(10000);
    auto held = PtraceThread::seize(child, child, 1000);
    ASSERT_TRUE(held) << held.error().message;
    auto modules = mapped_modules(child);
    ASSERT_TRUE(modules);
    ProcessUnwinder unwinder(child);
    const auto frames = unwinder.frames(child, 64);
    if (frames.size() > 1) return_into = unwinder.function_name(frames[1].code());
    open = PatchedCode(child, *modules).open_frames(unwinder, child);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(return_into.ends_with(".cold")) << "not in the cold callee after 2 s: " << return_into;
  bool found = false;
  for (const OpenFrame& f : open) found = found || f.fn == owner;
  EXPECT_TRUE(found) << "the frame returning into " << return_into << " is its function's";
}

// Slots replaced by "the runtime" (an address in a fake code range) get their real
// addresses back, a tail call's slot its caller's (the tail call's entry holds the
// trampoline); a slot that no longer holds the trampoline (its frame returned) is left
// alone; the stacks are emptied.
TEST(ReturnAddresses, AreGivenBackTheTailCallsSlotItsCallers) {
  constexpr uint64_t kTrampoline = 0x7000'0010, kOriginal = 0x4000'1234, kReturned = 0x4000'9999;
  const std::vector<std::pair<uint64_t, uint64_t>> runtime_code{{0x7000'0000, 0x7000'1000}};
  uint64_t slots[3] = {kTrampoline, kTrampoline, kReturned};
  auto* stack = new wire::ReturnStack{};
  stack->h.depth = 4;
  stack->h.owner = uint32_t(gettid());
  auto slot = [&](int i) { return reinterpret_cast<uint64_t>(&slots[i]); };
  stack->e[0] = {slot(0), kOriginal, 0x1, 1, 0};
  stack->e[1] = {slot(0), kTrampoline, 0x2, 1, 0};  // a tail call from the frame below
  stack->e[2] = {slot(1), kOriginal + 8, 0x3, 1, 0};
  stack->e[3] = {slot(2), kOriginal + 16, 0x4, 1, 0};
  wire::ReturnStack* head = stack;
  auto restored = restore_return_addresses(getpid(), reinterpret_cast<uint64_t>(&head), runtime_code);
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(*restored, 3u);
  EXPECT_EQ(slots[0], kOriginal);
  EXPECT_EQ(slots[1], kOriginal + 8);
  EXPECT_EQ(slots[2], kReturned);
  EXPECT_EQ(stack->h.depth, 0u);
  delete stack;
}

TEST(ReturnAddresses, AListThatCannotBeReadIsAnError) {
  const uint64_t head = 0x10;  // not mapped: the list's head cannot be read
  EXPECT_FALSE(restore_return_addresses(getpid(), head, {}));
}

}  // namespace
}  // namespace callprof::inject
