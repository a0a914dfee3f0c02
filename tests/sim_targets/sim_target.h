/* Shared helpers of the sim test programs: argument parsing, aligned allocation, a wall clock and
 * the callgrind collection switch around the measured region.
 *
 * Each program runs its kernel once as a warm-up (not collected, but simulated: the caches the
 * simulator keeps are then as warm as in a timed repetition), then once more with callgrind
 * collection switched on by CALLGRIND_TOGGLE_COLLECT. The runner starts valgrind with
 * --collect-atstart=no, so the first toggle turns collection on and the second turns it off.
 * CALLGRIND_START/STOP_INSTRUMENTATION are not used: starting instrumentation flushes the simulated
 * caches, which would make every measured region start cold. Outside valgrind the toggles are a
 * few no-op instructions. */
#ifndef RPROF_TESTS_SIM_TARGETS_SIM_TARGET_H_
#define RPROF_TESTS_SIM_TARGETS_SIM_TARGET_H_

/* posix_memalign and clock_gettime under -std=c11; include this header first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

/* argv[1] as a positive element count, or the default; exits 2 on garbage. */
static long SimTargetParseN(int argc, char** argv, long default_n) {
  if (argc < 2) return default_n;
  char* end = NULL;
  errno = 0;
  long n = strtol(argv[1], &end, 10);
  if (errno != 0 || end == argv[1] || *end != '\0' || n <= 0) {
    fprintf(stderr, "%s: n must be a positive integer, got '%s'\n", argv[0], argv[1]);
    exit(2);
  }
  return n;
}

/* 64-byte aligned array of n doubles; exits 1 when memory runs out. */
static double* SimTargetAlloc(long n) {
  void* p = NULL;
  if (posix_memalign(&p, 64, (size_t)n * sizeof(double) + 64) != 0) {
    fprintf(stderr, "out of memory for %ld doubles\n", n);
    exit(1);
  }
  return (double*)p;
}

static double SimTargetNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Collection on / off around the measured region. */
#define SIM_TARGET_REGION_BEGIN() CALLGRIND_TOGGLE_COLLECT
#define SIM_TARGET_REGION_END() CALLGRIND_TOGGLE_COLLECT

#endif /* RPROF_TESTS_SIM_TARGETS_SIM_TARGET_H_ */
