// Two std::thread workers (issue 29.2): one runs a named function, crunch, the other a
// lambda; both call helper. libstdc++ starts them through a routine of its own, unnamed in
// Debian's stripped library: the profile names each thread by its callable instead.
#include <cstdio>
#include <thread>
volatile int sink;
__attribute__((noinline)) void helper(int n) {
  for (int i = 0; i < n; ++i) sink += i;
}
__attribute__((noinline)) void crunch(int n) {
  for (int i = 0; i < 100; ++i) helper(n);
}
int main() {
  std::thread a(crunch, 10000);
  std::thread b([] {
    for (int i = 0; i < 50; ++i) helper(1000);
  });
  a.join();
  b.join();
  std::printf("%d\n", sink);
}
