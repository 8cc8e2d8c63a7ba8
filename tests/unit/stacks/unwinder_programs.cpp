// Sources and build of the unwinder's test programs (see unwinder_programs.h).
// noinline/noclone keep each function a frame of its own with its plain name; the
// arithmetic after each call keeps the calls from becoming tail calls (jumps).
#include "unwinder_programs.h"

#include <fstream>

#include "unwinder_capture.h"

namespace callprof::test_support {
namespace {

constexpr const char* kChain = R"(#include <cstdio>
#include <unistd.h>
#define KEEP __attribute__((noinline, noclone))
volatile int g_stop = 0;
volatile long g_sink = 0;
KEEP long ident(long n) { return n; }
long (*volatile g_ident)(long) = ident;
// The call makes c no leaf: GCC 12 sets up no frame pointer in a leaf function even with
// -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, which drops b from the chain.
KEEP long c(long n) { long s = g_ident(0); while (!g_stop) { s += n; g_sink = s; } return s; }
KEEP long b(long n) { return c(n + 1) * 3; }
KEEP long a(long n) { return b(n + 2) * 5; }
int main() { std::puts("ready"); std::fflush(stdout); return int(a(getpid()) & 1); }
)";

constexpr const char* kSort = R"(#include <algorithm>
#include <cstdio>
#include <vector>
#define KEEP __attribute__((noinline, noclone))
volatile int g_stop = 0;
volatile long g_sink = 0;
KEEP bool spin_less(int x, int y) { for (int i = 0; i < 2000 && !g_stop; ++i) g_sink = g_sink + i; return x < y; }
KEEP long sort_all(std::vector<int>& v) {
  long sum = 0;
  while (!g_stop) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = int((i * 7919u) % 1009u);
    std::sort(v.begin(), v.end(), [](int x, int y) { return spin_less(x, y); });
    sum += v[0];
  }
  return sum;
}
// A few frames between main and the sort, as real programs have.
// (The store keeps GCC from turning the recursion into a loop.)
KEEP long nest(int depth, std::vector<int>& v) {
  long r = depth == 0 ? sort_all(v) : nest(depth - 1, v);
  g_sink = r;
  return r + depth;
}
int main() { std::vector<int> v(3000); std::puts("ready"); std::fflush(stdout); return int(nest(5, v) & 1); }
)";

constexpr const char* kLibrary = R"(#define KEEP __attribute__((noinline, noclone))
KEEP long lib_b(long n, long (*callback)(long)) { return callback(n + 1) * 3; }
)";

constexpr const char* kLibraryMain = R"(#include <cstdio>
#include <unistd.h>
#define KEEP __attribute__((noinline, noclone))
long lib_b(long n, long (*callback)(long));
volatile int g_stop = 0;
volatile long g_sink = 0;
KEEP long c(long n) { long s = 0; while (!g_stop) { s += n; g_sink = s; } return s; }
KEEP long a(long n) { return lib_b(n + 2, c) * 5; }
int main() { std::puts("ready"); std::fflush(stdout); return int(a(getpid()) & 1); }
)";

constexpr const char* kVdso = R"(#include <cstdio>
#include <ctime>
#define KEEP __attribute__((noinline, noclone))
volatile int g_stop = 0;
volatile long g_sink = 0;
KEEP long a() { timespec ts; long s = 0; while (!g_stop) { clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec; } return s; }
int main() { std::puts("ready"); std::fflush(stdout); long r = a(); g_sink = r; return int(r & 1); }
)";

// Debian's default flags (dpkg-buildflags), which leave frame pointers out at -O2.
constexpr const char* kDistroFlags = "-O2 -g -fstack-protector-strong -fstack-clash-protection -fcf-protection";

std::string write_file(const std::string& path, const char* text) {
  std::ofstream(path) << text;
  return path;
}

TestPrograms build(const std::string& dir) {
  TestPrograms p;
  const std::string cxx = std::string(CALLPROF_TEST_CXX) + " " + kDistroFlags + " ";
  const std::string chain = write_file(dir + "/chain.cpp", kChain);
  p.chain = dir + "/chain";
  p.chain_fp = dir + "/chain_fp";
  p.sort = dir + "/sort";
  p.library = dir + "/with_library";
  p.vdso = dir + "/vdso";
  for (const std::string& command : {
           cxx + "-o " + p.chain + " " + chain,
           cxx + "-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o " + p.chain_fp + " " + chain,
           cxx + "-o " + p.sort + " " + write_file(dir + "/sort.cpp", kSort),
           cxx + "-o " + p.vdso + " " + write_file(dir + "/vdso.cpp", kVdso),
           cxx + "-fPIC -shared -o " + dir + "/libunwtest.so " + write_file(dir + "/lib.cpp", kLibrary),
           cxx + "-o " + p.library + " " + write_file(dir + "/lib_main.cpp", kLibraryMain) + " -L" + dir +
               " -lunwtest -Wl,-rpath," + dir,
       }) {
    p.error = run_command(command);
    if (!p.error.empty()) break;
  }
  return p;
}

}  // namespace

const TestPrograms& test_programs(const std::string& dir) {
  static const TestPrograms programs = build(dir);
  return programs;
}

}  // namespace callprof::test_support
