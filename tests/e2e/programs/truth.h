/* Shared by the end-to-end test programs: a way to keep functions out of the optimizer's
 * reach, and work whose wall-clock duration is known by construction and that is never
 * itself instrumented, so its time lands in the self time of the function doing it. */
#ifndef CALLPROF_E2E_TRUTH_H
#define CALLPROF_E2E_TRUTH_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

/* GCC would otherwise clone (f.constprop.0), inline or fold the functions whose calls we
 * count; noipa forbids all of that. Clang has no noipa and needs no more than noinline. */
#if defined(__clang__)
#define E2E_FN __attribute__((noinline, used))
#else
#define E2E_FN __attribute__((noipa, used))
#endif

/* An instrumented function that is always inlined into its caller: with plain
 * -finstrument-functions both compilers keep its hooks, so it gets a frame of its own in
 * the profile, but at its host's stack pointer. */
#define E2E_INLINED static inline __attribute__((always_inline))

/* Helpers that must not appear in the profile: no hooks, always inlined into the caller. */
#define E2E_QUIET static inline __attribute__((always_inline, no_instrument_function))

E2E_QUIET uint64_t e2e_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The CPU time the calling thread got, by its own clock: the truth a profile's CPU time
 * is checked against on a loaded machine. */
E2E_QUIET uint64_t e2e_thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A unit of work that lasts `us` microseconds of wall time even on a loaded machine:
 * asleep until 0.3 ms before the deadline (or a quarter of the unit, if shorter), then
 * busy until the deadline. Spinning alone is not enough: on two cores shared with other
 * jobs a 1 ms spin was seen taking 6 ms, and the stretch is not proportional to the
 * length, so designed ratios (75/25, 1:2:3:4) would not hold. A sleep alone ends late by
 * the wake-up latency (up to ~0.5 ms under load), the same for short and long units; the
 * short final spin absorbs most of it, and is itself too short to be preempted often.
 * The profile measures wall time, so busy and asleep count alike. */
E2E_QUIET void e2e_work_us(uint64_t us) {
  const uint64_t busy_ns = us * 250u < 300000u ? us * 250u : 300000u;
  const uint64_t end = e2e_now_ns() + us * 1000u, wake = end - busy_ns;
  struct timespec at = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
  }
  while (e2e_now_ns() < end) {
  }
}

#endif
