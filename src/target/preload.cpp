#include "target/preload.h"

#include <cstdlib>
#include <filesystem>

namespace callprof {
namespace fs = std::filesystem;

Result<std::string> find_runtime() {
  if (const char* env = getenv("CALLPROF_RUNTIME"); env && *env) return std::string(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const char* rel : {"libcallprof-rt.so", "../lib/libcallprof-rt.so"}) {
    fs::path p = exe.parent_path() / rel;
    if (fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  return make_error("cannot find libcallprof-rt.so next to the callprof executable (set CALLPROF_RUNTIME)");
}

std::string preload_list(const std::string& runtime, bool alloc) {
  std::string list = runtime;
  if (alloc) list += ":" + (fs::path(runtime).parent_path() / "libcallprof-alloc.so").string();
  const char* preload = getenv("LD_PRELOAD");
  if (preload && *preload) list += std::string(":") + preload;
  return list;
}

}  // namespace callprof
