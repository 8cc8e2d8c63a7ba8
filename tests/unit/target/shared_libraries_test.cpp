// The libraries a program starts with, as its loader lists them, and which of them call the
// exact-mode hooks (their functions join the function plan: filters, hook removal).
#include "target/shared_libraries.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "target/executable.h"

namespace callprof {
namespace {

TEST(LoaderTrace, LibrariesByNameAndByPathAreListedTheVdsoAndMissingOnesAreNot) {
  const std::string dir = std::filesystem::current_path().string();
  std::ofstream(dir + "/libtrace_test.so") << "x";
  const std::string trace =
      "\tlinux-vdso.so.1 (0x00007ffc)\n"
      "\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f01)\n"
      "\t./libtrace_test.so (0x00007f02)\n"
      "\tlibgone.so => not found\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f03)\n";
  const std::vector<std::string> libs = parse_loader_trace(trace);
  ASSERT_EQ(libs.size(), 3u);
  EXPECT_NE(libs[0].find("libz.so.1"), std::string::npos);
  EXPECT_EQ(libs[1], dir + "/libtrace_test.so") << "a relative path, made canonical";
  EXPECT_NE(libs[2].find("ld-linux-x86-64.so.2"), std::string::npos);
  std::filesystem::remove(dir + "/libtrace_test.so");
}

// Built with the hooks, a shared library references __cyg_profile_func_enter from its
// .dynsym (its .symtab names it with a version, `@GLIBC_2.2.5`); it has no PT_INTERP.
TEST(ExecutableInfo, ASharedLibraryBuiltWithTheHooksHasHooksAndLibcDoesNot) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string src = dir + "/callprof_hooked_lib.c", lib = dir + "/libcallprof_hooked_lib.so";
  std::ofstream(src) << "int callprof_hooked(int x) { return x * 3; }\n";
  for (const char* strip : {"", " -s"}) {
    ASSERT_EQ(
        std::system(
            ("cc -O2 -finstrument-functions -shared -fPIC" + std::string(strip) + " -o " + lib + " " + src).c_str()),
        0);
    auto info = inspect_executable(lib);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(info->has_hooks) << strip;
  }
  ASSERT_EQ(std::system(("cc -O2 -shared -fPIC -o " + lib + " " + src).c_str()), 0);
  EXPECT_FALSE(inspect_executable(lib)->has_hooks) << "built without the hooks";
  auto libs = shared_libraries("/bin/true");
  ASSERT_TRUE(libs.ok()) << libs.error().message;
  for (const std::string& path : *libs) {
    if (path.find("libc.so") == std::string::npos) continue;
    EXPECT_FALSE(inspect_executable(path)->has_hooks) << path << " defines glibc's empty hooks, calls none";
  }
  std::filesystem::remove(src);
  std::filesystem::remove(lib);
}

}  // namespace
}  // namespace callprof
