/* A marker region around OpenBLAS's sgemm (tests/cli/sim_run_test.py): C = A B, n x n fp32,
 * 2 n^3 FLOPs, which OpenBLAS splits over its pool threads (OPENBLAS_NUM_THREADS=2): the pool
 * thread never enters the region, yet its half is the region's work.
 *   blas_region [n]      default n = 256 */
#include <cblas.h>
#include <rprof/marker.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  float* a = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float* b = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float* c = malloc(sizeof(float) * (size_t)n * (size_t)n);
  if (n <= 0 || !a || !b || !c) return 2;
  for (long i = 0; i < (long)n * n; ++i) a[i] = (float)(i % 7), b[i] = (float)(i % 5), c[i] = 0;
  /* A first call starts OpenBLAS's pool outside the region. */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  rprof_region_declare("sgemm", 2.0 * n * n * (double)n, 3.0 * sizeof(float) * n * (double)n);
  rprof_region_begin("sgemm");
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  rprof_region_end("sgemm");
  printf("blas_region: n=%d threads=%d c[0]=%.1f\n", n, openblas_get_num_threads(), c[0]);
  free(a), free(b), free(c);
  return 0;
}
