/* Coroutines by makecontext/swapcontext, with counts and callers known by construction.
 * argv[1] says where the coroutines' stacks are:
 *   "local": a local array in the frame of the function that creates and drives them
 *            (`drive`), so the coroutines run at addresses inside its frame;
 *   "heap":  mmap'd memory, far from the thread's stack.
 * main -> drive (once). drive makes two coroutines, ping (entry `ping_body`) and pong
 * (entry `pong_body`), each with uc_link = drive's context, and resumes them in turn,
 * kRounds times each, calling drive_step between the resumptions. Each round a coroutine
 * calls its worker (ping_work / pong_work) and then yields back through `yield_ping` /
 * `yield_pong` (which call swapcontext). After kRounds rounds ping_body returns (uc_link
 * brings control back into drive) and pong_body calls finish_pong, which jumps back into
 * drive with setcontext; then drive calls after_coroutines once.
 * Truth (exactly, per path; a coroutine's calls sit below its entry function, which is a
 * root of the thread's tree, as a stack unwound inside the coroutine shows it):
 *   main -> drive                                  1
 *   main -> drive -> drive_step                    2 * kRounds
 *   main -> drive -> after_coroutines              1
 *   ping_body                                      1
 *   ping_body -> ping_work                         kRounds
 *   ping_body -> yield_ping                        kRounds
 *   ping_body -> ping_work -> leaf                 kRounds   (likewise for pong)
 *   pong_body -> finish_pong                       1
 * drive's self time holds no coroutine time: each body does 20 x 1 ms of work in
 * ping_work/pong_work (the first 20 rounds), which must not land in drive or main.
 * Prints "rounds N"; exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "truth.h"

enum { kRounds = 1000, kStack = 64 * 1024, kWorkRounds = 20 };

static ucontext_t drive_ctx, ping_ctx, pong_ctx;
static volatile int sink;

E2E_FN void leaf(int i) { sink += i; }

E2E_FN void ping_work(int i) {
  if (i < kWorkRounds) e2e_work_us(1000);
  leaf(i);
}
E2E_FN void pong_work(int i) {
  if (i < kWorkRounds) e2e_work_us(1000);
  leaf(i);
}
E2E_FN void yield_ping(void) { swapcontext(&ping_ctx, &drive_ctx); }
E2E_FN void yield_pong(void) { swapcontext(&pong_ctx, &drive_ctx); }

E2E_FN void ping_body(void) {
  for (int i = 0; i < kRounds; ++i) {
    ping_work(i);
    yield_ping();
  }
}
/* Leaves by setcontext instead of returning: its frames and pong_body's are abandoned. */
E2E_FN void finish_pong(void) { setcontext(&drive_ctx); }

E2E_FN void pong_body(void) {
  for (int i = 0; i < kRounds; ++i) {
    pong_work(i);
    yield_pong();
  }
  finish_pong();
}

E2E_FN void drive_step(void) { sink += 1; }
E2E_FN void after_coroutines(void) { sink += 1; }

/* No hooks (not in the profile); not inlined: they call getcontext/swapcontext, which return twice. */
#define UNPROFILED static __attribute__((noinline, no_instrument_function))

UNPROFILED void make(ucontext_t* ctx, char* stack, void (*body)(void)) {
  getcontext(ctx);
  ctx->uc_stack.ss_sp = stack;
  ctx->uc_stack.ss_size = kStack;
  ctx->uc_link = &drive_ctx;
  makecontext(ctx, body, 0);
}

/* Resume each coroutine kRounds times (it yields), then once more (it returns). */
UNPROFILED int run_coroutines(char* ping_stack, char* pong_stack) {
  make(&ping_ctx, ping_stack, ping_body);
  make(&pong_ctx, pong_stack, pong_body);
  int rounds = 0;
  for (int i = 0; i <= kRounds; ++i) {
    if (swapcontext(&drive_ctx, &ping_ctx) != 0) return -1;
    if (i < kRounds) drive_step();
    if (swapcontext(&drive_ctx, &pong_ctx) != 0) return -1;
    if (i < kRounds) drive_step();
    rounds += i < kRounds;
  }
  return rounds;
}

E2E_FN int drive(int local) {
  if (local) {
    char stacks[2][kStack] __attribute__((aligned(16)));
    int rounds = run_coroutines(stacks[0], stacks[1]);
    after_coroutines();
    return rounds;
  }
  char* heap = mmap(NULL, 2 * kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (heap == MAP_FAILED) return -1;
  int rounds = run_coroutines(heap, heap + kStack);
  after_coroutines();
  munmap(heap, 2 * kStack);
  return rounds;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int local = argv[1][0] == 'l';
  printf("rounds %d\n", drive(local));
  return 0;
}
