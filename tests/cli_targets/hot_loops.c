/* hot_loops [REPS]: where a hot function's lines put inlined code and a loop (issue 38), for
 * rprof's hot lines. axpy() calls scaled_add() (hot_loops_helper.h, always inlined) in its
 * loop: its 2 x N x REPS FLOPs belong on axpy's line that calls it, not on the helper's. dot()
 * is a loop whose `for` line and body line differ: its time (samples fall on the increment and
 * the branch as much as on the arithmetic) and its 2 x N x REPS FLOPs (the body's) belong on one
 * hot line, the loop's lines as a range. Built -O2 -g (tests/cli_targets/ meson.build); N = 4096
 * doubles per array (cache-resident), REPS default 5000. Lines that tests look for are marked
 * "hot line: NAME". Prints an integer checksum. */
#include <stdio.h>
#include <stdlib.h>

#include "hot_loops_helper.h"

enum { kN = 4096 };

__attribute__((noinline)) void axpy(double* y, const double* x, double a, long n, long reps) {
  for (long r = 0; r < reps; ++r) {
    for (long i = 0; i < n; ++i) y[i] = scaled_add(y[i], a, x[i]); /* hot line: axpy */
    __asm__ volatile("" : : "r"(y) : "memory"); /* every repetition stores its results */
  }
}

__attribute__((noinline)) double dot(const double* x, const double* y, long n, long reps) {
  double total = 0;
  for (long r = 0; r < reps; ++r) {
    double sum = 0;
    for (long i = 0; i < n; ++i) /* hot line: dot loop */
      sum += x[i] * y[i];        /* hot line: dot body */
    total += sum;
    __asm__ volatile("" : : "r"(x) : "memory"); /* every repetition reads x again */
  }
  return total;
}

int main(int argc, char** argv) {
  long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 5000;
  double* x = malloc(sizeof(double) * kN);
  double* y = malloc(sizeof(double) * kN);
  if (!x || !y || reps < 1) return 1;
  for (long i = 0; i < kN; ++i) {
    x[i] = (double)(i % 7) * 0.25;
    y[i] = (double)(i % 5) * 0.5;
  }
  axpy(y, x, 1e-6, kN, reps);
  double d = dot(x, y, kN, reps);
  printf("%ld\n", (long)d + (long)y[kN / 2]);
  return 0;
}
