// Symbolizer against real binaries: each fixture reports its own entry addresses and
// modules (like the recorder), and the test checks names, files and lines.
#include "symbols/symbolizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "fixture_support.h"
#include "scratch_dir.h"

namespace callprof {
namespace {

using test_support::base_name;
using test_support::find_module;
using test_support::FixtureRun;
using test_support::make_symbolizer;
using test_support::marker_line;
using test_support::run_fixture;
using test_support::ScratchDir;
namespace fs = std::filesystem;

const std::string kMain = FIXTURE_MAIN_SOURCE;
const std::string kLib = FIXTURE_LIB_SOURCE;

// The functions every GCC-built fixture must name: demangled name -> (source, marker).
const std::map<std::string, std::pair<std::string, std::string>>& expected_functions() {
  static const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"demo::inner::compute(double)", {kMain, "@fn:compute"}},
      {"demo::Widget<int>::spin(int)", {kMain, "@fn:spin"}},
      {"long demo::twice<long>(long)", {kMain, "@fn:twice"}},
      {"(anonymous namespace)::hidden_helper(int)", {kMain, "@fn:hidden_helper"}},
      {"plain_c_function", {kMain, "@fn:plain_c_function"}},
      {"outer_with_inline(int)", {kMain, "@fn:outer_with_inline"}},
      {"libfix::Scaler::scale(int) const", {kLib, "@fn:scale"}},
      {"libfix::library_entry(int)", {kLib, "@fn:library_entry"}},
  };
  return expected;
}

std::map<std::string, SymbolInfo> resolve_entries(Symbolizer& symbolizer, const std::vector<uint64_t>& entries,
                                                  uint64_t shift = 0) {
  std::map<std::string, SymbolInfo> by_name;
  for (uint64_t entry : entries) {
    SymbolInfo info = symbolizer.resolve(entry + shift);
    by_name.emplace(info.name, info);
  }
  return by_name;
}

// Names, offsets and (when with_lines) declaration files and lines of the functions.
void expect_functions(const std::map<std::string, SymbolInfo>& by_name, bool with_lines) {
  for (const auto& [name, where] : expected_functions()) {
    SCOPED_TRACE(name);
    auto it = by_name.find(name);
    ASSERT_NE(it, by_name.end()) << "not resolved";
    const SymbolInfo& info = it->second;
    EXPECT_EQ(info.offset, 0u);
    EXPECT_GE(info.module, 0);
    EXPECT_FALSE(info.linkage_name.empty());
    if (with_lines) {
      EXPECT_EQ(base_name(info.file), base_name(where.first));
      EXPECT_EQ(info.line, marker_line(where.first, where.second));
      EXPECT_EQ(info.file.front(), '/') << info.file;
    } else {
      EXPECT_EQ(info.file, "");
      EXPECT_EQ(info.line, 0u);
    }
  }
}

bool has_warning(const Symbolizer& symbolizer, const std::string& a, const std::string& b) {
  for (const std::string& w : symbolizer.warnings()) {
    if (w.find(a) != std::string::npos && w.find(b) != std::string::npos) return true;
  }
  return false;
}

std::string warnings_of(const Symbolizer& symbolizer) {
  std::string all;
  for (const std::string& w : symbolizer.warnings()) all += w + "\n";
  return all;
}

// GCC gives internal-linkage functions no DWARF linkage name: no parameter list then.
bool is_inlined_helper(const std::string& name) {
  return name == "demo::inlined_helper(int)" || name == "demo::inlined_helper";
}

// A debug directory holding the fixture's debug file under .build-id/xx/yyyy.debug.
void plant_build_id_debug_file(const fs::path& root, const std::string& build_id) {
  fs::path dir = root / ".build-id" / build_id.substr(0, 2);
  fs::create_directories(dir);
  fs::copy_file(SYMFIX_STRIPPED_DEBUG, dir / (build_id.substr(2) + ".debug"));
}

TEST(Symbolizer, PieExecutableAndSharedLibrary) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  int main_index = find_module(run.modules, "/symfix_pie");
  int lib_index = find_module(run.modules, "/libsymfix_lib.so");
  ASSERT_GE(main_index, 0);
  ASSERT_GE(lib_index, 0);
  ASSERT_NE(run.modules[main_index].bias, 0u) << "expected a PIE";
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  expect_functions(by_name, true);
  EXPECT_TRUE(by_name.count("main"));
  EXPECT_EQ(by_name["demo::inner::compute(double)"].module, main_index);
  EXPECT_EQ(by_name["libfix::Scaler::scale(int) const"].module, lib_index);
  EXPECT_EQ(by_name["plain_c_function"].linkage_name, "plain_c_function");
  EXPECT_EQ(by_name["demo::inner::compute(double)"].linkage_name, "_ZN4demo5inner7computeEd");
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

// A module is opened when an address first falls into it: a process's many libraries
// that no address of a profile reaches cost nothing (each took 0.04 ms to open).
TEST(Symbolizer, OpensOnlyTheModulesItsAddressesReach) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  const int main_index = find_module(run.modules, "/symfix_pie");
  const int lib_index = find_module(run.modules, "/libsymfix_lib.so");
  ASSERT_GE(main_index, 0);
  ASSERT_GE(lib_index, 0);
  ASSERT_GT(run.modules.size(), 2u) << "the C library and the loader at least";
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  EXPECT_EQ(symbolizer->opened_modules(), 0u);
  const LoadedModule& program = run.modules[size_t(main_index)];
  const auto in_program = std::find_if(run.entries.begin(), run.entries.end(),
                                       [&](uint64_t e) { return e >= program.start && e < program.end; });
  ASSERT_NE(in_program, run.entries.end()) << "no entry in the program's range";
  EXPECT_EQ(symbolizer->resolve(*in_program).module, main_index);
  EXPECT_EQ(symbolizer->opened_modules(), 1u) << "only the program's file";
  for (uint64_t entry : run.entries) {
    const SymbolInfo info = symbolizer->resolve(entry);
    if (info.name == "libfix::library_entry(int)") EXPECT_EQ(info.module, lib_index);
  }
  EXPECT_EQ(symbolizer->opened_modules(), 2u) << "the program and the library its functions are in";
  EXPECT_FALSE(symbolizer->file(size_t(lib_index)).empty());
}

TEST(Symbolizer, FileAddressOffsetAndMemo) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  for (uint64_t entry : run.entries) {
    SymbolInfo info = symbolizer->resolve(entry);
    if (info.name != "demo::inner::compute(double)") continue;
    EXPECT_EQ(info.file_address, entry - run.modules[info.module].bias);
    SymbolInfo inside = symbolizer->resolve(entry + 1);
    EXPECT_EQ(inside.name, info.name);
    EXPECT_EQ(inside.offset, 1u);
    EXPECT_EQ(inside.file_address, info.file_address + 1);
    EXPECT_EQ(inside.line, info.line);  // the function's line, wherever in it
    SymbolInfo again = symbolizer->resolve(entry);
    EXPECT_EQ(again.name, info.name);
    EXPECT_EQ(again.file, info.file);
    return;
  }
  FAIL() << "compute() not among the entries";
}

TEST(Symbolizer, AddressOutsideEveryModule) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  SymbolInfo info = symbolizer->resolve(0x10);
  EXPECT_EQ(info.module, -1);
  EXPECT_EQ(info.name, "");
  EXPECT_EQ(info.file, "");
}

TEST(Symbolizer, VdsoHasNoFileAndNoWarning) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  int vdso = find_module(run.modules, "linux-vdso.so.1");
  if (vdso < 0) GTEST_SKIP() << "no vDSO in this process";
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  SymbolInfo info = symbolizer->resolve(run.modules[vdso].start + 16);
  EXPECT_EQ(info.module, vdso);
  EXPECT_EQ(info.name, "");
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

TEST(Symbolizer, SharedLibraryAtAnotherBias) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  int lib_index = find_module(run.modules, "/libsymfix_lib.so");
  ASSERT_GE(lib_index, 0);
  // Only the library, moved 4 GiB up; its range taken from the file (0, 0).
  constexpr uint64_t kShift = 0x100000000;
  LoadedModule lib = run.modules[lib_index];
  lib.bias += kShift;
  lib.start = lib.end = 0;
  auto symbolizer = make_symbolizer({lib});
  ASSERT_TRUE(symbolizer);
  EXPECT_EQ(symbolizer->modules()[0].start, run.modules[lib_index].start + kShift);
  EXPECT_EQ(symbolizer->modules()[0].end, run.modules[lib_index].end + kShift);
  auto by_name = resolve_entries(*symbolizer, run.entries, kShift);
  SymbolInfo scale = by_name["libfix::Scaler::scale(int) const"];
  EXPECT_EQ(scale.module, 0);
  EXPECT_EQ(base_name(scale.file), "fixture_lib.cpp");
  EXPECT_EQ(scale.line, marker_line(kLib, "@fn:scale"));
  EXPECT_EQ(by_name["libfix::library_entry(int)"].line, marker_line(kLib, "@fn:library_entry"));
}

TEST(Symbolizer, LibraryLinkedAtNonZeroAddress) {
  FixtureRun run = run_fixture(SYMFIX_PIE_HIGH);
  int lib_index = find_module(run.modules, "/libsymfix_lib_high.so");
  ASSERT_GE(lib_index, 0);
  const LoadedModule& lib = run.modules[lib_index];
  ASSERT_EQ(lib.start - lib.bias, 0x40000000u) << "first segment not where it was linked";
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  expect_functions(by_name, true);
  const SymbolInfo& scale = by_name["libfix::Scaler::scale(int) const"];
  EXPECT_EQ(scale.module, lib_index);
  EXPECT_GT(scale.file_address, 0x40000000u);
}

TEST(Symbolizer, NonPieExecutable) {
  FixtureRun run = run_fixture(SYMFIX_NOPIE);
  int main_index = find_module(run.modules, "/symfix_nopie");
  ASSERT_GE(main_index, 0);
  EXPECT_EQ(run.modules[main_index].bias, 0u);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  expect_functions(by_name, true);
  const SymbolInfo& compute = by_name["demo::inner::compute(double)"];
  EXPECT_EQ(compute.module, main_index);
  EXPECT_LT(compute.file_address, 0x1000000u);  // a link-time address, not a mapping
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

TEST(Symbolizer, NoDebugInfoNamesFromSymbolTable) {
  FixtureRun run = run_fixture(SYMFIX_NODEBUG);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  expect_functions(by_name, false);
  EXPECT_TRUE(has_warning(*symbolizer, "symfix_nodebug", "no debug info")) << warnings_of(*symbolizer);
  EXPECT_EQ(symbolizer->warnings().size(), 1u) << warnings_of(*symbolizer);
}

TEST(Symbolizer, StrippedBinaryWithDebuglink) {
  FixtureRun run = run_fixture(SYMFIX_STRIPPED);
  ASSERT_GE(find_module(run.modules, "stripped/symfix_pie"), 0);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  expect_functions(resolve_entries(*symbolizer, run.entries), true);
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

TEST(Symbolizer, DebugFileFoundByBuildIdInDebugDir) {
  FixtureRun run = run_fixture(SYMFIX_NOLINK);
  int main_index = find_module(run.modules, "nolink/symfix_pie");
  ASSERT_GE(main_index, 0);
  const std::string build_id = run.modules[main_index].build_id;
  ASSERT_GE(build_id.size(), 20u);
  ScratchDir debug_root;
  plant_build_id_debug_file(debug_root.path(), build_id);
  auto symbolizer = make_symbolizer(run.modules, {.debug_dirs = {debug_root.path().string()}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  expect_functions(resolve_entries(*symbolizer, run.entries), true);
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

TEST(Symbolizer, StrippedBinaryWithoutDebugFile) {
  FixtureRun run = run_fixture(SYMFIX_NOLINK);
  int main_index = find_module(run.modules, "nolink/symfix_pie");
  auto symbolizer = make_symbolizer(run.modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  for (uint64_t entry : run.entries) {
    SymbolInfo info = symbolizer->resolve(entry);
    if (info.module != main_index) continue;  // the library keeps its debug info
    EXPECT_EQ(info.file, "");                 // nothing to say, and nothing made up
    EXPECT_NE(info.name, "demo::inner::compute(double)");
  }
  EXPECT_TRUE(has_warning(*symbolizer, "nolink/symfix_pie", "debug info")) << warnings_of(*symbolizer);
}

TEST(Symbolizer, MissingFileKeepsModuleAndWarnsOnce) {
  LoadedModule gone{"/nonexistent/dir/libgone.so", 0x7f0000000000, 0x7f0000001000, 0x7f0000005000, "abcdef0123"};
  auto symbolizer = make_symbolizer({gone}, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  SymbolInfo info = symbolizer->resolve(0x7f0000001234);
  EXPECT_EQ(info.module, 0);
  EXPECT_EQ(info.file_address, 0x1234u);
  EXPECT_EQ(info.name, "");
  symbolizer->resolve(0x7f0000002000);
  ASSERT_EQ(symbolizer->warnings().size(), 1u) << warnings_of(*symbolizer);
  EXPECT_TRUE(has_warning(*symbolizer, "/nonexistent/dir/libgone.so", "cannot open"));
}

TEST(Symbolizer, BuildIdMismatchLeavesModuleUnnamed) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  int main_index = find_module(run.modules, "/symfix_pie");
  ASSERT_GE(main_index, 0);
  run.modules[main_index].build_id = "0123456789abcdef0123456789abcdef01234567";
  auto symbolizer = make_symbolizer(run.modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  EXPECT_FALSE(by_name.count("demo::inner::compute(double)"));  // wrong file: no guesses
  EXPECT_TRUE(by_name.count("libfix::library_entry(int)"));     // the library still matches
  EXPECT_TRUE(has_warning(*symbolizer, "symfix_pie", "build id differs")) << warnings_of(*symbolizer);
}

TEST(Symbolizer, ReplacedFileFallsBackToCopyFoundByBuildId) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  int main_index = find_module(run.modules, "/symfix_pie");
  ASSERT_GE(main_index, 0);
  ScratchDir debug_root;
  plant_build_id_debug_file(debug_root.path(), run.modules[main_index].build_id);
  run.modules[main_index].path = SYMFIX_NODEBUG;  // "the file on disk changed since"
  auto symbolizer = make_symbolizer(run.modules, {.debug_dirs = {debug_root.path().string()}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  expect_functions(resolve_entries(*symbolizer, run.entries), true);
  EXPECT_TRUE(has_warning(*symbolizer, "build id differs", "found by build id")) << warnings_of(*symbolizer);
}

TEST(Symbolizer, OddFilesDoNotCrash) {
  ScratchDir dir;
  fs::path truncated = dir.path() / "truncated.so";
  {
    std::ifstream in(SYMFIX_LIB, std::ios::binary);
    std::string head(200, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(truncated, std::ios::binary) << head;
  }
  fs::path empty = dir.path() / "empty.so";
  std::ofstream(empty).close();
  std::vector<LoadedModule> modules = {
      {kMain, 0x10000, 0x10000, 0x20000, ""},  // a text file
      {truncated.string(), 0x30000, 0x30000, 0x40000, ""},
      {empty.string(), 0x50000, 0x50000, 0x60000, ""},
      {dir.path().string(), 0x70000, 0x70000, 0x80000, ""},  // a directory
  };
  auto symbolizer = make_symbolizer(modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  for (uint64_t address : {0x10010, 0x30010, 0x50010, 0x70010}) {
    SymbolInfo info = symbolizer->resolve(address);
    EXPECT_GE(info.module, 0);
    EXPECT_EQ(info.name, "");
    symbolizer->resolve_inlined(address);
  }
  EXPECT_EQ(symbolizer->warnings().size(), 4u) << warnings_of(*symbolizer);
}

TEST(Symbolizer, InlineChainAtReturnAddress) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  ASSERT_NE(run.return_address, 0u);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  // The return address follows the call; the call itself is one byte before.
  uint64_t call = run.return_address - 1;
  EXPECT_EQ(symbolizer->resolve(call).name, "outer_with_inline(int)");
  std::vector<SymbolInfo> chain = symbolizer->resolve_inlined(call);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_TRUE(is_inlined_helper(chain[0].name)) << chain[0].name;
  EXPECT_TRUE(chain[0].inlined);
  EXPECT_EQ(base_name(chain[0].file), "fixture_main.cpp");
  EXPECT_EQ(chain[0].line, marker_line(kMain, "@fn:inlined_helper"));
  EXPECT_EQ(chain[0].pc_line, marker_line(kMain, "@call:leaf"));
  EXPECT_EQ(chain[1].name, "outer_with_inline(int)");
  EXPECT_FALSE(chain[1].inlined);
  EXPECT_EQ(chain[1].line, marker_line(kMain, "@fn:outer_with_inline"));
  EXPECT_EQ(base_name(chain[1].pc_file), "fixture_main.cpp");
  EXPECT_EQ(chain[1].pc_line, marker_line(kMain, "@call:inlined_helper"));
}

TEST(Symbolizer, NoInlineChainAtFunctionEntry) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  for (uint64_t entry : run.entries) {
    SymbolInfo info = symbolizer->resolve(entry);
    if (!expected_functions().count(info.name)) continue;  // others may start inlined code
    std::vector<SymbolInfo> chain = symbolizer->resolve_inlined(entry);
    ASSERT_EQ(chain.size(), 1u) << info.name;
    EXPECT_EQ(chain[0].name, info.name);
    EXPECT_FALSE(chain[0].inlined);
  }
}

TEST(Symbolizer, ClangBuiltExecutable) {
  const std::string program = SYMFIX_CLANG;
  if (program.empty()) GTEST_SKIP() << "clang++ not found at configure time";
  FixtureRun run = run_fixture(program);
  auto symbolizer = make_symbolizer(run.modules);
  ASSERT_TRUE(symbolizer);
  auto by_name = resolve_entries(*symbolizer, run.entries);
  // -finstrument-functions-after-inlining: only functions that stayed out of line.
  for (const char* name : {"demo::inner::compute(double)", "demo::Widget<int>::spin(int)", "outer_with_inline(int)",
                           "libfix::Scaler::scale(int) const"}) {
    SCOPED_TRACE(name);
    auto it = by_name.find(name);
    ASSERT_NE(it, by_name.end());
    const auto& where = expected_functions().at(name);
    EXPECT_EQ(base_name(it->second.file), base_name(where.first));
    EXPECT_EQ(it->second.line, marker_line(where.first, where.second));
  }
  std::vector<SymbolInfo> chain = symbolizer->resolve_inlined(run.return_address - 1);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_TRUE(is_inlined_helper(chain[0].name)) << chain[0].name;
  EXPECT_EQ(chain[0].pc_line, marker_line(kMain, "@call:leaf"));
  EXPECT_EQ(chain[1].pc_line, marker_line(kMain, "@call:inlined_helper"));
}

}  // namespace
}  // namespace callprof
