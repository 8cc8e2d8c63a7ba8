/* For the tests of what a recording leaves behind: a few instrumented calls, then one of
 *   sleep DIR     create DIR/started (the test waits for it), then sleep up to 30 s
 *   rmdir DIR     remove the (empty) directory DIR, where callprof is to write its profile
 *   marker FILE   create FILE (a refused recording must not have run the program)
 *   kill          die of SIGKILL
 * and exit 3. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int twice(int n) { return n * 2; }

static void touch(const char* dir, const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s%s", dir, name[0] ? "/" : "", name);
  FILE* f = fopen(path, "w");
  if (f) fclose(f);
}

int main(int argc, char** argv) {
  int sum = 0;
  for (int i = 0; i < 1000; ++i) sum += twice(i);
  printf("sum %d\n", sum);
  fflush(stdout);
  if (argc > 2 && strcmp(argv[1], "sleep") == 0) {
    touch(argv[2], "started");
    for (int i = 0; i < 300; ++i) usleep(100000);
  }
  if (argc > 2 && strcmp(argv[1], "rmdir") == 0) rmdir(argv[2]);
  if (argc > 2 && strcmp(argv[1], "marker") == 0) touch(argv[2], "");
  if (argc > 1 && strcmp(argv[1], "kill") == 0) raise(SIGKILL);
  return 3;
}
