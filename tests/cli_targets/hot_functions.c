/* hot_functions [REPS [MATMULS]]: two noinline functions and no markers, for rprof's hot functions
 * (issue 28): triad() streams a[i] = b[i] + s * c[i] over three arrays of 1 Mi doubles (24 MiB,
 * beyond any cache here) REPS times, 2 x N x REPS FLOPs, memory-bound; matmul() is the naive
 * triple loop at M = 160, 2 x M^3 FLOPs per call (MATMULS calls, default 1), cache-resident. Built
 * -O2 -g (tests/cli_targets/ meson.build); with -DWITH_MARKERS the same calls sit in marker regions
 * "triad" and "matmul", the time each function's sampled time is held against. Prints an integer
 * checksum (printing a double would add libc's arithmetic). Each function's loop is one line, marked
 * "hot line: NAME", where tests find its hot line's number. */
#include <stdio.h>
#include <stdlib.h>

#ifdef WITH_MARKERS
#include "rprof/marker.h"
#define BEGIN(name) rprof_region_begin(name)
#define END(name) rprof_region_end(name)
#else
#define BEGIN(name) ((void)0)
#define END(name) ((void)0)
#endif

enum { kN = 1 << 20, kM = 160 };

__attribute__((noinline)) void triad(double* a, const double* b, const double* c, double s, long n,
                                     long reps) {
  for (long r = 0; r < reps; ++r) {
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i]; /* hot line: triad */
    __asm__ volatile("" : : "r"(a) : "memory"); /* every repetition stores its results */
  }
}

__attribute__((noinline)) void matmul(double* c, const double* a, const double* b, long m) {
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < m; ++j) {
      double sum = 0;
      for (long k = 0; k < m; ++k) sum += a[i * m + k] * b[k * m + j]; /* hot line: matmul */
      c[i * m + j] = sum;
    }
}

int main(int argc, char** argv) {
  long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
  long matmuls = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
  double* a = malloc(sizeof(double) * kN);
  double* b = malloc(sizeof(double) * kN);
  double* c = malloc(sizeof(double) * kN);
  double* x = malloc(sizeof(double) * kM * kM);
  double* y = malloc(sizeof(double) * kM * kM);
  double* z = malloc(sizeof(double) * kM * kM);
  if (!a || !b || !c || !x || !y || !z || reps < 1 || matmuls < 1) return 1;
  for (long i = 0; i < kN; ++i) {
    a[i] = 0;
    b[i] = (double)(i % 7);
    c[i] = (double)(i % 5);
  }
  for (long i = 0; i < kM * kM; ++i) {
    x[i] = (double)(i % 3);
    y[i] = (double)(i % 4);
  }
  BEGIN("triad");
  triad(a, b, c, 3.0, kN, reps);
  END("triad");
  BEGIN("matmul");
  for (long k = 0; k < matmuls; ++k) {
    matmul(z, x, y, kM);
    __asm__ volatile("" : : "r"(z) : "memory"); /* every call computes its product */
  }
  END("matmul");
  long check = (long)a[kN / 2] + (long)z[kM * kM / 2];
  printf("%ld\n", check);
  return 0;
}
