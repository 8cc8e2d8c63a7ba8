// The symbol cache: a module's resolved names, files, lines and inline chains kept across
// symbolizers (recordings) in callprof's cache directory, keyed by the module file, and
// its file format against damaged bytes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>

#include "fixture_support.h"
#include "scoped_env.h"
#include "scratch_dir.h"
#include "symbols/hook_sites_cache.h"
#include "symbols/module_cache.pb.h"
#include "symbols/module_symbol_cache.h"

namespace callprof {
namespace {

using symbols_detail::ModuleSymbolCache;
using test_support::find_module;
using test_support::FixtureRun;
using test_support::make_symbolizer;
using test_support::run_fixture;
using test_support::ScratchDir;
namespace fs = std::filesystem;

SymbolInfo sample_info(const std::string& name, bool inlined) {
  SymbolInfo i;
  i.name = name;
  i.linkage_name = "_Z" + name;
  i.offset = 7;
  i.file = "/src/a \"file\".c";
  i.line = 12;
  i.pc_file = "/src/\xff\x01odd.h";
  i.pc_line = 99;
  i.inlined = inlined;
  return i;
}

void expect_same(const SymbolInfo& a, const SymbolInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.linkage_name, b.linkage_name);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.pc_file, b.pc_file);
  EXPECT_EQ(a.pc_line, b.pc_line);
  EXPECT_EQ(a.inlined, b.inlined);
}

TEST(ModuleSymbolCache, ItsFileGivesBackWhatWasAdded) {
  ModuleSymbolCache cache("the key");
  cache.add_symbol(0x1000, sample_info("f", false));
  cache.add_symbol(0x2000, sample_info("", false));
  cache.add_chain(0x1010, {sample_info("helper", true), sample_info("f", false)});
  cache.add_code(0x1015, 8, {0xff, 0x15, 1, 2, 3, 4, 0x90, 0x90});
  cache.add_code(0x1003, 8, {0xe8, 0});  // the section's first bytes
  ModuleSymbolCache read("the key");
  ASSERT_TRUE(read.decode(cache.encode()));
  ASSERT_TRUE(read.code(0x1015, 8));
  EXPECT_EQ(*read.code(0x1015, 8), (std::vector<uint8_t>{0xff, 0x15, 1, 2, 3, 4, 0x90, 0x90}));
  ASSERT_TRUE(read.code(0x1003, 8));
  EXPECT_EQ(read.code(0x1003, 8)->size(), 2u);
  EXPECT_FALSE(read.code(0x1015, 4)) << "asked for another count";
  EXPECT_FALSE(read.code(0x1010, 8));
  ASSERT_TRUE(read.symbol(0x1000));
  expect_same(*read.symbol(0x1000), sample_info("f", false));
  expect_same(*read.symbol(0x2000), sample_info("", false));
  EXPECT_FALSE(read.symbol(0x1010));
  ASSERT_TRUE(read.chain(0x1010));
  ASSERT_EQ(read.chain(0x1010)->size(), 2u);
  expect_same((*read.chain(0x1010))[0], sample_info("helper", true));
  EXPECT_FALSE(read.chain(0x1000));
}

TEST(ModuleSymbolCache, KeepsWhatTheLastRecordingAskedFor) {
  ModuleSymbolCache earlier("k");
  earlier.add_symbol(0x1000, sample_info("asked", false));
  earlier.add_symbol(0x2000, sample_info("not asked", false));
  earlier.add_chain(0x3000, {sample_info("chain not asked", true)});
  ModuleSymbolCache last("k");
  ASSERT_TRUE(last.decode(earlier.encode()));
  ASSERT_TRUE(last.symbol(0x1000));
  last.add_symbol(0x4000, sample_info("new", false));
  ModuleSymbolCache next("k");
  ASSERT_TRUE(next.decode(last.encode()));
  EXPECT_TRUE(next.symbol(0x1000));
  EXPECT_TRUE(next.symbol(0x4000));
  EXPECT_FALSE(next.symbol(0x2000)) << "a working set, not every address ever resolved";
  EXPECT_FALSE(next.chain(0x3000));
  // The strings too: only those of the entries kept, each once, and an entry added after
  // decoding names the file's strings it shares (the same file and path as "asked").
  const std::string bytes = last.encode();
  EXPECT_EQ(bytes.find("not asked"), std::string::npos);
  EXPECT_EQ(bytes.find("odd.h"), bytes.rfind("odd.h"));
  expect_same(*next.symbol(0x4000), sample_info("new", false));
  expect_same(*next.symbol(0x1000), sample_info("asked", false));
}

TEST(ModuleSymbolCache, AnotherKeysFileOrDamagedBytesGiveAnEmptyCache) {
  ModuleSymbolCache cache("the key");
  cache.add_symbol(0x1000, sample_info("f", false));
  cache.add_chain(0x1010, {sample_info("helper", true)});
  cache.add_code(0x1015, 8, {0xe8, 1, 2, 3, 4});
  const std::string bytes = cache.encode();
  ModuleSymbolCache other("another key");
  EXPECT_FALSE(other.decode(bytes));
  EXPECT_FALSE(other.symbol(0x1000));
  ModuleSymbolCache read("the key");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {  // every truncation
    EXPECT_FALSE(read.decode(bytes.substr(0, cut))) << cut;
    EXPECT_FALSE(read.symbol(0x1000));
  }
  for (size_t at = 0; at < bytes.size(); ++at) {  // every byte flipped: no crash, a valid key's file or nothing
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    if (!read.decode(damaged)) {
      EXPECT_FALSE(read.chain(0x1010));
    }
  }
  EXPECT_FALSE(read.decode("not a cache file at all"));
}

// A file whose columns disagree (lengths, a string it lacks, chains or code bytes that reach
// past their column) is refused whole, as a damaged one is.
TEST(ModuleSymbolCache, AFileWhoseColumnsDisagreeGivesAnEmptyCache) {
  ModuleSymbolCache cache("the key");
  cache.add_symbol(0x1000, sample_info("f", false));
  cache.add_chain(0x1010, {sample_info("helper", true), sample_info("f", false)});
  cache.add_code(0x1015, 8, {0xe8, 1, 2, 3, 4});
  module_cache::ModuleSymbols good;
  ASSERT_TRUE(good.ParseFromString(cache.encode()));
  ModuleSymbolCache check("the key");
  ASSERT_TRUE(check.decode(good.SerializeAsString())) << "the unchanged file reads";
  const std::vector<std::pair<const char*, void (*)(module_cache::ModuleSymbols&)>> damages = {
      {"a column one row short",
       [](module_cache::ModuleSymbols& d) { d.mutable_infos()->mutable_linkage_name()->RemoveLast(); }},
      {"a string index past the strings",
       [](module_cache::ModuleSymbols& d) { d.mutable_infos()->set_file(0, uint32_t(d.strings().lengths_size())); }},
      {"a chain longer than the rows",
       [](module_cache::ModuleSymbols& d) { d.set_chain_lengths(0, d.chain_lengths(0) + 1); }},
      {"a chain without its length", [](module_cache::ModuleSymbols& d) { d.mutable_chain_lengths()->RemoveLast(); }},
      {"a string past the bytes",
       [](module_cache::ModuleSymbols& d) { d.mutable_strings()->set_lengths(0, d.strings().lengths(0) + 1000); }},
      {"bytes no string holds",
       [](module_cache::ModuleSymbols& d) { d.mutable_strings()->mutable_bytes()->append("x"); }},
      {"more code bytes than were asked for",
       [](module_cache::ModuleSymbols& d) { d.mutable_code()->set_asked(0, 2); }},
      {"code bytes past the column", [](module_cache::ModuleSymbols& d) { d.mutable_code()->set_lengths(0, 6); }},
      {"code without its count asked",
       [](module_cache::ModuleSymbols& d) { d.mutable_code()->mutable_asked()->RemoveLast(); }},
  };
  for (const auto& [what, damage] : damages) {
    module_cache::ModuleSymbols bad = good;
    damage(bad);
    ModuleSymbolCache read("the key");
    EXPECT_FALSE(read.decode(bad.SerializeAsString())) << what;
    EXPECT_FALSE(read.symbol(0x1000)) << what;
    EXPECT_FALSE(read.chain(0x1010)) << what;
    EXPECT_FALSE(read.code(0x1015, 8)) << what;
  }
}

class SymbolCacheDir : public ::testing::Test {
 protected:
  void SetUp() override { cache_home_.emplace("XDG_CACHE_HOME", dir_.path().string()); }
  void TearDown() override { cache_home_.reset(); }
  size_t cache_files() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_.path() / "callprof", ec))
      n += e.path().filename().string().starts_with("symbols-");
    return n;
  }
  ScratchDir dir_;

 private:
  std::optional<test_support::ScopedEnv> cache_home_;
};

struct Answers {
  std::vector<SymbolInfo> symbols;
  std::vector<std::vector<SymbolInfo>> chains;
  uint64_t cached = 0;
};

Answers resolve_all(const FixtureRun& run, bool cache, const std::vector<LoadedModule>& modules) {
  Answers a;
  auto symbolizer = make_symbolizer(modules, {}, cache);
  if (!symbolizer) return a;
  for (uint64_t entry : run.entries) a.symbols.push_back(symbolizer->resolve(entry));
  a.chains.push_back(symbolizer->resolve_inlined(run.return_address - 1));
  a.cached = symbolizer->cached_answers();
  return a;
}

TEST_F(SymbolCacheDir, TheNextSymbolizerOfTheSameFilesAnswersFromTheCacheAlike) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  ASSERT_NE(run.return_address, 0u);
  const Answers fresh = resolve_all(run, true, run.modules);
  EXPECT_EQ(fresh.cached, 0u);
  // The program's file and its library's, both with their own DWARF (and libc's and the
  // loader's where their debug files are installed: libc6-dbg).
  EXPECT_GE(cache_files(), 2u);
  const Answers cached = resolve_all(run, true, run.modules);
  const Answers uncached = resolve_all(run, false, run.modules);
  EXPECT_EQ(uncached.cached, 0u);
  // Every entry of the program and its library, and the chain; libc's and the loader's
  // (no DWARF of their own here) from their files.
  uint64_t in_modules_with_dwarf = 0;
  for (const SymbolInfo& s : fresh.symbols) in_modules_with_dwarf += s.file.find("fixture_") != std::string::npos;
  EXPECT_GE(cached.cached, in_modules_with_dwarf + 1);
  ASSERT_EQ(cached.symbols.size(), fresh.symbols.size());
  for (size_t i = 0; i < fresh.symbols.size(); ++i) {
    SCOPED_TRACE(fresh.symbols[i].name);
    expect_same(cached.symbols[i], fresh.symbols[i]);
    expect_same(uncached.symbols[i], fresh.symbols[i]);
    EXPECT_EQ(cached.symbols[i].module, fresh.symbols[i].module);
    EXPECT_EQ(cached.symbols[i].file_address, fresh.symbols[i].file_address);
  }
  // Asked for the same addresses, it leaves the files as they were.
  std::map<fs::path, fs::file_time_type> written;
  for (const auto& e : fs::directory_iterator(dir_.path() / "callprof")) written[e.path()] = e.last_write_time();
  resolve_all(run, true, run.modules);
  for (const auto& [path, time] : written) EXPECT_EQ(fs::last_write_time(path), time) << path;
  ASSERT_EQ(cached.chains[0].size(), fresh.chains[0].size());
  ASSERT_GE(fresh.chains[0].size(), 2u) << "an inlined call";
  for (size_t i = 0; i < fresh.chains[0].size(); ++i) {
    expect_same(cached.chains[0][i], fresh.chains[0][i]);
    EXPECT_EQ(cached.chains[0][i].module, fresh.chains[0][i].module);
  }
}

// What one symbolizer of the program alone answered, and how many files it opened.
struct ProgramAnswers {
  std::vector<SymbolInfo> symbols;
  std::vector<SymbolInfo> chain;
  std::vector<uint8_t> code;
  size_t opened = 0;
};

ProgramAnswers resolve_program(const FixtureRun& run, const LoadedModule& program) {
  ProgramAnswers a;
  auto symbolizer = make_symbolizer({program}, {}, true);
  if (!symbolizer) return a;
  for (uint64_t entry : run.entries)
    if (entry >= program.start && entry < program.end) a.symbols.push_back(symbolizer->resolve(entry));
  a.chain = symbolizer->resolve_inlined(run.return_address - 1);
  a.code = symbolizer->code_before(run.return_address, 8);
  a.opened = symbolizer->opened_modules();
  return a;
}

// A module whose every answer is in the cache (names, the inline chain at a call site, the
// code before it) is not opened at all: neither its ELF file nor its DWARF. A file changed
// since is.
TEST_F(SymbolCacheDir, AModuleTheCacheAnswersForIsNotOpened) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  const int main_index = find_module(run.modules, "/symfix_pie");
  ASSERT_GE(main_index, 0);
  LoadedModule program = run.modules[size_t(main_index)];
  const fs::path copy = dir_.path() / "symfix_pie";
  fs::copy_file(program.path, copy);
  program.path = copy.string();
  ASSERT_GE(run.return_address, program.start);
  ASSERT_LT(run.return_address, program.end) << "the call site is the program's";
  const ProgramAnswers first = resolve_program(run, program);
  EXPECT_EQ(first.opened, 1u);
  ASSERT_FALSE(first.symbols.empty());
  ASSERT_EQ(first.code.size(), 8u);
  const ProgramAnswers second = resolve_program(run, program);
  EXPECT_EQ(second.opened, 0u) << "every answer from the cache";
  ASSERT_EQ(second.symbols.size(), first.symbols.size());
  for (size_t i = 0; i < first.symbols.size(); ++i) expect_same(second.symbols[i], first.symbols[i]);
  ASSERT_EQ(second.chain.size(), first.chain.size());
  for (size_t i = 0; i < first.chain.size(); ++i) expect_same(second.chain[i], first.chain[i]);
  EXPECT_EQ(second.code, first.code);
  fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::seconds(1));
  EXPECT_EQ(resolve_program(run, program).opened, 1u) << "the file changed: read again";
  EXPECT_EQ(resolve_program(run, program).opened, 0u) << "and cached under its new key";
}

TEST_F(SymbolCacheDir, AChangedFileIsReadAgain) {
  FixtureRun run = run_fixture(SYMFIX_PIE);
  const int main_index = find_module(run.modules, "/symfix_pie");
  ASSERT_GE(main_index, 0);
  // A copy of the program's file, as the recorded module.
  const fs::path copy = dir_.path() / "symfix_pie";
  fs::copy_file(run.modules[size_t(main_index)].path, copy);
  std::vector<LoadedModule> modules = run.modules;
  modules[size_t(main_index)].path = copy.string();
  resolve_all(run, true, modules);
  const uint64_t all_cached = resolve_all(run, true, modules).cached;
  EXPECT_GT(all_cached, 0u);
  fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::seconds(1));  // rebuilt, say
  const Answers after = resolve_all(run, true, modules);
  EXPECT_LT(after.cached, all_cached) << "the program's addresses are read from the file again";
  EXPECT_EQ(resolve_all(run, true, modules).cached, all_cached) << "and cached under the new key";
}

TEST_F(SymbolCacheDir, ModulesWithoutDebugInfoAndDisabledCachesWriteNothing) {
  resolve_all(run_fixture(SYMFIX_NODEBUG), true, run_fixture(SYMFIX_NODEBUG).modules);
  EXPECT_EQ(cache_files(), 0u) << "no DWARF: names from the symbol table alone, until a debug file turns up";
  FixtureRun run = run_fixture(SYMFIX_PIE);
  resolve_all(run, false, run.modules);
  EXPECT_EQ(cache_files(), 0u) << "--no-symbol-cache";
}

// A stripped program whose debug file lies beside it (its .gnu_debuglink): what that file
// says is cached under the program's build id, and given back alike.
TEST_F(SymbolCacheDir, ASeparateDebugFilesNamesAreCachedUnderTheBuildId) {
  FixtureRun run = run_fixture(SYMFIX_STRIPPED);
  const int main_index = find_module(run.modules, "/symfix_pie");
  ASSERT_GE(main_index, 0);
  const std::vector<LoadedModule> program = {run.modules[size_t(main_index)]};
  const Answers first = resolve_all(run, true, program);
  EXPECT_EQ(first.cached, 0u);
  EXPECT_EQ(cache_files(), 1u);
  const Answers second = resolve_all(run, true, program);
  EXPECT_GT(second.cached, 0u) << "answered from the cache";
  auto third = make_symbolizer(program, {}, true);
  ASSERT_TRUE(third);
  for (uint64_t entry : run.entries)
    if (entry >= program[0].start && entry < program[0].end) third->resolve(entry);
  EXPECT_EQ(third->opened_modules(), 0u) << "neither the program nor its debug file opened";
  ASSERT_EQ(second.symbols.size(), first.symbols.size());
  bool named = false;
  for (size_t i = 0; i < first.symbols.size(); ++i) {
    SCOPED_TRACE(first.symbols[i].name);
    expect_same(second.symbols[i], first.symbols[i]);
    named = named || (first.symbols[i].name == "main" && first.symbols[i].line != 0);
  }
  EXPECT_TRUE(named) << "main's name and line, from the debug file";
}

void expect_same_sites(const HookCallSites& a, const HookCallSites& b) {
  EXPECT_EQ(a.enter, b.enter);
  EXPECT_EQ(a.exit, b.exit);
  ASSERT_EQ(a.tail_exits.size(), b.tail_exits.size());
  for (size_t i = 0; i < a.tail_exits.size(); ++i) {
    EXPECT_EQ(a.tail_exits[i].function, b.tail_exits[i].function);
    EXPECT_EQ(a.tail_exits[i].site, b.tail_exits[i].site);
  }
  EXPECT_EQ(a.ret_byte, b.ret_byte);
  EXPECT_EQ(a.stubs[0], b.stubs[0]);
  EXPECT_EQ(a.stubs[1], b.stubs[1]);
  EXPECT_EQ(a.other_calls, b.other_calls);
}

TEST(HookSitesCache, ItsFileGivesBackTheSitesAndRefusesDamage) {
  auto sites = find_hook_call_sites(SYMFIX_HOOKS);
  ASSERT_TRUE(sites.ok());
  ASSERT_FALSE(sites->enter.empty());
  const std::string bytes = symbols_detail::encode_hook_sites(*sites, "k");
  const auto back = symbols_detail::decode_hook_sites(bytes, "k");
  ASSERT_TRUE(back);
  expect_same_sites(*back, *sites);
  EXPECT_FALSE(symbols_detail::decode_hook_sites(bytes, "another key"));
  for (size_t cut = 0; cut < bytes.size(); cut += 7)
    EXPECT_FALSE(symbols_detail::decode_hook_sites(bytes.substr(0, cut), "k"));
}

TEST_F(SymbolCacheDir, HookSitesAreFoundOncePerFile) {
  const fs::path copy = dir_.path() / "hooks_copy";
  fs::copy_file(SYMFIX_HOOKS, copy);
  auto found = find_hook_call_sites(copy.string());
  ASSERT_TRUE(found.ok());
  auto files = [&] {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_.path() / "callprof", ec))
      n += e.path().filename().string().starts_with("hooksites-");
    return n;
  };
  auto first = cached_hook_call_sites(copy.string());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(files(), 1u);
  auto second = cached_hook_call_sites(copy.string());
  ASSERT_TRUE(second.ok());
  expect_same_sites(*second, *found);
  fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::seconds(1));
  ASSERT_TRUE(cached_hook_call_sites(copy.string()).ok());
  EXPECT_EQ(files(), 2u) << "a changed file is scanned again, under a key of its own";
  EXPECT_FALSE(cached_hook_call_sites((dir_.path() / "missing").string()).ok());
}

}  // namespace
}  // namespace callprof
