/* A program written for LIKWID's marker API the way LIKWID's own example (examples/C-markerAPI.c)
 * writes one: INIT in the serial part, THREADINIT and REGISTER in a first parallel region, then
 * START and STOP inside `#pragma omp parallel`, SWITCH after each pass, GET and CLOSE at the end.
 * Built twice (meson.build): likwid_markers with -DLIKWID_PERFMON against rprof's
 * likwid-marker.h and librprof-marker; likwid_markers_off without, and linked to no marker
 * library, so a macro that did not vanish would not link. Without OpenMP the parallel regions
 * are threads of their own, started for each pass.
 *
 *     likwid_markers [passes]        default 3; 2 threads, region "sum" */
#define _POSIX_C_SOURCE 200809L

#include <likwid-marker.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#else
#include <pthread.h>
#endif

#define THREADS 2

static double sums[THREADS];

static double work(int thread) {
  double sum = 0;
  for (long i = 1; i <= 200000; ++i) sum += (double)(i % (thread + 7));
  return sum;
}

#ifndef _OPENMP
static void* pass_of_thread(void* arg) {
  int thread = (int)(long)arg;
  LIKWID_MARKER_THREADINIT;
  LIKWID_MARKER_START("sum");
  sums[thread] += work(thread);
  LIKWID_MARKER_STOP("sum");
  return NULL;
}
#endif

int main(int argc, char** argv) {
  int passes = argc > 1 ? atoi(argv[1]) : 3;
  if (passes <= 0) {
    fprintf(stderr, "usage: %s [passes > 0]\n", argv[0]);
    return 2;
  }
  LIKWID_MARKER_INIT;
#ifdef _OPENMP
  const char* threading = "openmp";
#pragma omp parallel num_threads(THREADS)
  {
    LIKWID_MARKER_THREADINIT;
    LIKWID_MARKER_REGISTER("sum");
  }
  for (int pass = 0; pass < passes; ++pass) {
#pragma omp parallel num_threads(THREADS)
    {
      int thread = omp_get_thread_num();
      LIKWID_MARKER_START("sum");
      sums[thread] += work(thread);
      LIKWID_MARKER_STOP("sum");
    }
    LIKWID_MARKER_SWITCH;
  }
#else
  const char* threading = "pthreads";
  LIKWID_MARKER_REGISTER("sum");
  for (int pass = 0; pass < passes; ++pass) {
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; ++t)
      if (pthread_create(&threads[t], NULL, pass_of_thread, (void*)t) != 0) return 1;
    for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    LIKWID_MARKER_SWITCH;
  }
#endif
  /* Left as they are without LIKWID_PERFMON, where GET is gone too. */
  int nevents = 10;
  double events[10];
  double time = -1;
  int count = -1;
  LIKWID_MARKER_GET("sum", &nevents, events, &time, &count);
  (void)events;
  (void)time;
  LIKWID_MARKER_CLOSE;

#ifdef LIKWID_PERFMON
  const char* perfmon = "LIKWID_PERFMON";
#else
  const char* perfmon = "no LIKWID_PERFMON";
#endif
  printf("likwid_markers: %s, %s, %d threads x %d passes, sum %.0f, get: nevents=%d count=%d\n",
         perfmon, threading, THREADS, passes, sums[0] + sums[1], nevents, count);
  return 0;
}
