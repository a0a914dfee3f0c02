/* Naive matrix product C += A * B of n x n doubles, i-j-k loop order: exactly 2n^3 FLOPs
 * (n^3 multiplies, n^3 adds). Usage: matmul_naive N */
#include "sim_target.h"

__attribute__((noinline)) static void MatmulNaive(long n, const double* restrict a,
                                                  const double* restrict b, double* restrict c) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      double sum = c[i * n + j];
      for (long k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}

int main(int argc, char** argv) {
  long n = SimTargetParseN(argc, argv, 64);
  double* a = SimTargetAlloc(n * n);
  double* b = SimTargetAlloc(n * n);
  double* c = SimTargetAlloc(n * n);
  for (long i = 0; i < n * n; ++i) {
    a[i] = (double)(i % 7) * 0.5;
    b[i] = (double)(i % 3) - 1.0;
    c[i] = 0.0;
  }
  MatmulNaive(n, a, b, c); /* warm-up */
  double t0 = SimTargetNow();
  SIM_TARGET_REGION_BEGIN();
  MatmulNaive(n, a, b, c);
  SIM_TARGET_REGION_END();
  double t1 = SimTargetNow();
  double sum = 0.0;
  for (long i = 0; i < n * n; ++i) sum += c[i];
  printf("matmul_naive n=%ld checksum=%.1f region_s=%.9f\n", n, sum, t1 - t0);
  free(a);
  free(b);
  free(c);
  return 0;
}
