// Where the symbolizer finds names for stripped programs: the function starts of the unwind
// info when nothing else is there, and debug files in each place users keep them (beside the
// file, .debug/, a build-id tree, a --symfs root). debuginfod is tested end to end
// (tests/e2e/debug_info_test.cpp): libdwfl reads DEBUGINFOD_URLS once per process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "fixture_support.h"
#include "scoped_env.h"
#include "scratch_dir.h"
#include "symbols/decompressed_debug.h"
#include "symbols/symbolizer.h"

namespace callprof {
namespace {

using test_support::find_module;
using test_support::FixtureRun;
using test_support::make_symbolizer;
using test_support::run_fixture;
using test_support::ScopedEnv;
using test_support::ScratchDir;
namespace fs = std::filesystem;

std::string warnings_of(const Symbolizer& symbolizer) {
  std::string all;
  for (const std::string& w : symbolizer.warnings()) all += w + "\n";
  return all;
}

// The names the fixture's entries of module `index` get.
std::set<std::string> names_in(Symbolizer& symbolizer, const FixtureRun& run, int index) {
  std::set<std::string> names;
  for (uint64_t entry : run.entries) {
    SymbolInfo info = symbolizer.resolve(entry);
    if (info.module == index) names.insert(info.name);
  }
  return names;
}

// Whether the stripped program's own functions got their names and lines back.
void expect_named(Symbolizer& symbolizer, const FixtureRun& run, int index) {
  const std::set<std::string> names = names_in(symbolizer, run, index);
  EXPECT_TRUE(names.count("demo::inner::compute(double)")) << warnings_of(symbolizer);
  EXPECT_TRUE(names.count("main"));
  for (uint64_t entry : run.entries) {
    SymbolInfo info = symbolizer.resolve(entry);
    if (info.name == "demo::inner::compute(double)") {
      EXPECT_NE(info.line, 0u) << "no lines: DWARF not found";
    }
  }
}

struct StrippedRun {
  FixtureRun run;
  int main = -1;
  std::string build_id;
};

// The fixture stripped without a .gnu_debuglink (nolink/): only its build id leads to the
// debug file.
StrippedRun run_stripped(const std::string& program = SYMFIX_NOLINK) {
  StrippedRun s;
  s.run = run_fixture(program);
  s.main = find_module(s.run.modules, fs::path(program).filename().string());
  if (s.main >= 0) s.build_id = s.run.modules[size_t(s.main)].build_id;
  return s;
}

void copy_to(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

fs::path build_id_path(const fs::path& root, const std::string& build_id) {
  return root / ".build-id" / build_id.substr(0, 2) / (build_id.substr(2) + ".debug");
}

TEST(StrippedNames, AddressesOfAFunctionShareItsStartFromTheUnwindInfo) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  size_t checked = 0;
  for (uint64_t entry : s.run.entries) {
    SymbolInfo at_entry = symbolizer->resolve(entry);
    if (at_entry.module != s.main) continue;
    EXPECT_EQ(at_entry.name, "");
    EXPECT_EQ(at_entry.offset, 0u);
    for (uint64_t inside : {1, 3}) {
      SymbolInfo info = symbolizer->resolve(entry + inside);
      EXPECT_EQ(info.offset, inside) << std::hex << entry;  // the entry is the unwind entry's start
      EXPECT_EQ(info.file_address - info.offset, at_entry.file_address);
    }
    ++checked;
  }
  EXPECT_GE(checked, 6u);
  const std::string w = warnings_of(*symbolizer);
  EXPECT_NE(w.find("nolink/symfix_pie: stripped (no symbol table, no debug info)"), std::string::npos) << w;
  EXPECT_NE(w.find("symfix_pie+0xSTART"), std::string::npos) << w;
  EXPECT_NE(w.find("build id " + s.build_id), std::string::npos) << w;
  EXPECT_NE(w.find("--symfs"), std::string::npos) << w;
}

TEST(StrippedNames, SymbolTableOnlyIsNotCalledStripped) {
  FixtureRun run = run_fixture(SYMFIX_NODEBUG);
  auto symbolizer = make_symbolizer(run.modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  for (uint64_t entry : run.entries) symbolizer->resolve(entry);
  const std::string w = warnings_of(*symbolizer);
  EXPECT_NE(w.find("no debug info; names from the symbol table only"), std::string::npos) << w;
  EXPECT_EQ(w.find("stripped"), std::string::npos) << w;
}

TEST(StrippedNames, DebuglinkInTheDotDebugSubdirectory) {
  ScratchDir dir;
  const fs::path program = dir.path() / "symfix_pie";
  copy_to(SYMFIX_STRIPPED, program);  // its .gnu_debuglink names symfix_pie.debug
  copy_to(SYMFIX_STRIPPED_DEBUG, dir.path() / ".debug" / "symfix_pie.debug");
  StrippedRun s = run_stripped(program.string());
  ASSERT_GE(s.main, 0);
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = ""});
  ASSERT_TRUE(symbolizer);
  expect_named(*symbolizer, s.run, s.main);
  EXPECT_EQ(symbolizer->debug_file(size_t(s.main)), (dir.path() / ".debug" / "symfix_pie.debug").string());
}

TEST(StrippedNames, SymfsBuildIdTreeUnderUsrLibDebug) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  ScratchDir symfs;
  copy_to(SYMFIX_STRIPPED_DEBUG, build_id_path(symfs.path() / "usr/lib/debug", s.build_id));
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = symfs.path().string()});
  ASSERT_TRUE(symbolizer);
  expect_named(*symbolizer, s.run, s.main);
  EXPECT_TRUE(symbolizer->warnings().empty()) << warnings_of(*symbolizer);
}

// Debian's debug files have their DWARF compressed (zlib), which libdw inflates whole at
// every opening: the first symbolizer reads the file and leaves a decompressed copy in the
// cache, keyed by the build id; the next reads the copy, with the same names and lines.
TEST(StrippedNames, ACompressedDebugFileIsReadThroughADecompressedCopy) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  ScratchDir symfs, cache;
  const ScopedEnv cache_home("XDG_CACHE_HOME", cache.path().string());
  const fs::path found = build_id_path(symfs.path() / "usr/lib/debug", s.build_id);
  copy_to(SYMFIX_STRIPPED_ZLIB_DEBUG, found);
  const auto answers = [&](SymbolizerOptions options) {
    auto symbolizer = make_symbolizer(s.run.modules, options, options.cache);
    std::vector<std::string> out;
    if (!symbolizer) return out;
    expect_named(*symbolizer, s.run, s.main);
    for (uint64_t entry : s.run.entries) {
      const SymbolInfo info = symbolizer->resolve(entry);
      if (info.module == s.main) out.push_back(info.name + ":" + std::to_string(info.line));
    }
    out.push_back(symbolizer->debug_file(size_t(s.main)));
    return out;
  };
  const SymbolizerOptions options{.debug_dirs = {}, .symfs = symfs.path().string()};
  const std::vector<std::string> first = answers(options);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), found.string());
  std::vector<fs::path> copies;
  for (const auto& e : fs::recursive_directory_iterator(cache.path()))
    if (e.path().filename().string().rfind("debug-", 0) == 0) copies.push_back(e.path());
  ASSERT_EQ(copies.size(), 1u) << "no decompressed copy";
  {
    const int fd = open(copies[0].c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_FALSE(symbols_detail::has_compressed_debug(fd));
    close(fd);
    const int original = open(found.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_TRUE(symbols_detail::has_compressed_debug(original));
    close(original);
  }
  std::vector<std::string> second = answers(options);
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(second.back(), copies[0].string()) << "read through the copy";
  second.back() = first.back();
  EXPECT_EQ(second, first);
  // A damaged copy is made again.
  fs::resize_file(copies[0], 4096);
  std::vector<std::string> third = answers(options);
  ASSERT_FALSE(third.empty());
  third.back() = first.back();
  EXPECT_EQ(third, first);
  EXPECT_GT(fs::file_size(copies[0]), 4096u) << "made again";
  // Without the cache, the file found is read as it is.
  SymbolizerOptions uncached = options;
  uncached.cache = false;
  EXPECT_EQ(answers(uncached).back(), found.string());
}

TEST(StrippedNames, SymfsFlatBuildIdTree) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  ScratchDir symfs;
  copy_to(SYMFIX_STRIPPED_DEBUG, build_id_path(symfs.path(), s.build_id));
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = symfs.path().string()});
  ASSERT_TRUE(symbolizer);
  expect_named(*symbolizer, s.run, s.main);
}

// perf's --symfs: the unstripped program at the stripped one's path under the root.
TEST(StrippedNames, SymfsCopyOfTheProgramWithItsSymbols) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  ScratchDir symfs;
  const std::string copy = symfs.path().string() + s.run.modules[size_t(s.main)].path;
  copy_to(SYMFIX_PIE, copy);  // same build id: strip keeps the note
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = symfs.path().string()});
  ASSERT_TRUE(symbolizer);
  expect_named(*symbolizer, s.run, s.main);
  EXPECT_EQ(symbolizer->file(size_t(s.main)), copy);
}

// A debug file named by the link, in the file's own directory mirrored under the root.
TEST(StrippedNames, SymfsDebuglinkByTheFilesDirectory) {
  StrippedRun s = run_stripped(SYMFIX_STRIPPED);
  ASSERT_GE(s.main, 0);
  ScratchDir elsewhere, symfs;
  const fs::path program = elsewhere.path() / "bin" / "symfix_pie";  // no debug file beside it
  copy_to(SYMFIX_STRIPPED, program);
  s = run_stripped(program.string());
  ASSERT_GE(s.main, 0);
  copy_to(SYMFIX_STRIPPED_DEBUG, symfs.path().string() + program.parent_path().string() + "/symfix_pie.debug");
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = symfs.path().string()});
  ASSERT_TRUE(symbolizer);
  expect_named(*symbolizer, s.run, s.main);
}

TEST(StrippedNames, ADebugFileOfAnotherBuildIsRefused) {
  StrippedRun s = run_stripped();
  ASSERT_GE(s.main, 0);
  ScratchDir symfs;
  copy_to(SYMFIX_LIB, build_id_path(symfs.path(), s.build_id));  // right place, wrong build id
  auto symbolizer = make_symbolizer(s.run.modules, {.debug_dirs = {}, .symfs = symfs.path().string()});
  ASSERT_TRUE(symbolizer);
  const std::set<std::string> names = names_in(*symbolizer, s.run, s.main);
  EXPECT_EQ(names, std::set<std::string>{""}) << warnings_of(*symbolizer);
}

}  // namespace
}  // namespace callprof
