// The runtime's reading of the function plan (runtime/function_plan.h; format in
// docs/design.md, "Filters and checkpoints"): modules recognised among the loaded ones by
// their files, hook call sites and tail exits as run-time addresses, functions' flags.
// The recorder lists each module's sites ascending and the runtime then leaves them as
// they are; here they come in every order (a module of higher addresses first, a line
// descending, tail exits out of order), which the runtime must sort itself.
#include "function_plan.h"

#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "wire/raw_dump.h"

namespace callprof::rt {

// What the plan's other lines ("p", "u") feed: not read here.
bool add_patchable_range(uint64_t, uint64_t) { return true; }
bool add_unwinder_slot(uint64_t, const char*, bool) { return true; }

namespace {

struct Loaded {
  std::string path;
  uint64_t bias = 0;
};

// The program's own file and the C library's, as the loader has them.
std::vector<Loaded> program_and_libc() {
  std::vector<Loaded> found(2);
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& out = *static_cast<std::vector<Loaded>*>(data);
        const std::string name = info->dlpi_name;
        if (name.empty() && out[0].path.empty()) {
          char self[PATH_MAX] = {};
          const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
          if (n > 0) out[0] = {std::string(self, size_t(n)), info->dlpi_addr};
        } else if (name.find("/libc.so.6") != std::string::npos) {
          out[1] = {name, info->dlpi_addr};
        }
        return 0;
      },
      &found);
  return found;
}

TEST(FunctionPlan, SitesTailExitsAndFlagsInAnyOrderAreFound) {
  const std::vector<Loaded> m = program_and_libc();
  ASSERT_FALSE(m[0].path.empty());
  ASSERT_FALSE(m[1].path.empty()) << "no libc.so.6 loaded";
  const uint64_t exe = m[0].bias, libc = m[1].bias;
  ASSERT_LT(exe, libc) << "the program below the C library, as the plan's order assumes";
  const std::string plan = testing::TempDir() + "/functions.plan";
  {
    std::ofstream out(plan);
    out << "callprof-functions 1\ndefault " << wire::kNodeExcluded << "\n"
        << "module " << m[1].path << "\n"
        << "s 2000 2100\n"
        << "module " << m[0].path << "\n"
        << "s 300 100 200\n"
        << "s 50\n"
        << "t 1000 1040\nt 900 940\nt 1000 1010\n"
        << "2000 " << wire::kNodeCheckpoint << "\n"
        << "1500 " << wire::kNodeExcluded << "\n";
  }
  load_function_plan(plan.c_str(), false);
  // Addresses in the plan are hexadecimal ELF addresses of their module.
  for (uint64_t site : {exe + 0x50, exe + 0x100, exe + 0x200, exe + 0x300, libc + 0x2000, libc + 0x2100})
    EXPECT_TRUE(known_hook_site(site)) << std::hex << site;
  for (uint64_t other : {exe + 0x150, exe + 0x301, libc + 0x2050, exe + 0x2000})
    EXPECT_FALSE(known_hook_site(other)) << std::hex << other;
  uint64_t tails[4] = {};
  ASSERT_EQ(tail_exits_of(exe + 0x1000, tails, 4), 2u);
  std::sort(tails, tails + 2);
  EXPECT_EQ(tails[0], exe + 0x1010);
  EXPECT_EQ(tails[1], exe + 0x1040);
  ASSERT_EQ(tail_exits_of(exe + 0x900, tails, 4), 1u);
  EXPECT_EQ(tails[0], exe + 0x940);
  EXPECT_EQ(function_flags(exe + 0x2000), wire::kNodeCheckpoint);
  EXPECT_EQ(function_flags(exe + 0x1500), wire::kNodeExcluded);
  EXPECT_EQ(function_flags(exe + 0x1600), 0u) << "a function of a listed module, unlisted";
  EXPECT_TRUE(in_plan_module(exe + 0x1600));
  EXPECT_TRUE(in_plan_module(libc + 0x2000));
  EXPECT_FALSE(in_plan_module(0x10));
  EXPECT_EQ(function_flags(0x10), wire::kNodeExcluded) << "outside the plan's modules: the default";
}

}  // namespace
}  // namespace callprof::rt
