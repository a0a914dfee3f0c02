/* off_cpu [WORK_MS [SLEEP_MS [SETUP_MS]]]: a one-thread program that is partly off the CPU, for
 * the functions' sampled time (issue 38). setup() computes for SETUP_MS (default 30) ms of CPU
 * time, then work() for WORK_MS (default 150) inside marker region "work", then the program
 * sleeps SLEEP_MS (default 120) ms outside any function: with the defaults work() is about half
 * of the run's wall time, and 40 % of it is asleep, so a share of the samples x the wall time
 * would overstate work() by 5/3, where its CPU time is the region's time. Last, region
 * "bytes_only" copies 8 MiB with declared bytes and no declared FLOPs: a region with bytes and
 * no FLOPs counted. The busy loops stop on the thread's CPU clock, so each function's CPU time
 * is what was asked whatever the load. Prints an integer checksum. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rprof/marker.h"

static double ThreadCpuMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A dependent chain of multiply-adds until `ms` of this thread's CPU time have passed. */
static double Spin(double ms, double x) {
  double end = ThreadCpuMs() + ms;
  do {
    for (int i = 0; i < 20000; ++i) x = x * 0.999999 + 1e-6;
  } while (ThreadCpuMs() < end);
  return x;
}

__attribute__((noinline)) double setup(double ms) { return Spin(ms, 1.0); }

__attribute__((noinline)) double work(double ms) { return Spin(ms, 2.0); }

int main(int argc, char** argv) {
  double work_ms = argc > 1 ? strtod(argv[1], NULL) : 150;
  double sleep_ms = argc > 2 ? strtod(argv[2], NULL) : 120;
  double setup_ms = argc > 3 ? strtod(argv[3], NULL) : 30;
  if (work_ms < 0 || sleep_ms < 0 || setup_ms < 0) return 1;
  double x = setup(setup_ms);
  rprof_region_begin("work");
  x += work(work_ms);
  rprof_region_end("work");
  long long sleep_ns = (long long)(sleep_ms * 1e6);
  struct timespec nap = {(time_t)(sleep_ns / 1000000000), (long)(sleep_ns % 1000000000)};
  nanosleep(&nap, NULL);
  enum { kBytes = 8 << 20 };
  char* from = malloc(kBytes);
  char* to = malloc(kBytes);
  if (!from || !to) return 1;
  memset(from, 1, kBytes);
  rprof_region_declare("bytes_only", -1, 2.0 * kBytes);
  rprof_region_begin("bytes_only");
  memcpy(to, from, kBytes);
  __asm__ volatile("" : : "r"(to) : "memory");
  rprof_region_end("bytes_only");
  printf("%ld\n", (long)x + to[kBytes / 2]);
  free(from);
  free(to);
  return 0;
}
