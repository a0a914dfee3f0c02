/* scalar_regions [N] [REPS] [bytes]: scalar fp64 work on two arrays of N doubles (16 KiB at the
 * default N = 1024: they stay in L1), REPS times, in two marker regions that compute the same dot
 * product:
 *   "dot"   declares its FLOPs exactly, in fp64 (rprof_region_declare_fp64): 2 x N x REPS;
 *   "twice" declares twice its FLOPs (rprof_region_declare), a declaration the count contradicts.
 * With a third argument "bytes", "dot" also declares the bytes its loads move (16 per element and
 * repetition), so that it can be placed where nothing counts bytes (--counters pmu here).
 * Built without vectorisation (tests/cli_targets/meson.build) and without -ffast-math, so every
 * FLOP is a scalar fp64 instruction (mulsd, addsd): the code's own roof is the fp64 scalar one.
 * Prints the sum of both results as an integer (printing a double would add libc's arithmetic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rprof/marker.h"

/* Not inlined, and a compiler barrier before each call: the two regions each do the work, never
 * one result reused. */
__attribute__((noinline)) static double dot(const double* a, const double* b, long n, long reps) {
  double s = 0;
  for (long r = 0; r < reps; ++r)
    for (long i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1024;
  long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  if (!a || !b || n < 1 || reps < 1) return 1;
  for (long i = 0; i < n; ++i) {
    a[i] = (double)(i % 7);
    b[i] = (double)(i % 5);
  }
  int declare_bytes = argc > 3 && strcmp(argv[3], "bytes") == 0;
  rprof_region_declare_fp64("dot", 2.0 * (double)n * (double)reps,
                            declare_bytes ? 16.0 * (double)n * (double)reps : -1);
  rprof_region_declare("twice", 4.0 * (double)n * (double)reps, -1);
  rprof_region_begin("dot");
  __asm__ volatile("" ::: "memory");
  double s1 = dot(a, b, n, reps);
  rprof_region_end("dot");
  rprof_region_begin("twice");
  __asm__ volatile("" ::: "memory");
  double s2 = dot(a, b, n, reps);
  rprof_region_end("twice");
  printf("%ld\n", (long)s1 + (long)s2);
  free(a);
  free(b);
  return 0;
}
