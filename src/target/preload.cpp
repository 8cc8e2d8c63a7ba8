#include "target/preload.h"

#include <cstdlib>
#include <filesystem>

namespace callprof {
namespace fs = std::filesystem;

Result<std::string> find_runtime() {
  if (const char* env = getenv("CALLPROF_RUNTIME"); env && *env) return std::string(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  // The build tree keeps both side by side; an install puts the runtime in its own directory
  // under the library directory, at this path relative to the installed executable.
  for (const char* dir : {".", CALLPROF_RUNTIME_DIR_FROM_BIN}) {
    fs::path p = exe.parent_path() / dir / "libcallprof-rt.so";
    if (fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  return make_error(std::string("cannot find libcallprof-rt.so next to the callprof executable or in ") +
                    CALLPROF_RUNTIME_DIR_FROM_BIN + " (set CALLPROF_RUNTIME)");
}

std::string alloc_library(const std::string& runtime) {
  return (fs::path(runtime).parent_path() / "libcallprof-alloc.so").string();
}

std::string preload_list(const std::string& runtime, bool alloc) {
  std::string list = runtime;
  if (alloc) list += ":" + alloc_library(runtime);
  const char* preload = getenv("LD_PRELOAD");
  if (preload && *preload) list += std::string(":") + preload;
  return list;
}

}  // namespace callprof
