// PLT stubs get the name of the symbol they jump to ("sin@plt"), in every layout the linker
// makes (lazy .plt, IBT .plt + .plt.sec, .plt.got, non-PIE), checked against the names
// binutils' objdump gives the same stubs: an independent reading of the same file.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fixture_support.h"
#include "symbols/symbolizer.h"

namespace callprof {
namespace {

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  std::stringstream list(PLT_FIXTURES);
  for (std::string path; std::getline(list, path, ',');) out.push_back(path);
  return out;
}

// objdump's "<sin@plt>" labels: address -> name.
std::map<uint64_t, std::string> objdump_stubs(const std::string& binary) {
  const std::string command = std::string(OBJDUMP) + " -d -j .plt -j .plt.sec -j .plt.got " + binary + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::map<uint64_t, std::string> out;
  if (!pipe) return out;
  static const std::regex label("^([0-9a-f]+) <([^<>+-]+@plt)>:");
  char line[4096];
  while (fgets(line, sizeof line, pipe.get())) {
    std::cmatch m;
    if (std::regex_search(line, m, label)) out[std::stoull(m[1].str(), nullptr, 16)] = m[2].str();
  }
  return out;
}

TEST(PltStubs, AreNamedAfterTheSymbolTheyJumpTo) {
  ASSERT_EQ(fixtures().size(), 3u);
  for (const std::string& binary : fixtures()) {
    SCOPED_TRACE(binary);
    const std::map<uint64_t, std::string> stubs = objdump_stubs(binary);
    ASSERT_GE(stubs.size(), 4u) << "objdump named no stubs";
    std::map<std::string, int> names;
    for (const auto& [address, name] : stubs) ++names[name];
    for (const char* called : {"sin@plt", "cos@plt", "strlen@plt", "labs@plt"})
      EXPECT_EQ(names.count(called), 1u) << called;
    // A PIE anywhere: the stubs' runtime addresses move with the load bias.
    const bool pie = binary.find("nopie") == std::string::npos;
    const uint64_t bias = pie ? 0x7f1234500000 : 0;
    auto symbolizer = test_support::make_symbolizer({LoadedModule{binary, bias, 0, 0, ""}});
    ASSERT_NE(symbolizer, nullptr);
    for (const auto& [address, name] : stubs) {
      for (uint64_t offset : {0, 6, 7}) {  // the jump, and inside the entry
        const SymbolInfo info = symbolizer->resolve(bias + address + offset);
        EXPECT_EQ(info.name, name) << std::hex << address << "+" << offset;
        EXPECT_EQ(info.offset, offset) << name;
      }
    }
  }
}

// The IBT layout has two stubs per function: .plt's (reached once, for lazy binding, and
// named by the relocation index it pushes) and .plt.sec's (every call).
TEST(PltStubs, IbtLayoutNamesBothStubsOfAFunction) {
  std::string binary;
  for (const std::string& f : fixtures())
    if (f.find("ibt") != std::string::npos) binary = f;
  ASSERT_FALSE(binary.empty());
  const std::map<uint64_t, std::string> stubs = objdump_stubs(binary);
  auto symbolizer = test_support::make_symbolizer({LoadedModule{binary, 0, 0, 0, ""}});
  ASSERT_NE(symbolizer, nullptr);
  uint64_t sec_sin = 0;
  for (const auto& [address, name] : stubs)
    if (name == "sin@plt") sec_sin = address;
  ASSERT_NE(sec_sin, 0u);
  // .plt lies before .plt.sec, an entry per function and a header: scan it for sin's.
  int named_sin = 0;
  for (uint64_t a = sec_sin & ~uint64_t(0xfff); a < sec_sin; a += 16)
    if (stubs.count(a) == 0 && symbolizer->resolve(a).name == "sin@plt") ++named_sin;
  EXPECT_EQ(named_sin, 1) << "sin's lazy-binding stub in .plt";
}

}  // namespace
}  // namespace callprof
