/* An uninstrumented library of our own for libcalls.c: ten integer arguments, four of
 * them on the stack. Each is weighted differently, so a misplaced argument shows. */
long wide10(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}
