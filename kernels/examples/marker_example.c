/* A program with marker regions: "init" fills three arrays, "triad" runs a[i] = b[i] + s * c[i]
 * (STREAM's triad) several times in the main thread and in one worker thread with its own
 * arrays. triad declares its model work: 2 FLOPs and 24 bytes (two 8-byte loads, one store) per
 * element, so rprof places it on the roofline; init declares nothing and is only timed.
 *
 *     marker_example [n] [repetitions]        defaults: n = 4000000, repetitions = 10
 *     rprof ./marker_example 4000000
 *
 * Run alone, it prints its checksum and runs exactly as fast: every marker call is a no-op. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <rprof/marker.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct arrays {
  double* a;
  double* b;
  double* c;
  long n;
  int repetitions;
} arrays;

static int allocate(arrays* x, long n, int repetitions) {
  x->n = n;
  x->repetitions = repetitions;
  x->a = malloc((size_t)n * sizeof(double));
  x->b = malloc((size_t)n * sizeof(double));
  x->c = malloc((size_t)n * sizeof(double));
  return x->a != NULL && x->b != NULL && x->c != NULL;
}

static void release(arrays* x) {
  free(x->a);
  free(x->b);
  free(x->c);
}

static void init(arrays* x) {
  rprof_region_begin("init");
  for (long i = 0; i < x->n; ++i) {
    x->a[i] = 0.0;
    x->b[i] = 1.0 + (double)(i % 7);
    x->c[i] = 2.0 - (double)(i % 3);
  }
  rprof_region_end("init");
}

static void triad(arrays* x) {
  const double s = 3.0;
  for (int r = 0; r < x->repetitions; ++r) {
    rprof_region_begin("triad");
    for (long i = 0; i < x->n; ++i) x->a[i] = x->b[i] + s * x->c[i];
    rprof_region_end("triad");
  }
}

static double checksum(const arrays* x) {
  double sum = 0.0;
  for (long i = 0; i < x->n; ++i) sum += x->a[i];
  return sum;
}

/* The worker thread: its own arrays, its own "init" and "triad" calls, which rprof adds to the
 * main thread's. */
static void* worker(void* arg) {
  arrays* x = arg;
  init(x);
  triad(x);
  return NULL;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 4000000;
  int repetitions = argc > 2 ? atoi(argv[2]) : 10;
  if (n <= 0 || repetitions <= 0) {
    fprintf(stderr, "usage: %s [n > 0] [repetitions > 0]\n", argv[0]);
    return 2;
  }
  /* One pass of triad over n elements: n multiplies + n adds; b and c read, a written. */
  rprof_region_declare("triad", 2.0 * (double)n, 3.0 * sizeof(double) * (double)n);

  arrays main_arrays, worker_arrays;
  if (!allocate(&main_arrays, n, repetitions) || !allocate(&worker_arrays, n, repetitions)) {
    fprintf(stderr, "%s: cannot allocate 6 arrays of %ld doubles\n", argv[0], n);
    return 1;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, &worker_arrays) != 0) {
    fprintf(stderr, "%s: cannot start the worker thread\n", argv[0]);
    return 1;
  }
  init(&main_arrays);
  triad(&main_arrays);
  pthread_join(thread, NULL);

  printf("marker_example: n=%ld repetitions=%d checksum=%.6e markers %s\n", n, repetitions,
         checksum(&main_arrays) + checksum(&worker_arrays),
         rprof_markers_active() ? "active" : "off");
  release(&main_arrays);
  release(&worker_arrays);
  return 0;
}
