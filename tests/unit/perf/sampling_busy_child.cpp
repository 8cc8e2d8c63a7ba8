// A target for the sampling tests, with known behaviour:
//   spin MS    two threads each burn MS ms of their own CPU time in spin_here(), then exit
//   sleep N    one thread sleeps N times 10 ms in nanosleep (off-CPU), then exit
//   forever    one thread spins in spin_here(), the main thread writes one byte per 10 ms
// It prints the address of spin_here() first, so a test can check where samples landed.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

double thread_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

volatile unsigned long sink;

}  // namespace

extern "C" __attribute__((noinline)) void spin_here(double ms) {
  double end = thread_cpu_ms() + ms;
  while (thread_cpu_ms() < end) {
    for (unsigned long i = 0; i < 200000; ++i) sink = sink * 31 + i;
  }
}

static void* spin_thread(void* ms) {
  spin_here(*static_cast<double*>(ms));
  return nullptr;
}

static void* spin_forever(void*) {
  for (;;) spin_here(1000);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::printf("%p\n", reinterpret_cast<void*>(&spin_here));
  std::fflush(stdout);
  pthread_t t;
  if (std::strcmp(argv[1], "spin") == 0 && argc == 3) {
    double ms = std::atof(argv[2]);
    pthread_create(&t, nullptr, spin_thread, &ms);
    spin_here(ms);
    pthread_join(t, nullptr);
  } else if (std::strcmp(argv[1], "sleep") == 0 && argc == 3) {
    for (int i = 0; i < std::atoi(argv[2]); ++i) {
      timespec ts{0, 10 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
  } else if (std::strcmp(argv[1], "forever") == 0) {
    pthread_create(&t, nullptr, spin_forever, nullptr);
    for (;;) {
      usleep(10000);
      if (write(1, ".", 1) != 1) return 3;
    }
  } else {
    return 2;
  }
  return 0;
}
