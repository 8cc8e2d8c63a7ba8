// Late naming of a read profile's unnamed functions (collect/runtime/late_names.h), against this
// test's own executable (built with symbols): which functions count as unnamed, that they get
// their names, and that modules that cannot be read leave them alone without blocking.
#include "collect/runtime/late_names.h"

#include <gtest/gtest.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "collect/stacks/function_table.h"

extern "C" __attribute__((noinline, used)) int late_names_probe(int x) { return x * 3 + 1; }

namespace callprof {
namespace {

namespace fs = std::filesystem;

uint64_t own_load_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;  // the program comes first
      },
      &bias);
  return bias;
}

// A profile whose module 0 is this executable with the probe's function unnamed, as the
// recorder would have left it without symbols.
Profile profile_with_unnamed_probe(const std::string& module_path) {
  Profile p;
  p.modules.push_back(Module{module_path, ""});
  Function f;
  f.module = 0;
  f.address = reinterpret_cast<uint64_t>(&late_names_probe) - own_load_bias();
  f.name = unnamed_function_label(module_path, f.address);
  p.functions.push_back(f);
  return p;
}

TEST(LateNames, NamesAnUnnamedFunctionFromItsModulesSymbols) {
  Profile p = profile_with_unnamed_probe(fs::read_symlink("/proc/self/exe").string());
  ASSERT_TRUE(is_unnamed_function(p, p.functions[0]));
  const LateNaming naming = name_unnamed_functions(p, SymbolizerOptions{.debug_dirs = {}, .symfs = ""});
  EXPECT_EQ(p.functions[0].name, "late_names_probe");
  EXPECT_EQ(p.functions[0].linkage_name, "late_names_probe");
  EXPECT_EQ(fs::path(p.functions[0].file).filename(), "late_names_test.cpp");
  ASSERT_EQ(naming.size(), 1u);
  EXPECT_EQ(naming[0].unnamed, 1u);
  EXPECT_EQ(naming[0].named, 1u);
}

TEST(LateNames, OnlyTheRecordersLabelsCountAsUnnamed) {
  Profile p = profile_with_unnamed_probe("/usr/bin/prog");
  Function named = p.functions[0];
  named.linkage_name = "prog_function";  // had a symbol
  Function renamed = p.functions[0];
  renamed.name = "something_else";  // not the label its address gives
  Function kernel = p.functions[0];
  kernel.kind = FunctionKind::Kernel;
  Function outside = p.functions[0];
  outside.module = kNoModule;
  for (const Function& f : {named, renamed, kernel, outside}) EXPECT_FALSE(is_unnamed_function(p, f)) << f.name;
  p.modules[0].path = "[vdso]";
  p.functions[0].name = unnamed_function_label("[vdso]", p.functions[0].address);
  EXPECT_FALSE(is_unnamed_function(p, p.functions[0])) << "no file to read";
}

TEST(LateNames, UnreadableModulesKeepTheirLabelsAndSayWhy) {
  const fs::path dir = fs::temp_directory_path() / ("late_names_test." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fifo = dir / "fifo.so";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);  // opening it for reading would block
  for (const std::string& path : {(dir / "missing.so").string(), fifo.string(), dir.string()}) {
    Profile p = profile_with_unnamed_probe(path);
    const std::string label = p.functions[0].name;
    const LateNaming naming = name_unnamed_functions(p, SymbolizerOptions{.debug_dirs = {}, .symfs = ""});
    EXPECT_EQ(p.functions[0].name, label);
    ASSERT_EQ(naming.size(), 1u);
    EXPECT_EQ(naming[0].named, 0u);
    EXPECT_FALSE(naming[0].problems.empty()) << path;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace callprof
