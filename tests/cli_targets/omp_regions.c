/* Marker regions around OpenMP work on 2 threads (tests/cli/sim_run_test.py): a triad
 * a[i] = b[i] + s * c[i] over n doubles, 2 FLOPs an element, split between the team's threads.
 *   "team": opened by the main thread around the parallel loop; the other thread never enters it.
 *   "each": opened by every thread of the team inside the parallel region, around its share.
 * Either way the region's FLOPs are both threads' together, 2n, each counted once.
 * Built with -fopenmp, AVX2 at most (valgrind 3.19 runs no AVX-512).
 *   omp_regions [n]      default n = 200000 */
#include <omp.h>
#include <rprof/marker.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  double* c = malloc(sizeof(double) * (size_t)n);
  if (n <= 0 || !a || !b || !c) return 2;
  for (long i = 0; i < n; ++i) a[i] = 0, b[i] = (double)(i % 5), c[i] = (double)(i % 3);
  const double s = 3.0;
  /* The team exists before either region opens: its start-up is neither region's. */
#pragma omp parallel num_threads(2)
  { (void)omp_get_thread_num(); }

  rprof_region_begin("team");
#pragma omp parallel for num_threads(2) schedule(static)
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  rprof_region_end("team");

#pragma omp parallel num_threads(2)
  {
    rprof_region_begin("each");
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = a[i] + s * c[i];
    rprof_region_end("each");
  }
  double sum = 0;
  for (long i = 0; i < n; ++i) sum += a[i];
  printf("omp_regions: n=%ld threads=%d checksum=%.1f\n", n, omp_get_max_threads(), sum);
  free(a), free(b), free(c);
  return 0;
}
