// Hook call sites (symbols/hook_call_sites.h) against binutils' objdump, an independent
// disassembly of the same files: every `call`/`jmp` objdump labels
// <__cyg_profile_func_enter@plt> or <__cyg_profile_func_exit@plt> is found, and nothing else,
// on programs built by GCC (with and without IBT stubs) and Clang.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include "symbols/hook_call_sites.h"

namespace callprof {
namespace {

struct ObjdumpSites {
  std::set<uint64_t> enter, exit, tail_exit, ret;
};

ObjdumpSites objdump_sites(const std::string& binary) {
  const std::string command = std::string(OBJDUMP) + " -d --no-show-raw-insn " + binary + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ObjdumpSites out;
  if (!pipe) return out;
  static const std::regex insn(R"(^\s*([0-9a-f]+):\s+(call|jmp)\s+[0-9a-f]+ <__cyg_profile_func_(enter|exit)@plt>)");
  static const std::regex ret(R"(^\s*([0-9a-f]+):\s+ret\s*$)");
  char line[4096];
  while (fgets(line, sizeof line, pipe.get())) {
    std::cmatch m;
    if (std::regex_search(line, m, ret)) out.ret.insert(std::stoull(m[1].str(), nullptr, 16));
    if (!std::regex_search(line, m, insn)) continue;
    const uint64_t at = std::stoull(m[1].str(), nullptr, 16);
    if (m[2] == "jmp")
      out.tail_exit.insert(at);
    else
      (m[3] == "enter" ? out.enter : out.exit).insert(at);
  }
  return out;
}

std::set<uint64_t> as_set(const std::vector<uint64_t>& v) { return {v.begin(), v.end()}; }

void expect_same_sites(const std::string& binary) {
  SCOPED_TRACE(binary);
  const auto found = find_hook_call_sites(binary);
  ASSERT_TRUE(found) << found.error().message;
  const ObjdumpSites truth = objdump_sites(binary);
  ASSERT_FALSE(truth.enter.empty()) << "objdump found no hook calls: is it installed?";
  EXPECT_EQ(as_set(found->enter), truth.enter);
  EXPECT_EQ(as_set(found->exit), truth.exit);
  std::set<uint64_t> tails;
  for (const auto& t : found->tail_exits) {
    tails.insert(t.site);
    EXPECT_LT(t.function, t.site) << "a tail jump lies in its function";
  }
  EXPECT_EQ(tails, truth.tail_exit);
  EXPECT_EQ(found->other_calls, 0u);
  EXPECT_TRUE(truth.ret.count(found->ret_byte)) << "the ret byte is a `ret` ending a function: " << found->ret_byte;
}

TEST(HookCallSites, GccProgramsMatchObjdump) {
  expect_same_sites(SYMFIX_HOOKS);
  expect_same_sites(SYMFIX_HOOKS_IBT);  // the stubs in .plt.sec
  const auto found = find_hook_call_sites(SYMFIX_HOOKS);
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->tail_exits.empty()) << "tick() ends with a tail jump to the exit hook";
}

TEST(HookCallSites, ClangProgramMatchesObjdump) {
  if (std::string(SYMFIX_HOOKS_CLANG).empty()) GTEST_SKIP() << "clang is not installed";
  expect_same_sites(SYMFIX_HOOKS_CLANG);
}

// A program that defines the hooks itself calls them directly, not through the PLT: no
// site (the runtime's hooks are not the ones it calls).
TEST(HookCallSites, AProgramWithItsOwnHooksHasNoSites) {
  const auto found = find_hook_call_sites(SYMFIX_PIE);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->enter.empty() && found->exit.empty() && found->tail_exits.empty());
}

TEST(HookCallSites, AProgramWithoutHooksHasNoSites) {
  const auto found = find_hook_call_sites(std::string(PLT_FIXTURES).substr(0, std::string(PLT_FIXTURES).find(',')));
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->enter.empty() && found->exit.empty() && found->tail_exits.empty());
  EXPECT_FALSE(find_hook_call_sites("/nonexistent/program"));
}

}  // namespace
}  // namespace callprof
