/* STREAM triad a[i] = b[i] + s * c[i] over n doubles: 2n FLOPs (one multiply, one add; one FMA
 * when contracted), 24n bytes between core and L1 (two 8-byte loads, one 8-byte store).
 * Built twice by meson: vectorised AVX2+FMA and scalar. Usage: triad N */
#include "sim_target.h"

__attribute__((noinline)) static void Triad(long n, double* restrict a, const double* restrict b,
                                            const double* restrict c, double s) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

int main(int argc, char** argv) {
  long n = SimTargetParseN(argc, argv, 100000);
  double* a = SimTargetAlloc(n);
  double* b = SimTargetAlloc(n);
  double* c = SimTargetAlloc(n);
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = (double)(i % 17);
    c[i] = (double)(i % 5);
  }
  Triad(n, a, b, c, 3.0); /* warm-up */
  double t0 = SimTargetNow();
  SIM_TARGET_REGION_BEGIN();
  Triad(n, a, b, c, 3.0);
  SIM_TARGET_REGION_END();
  double t1 = SimTargetNow();
  double sum = 0.0;
  for (long i = 0; i < n; ++i) sum += a[i];
  printf("triad n=%ld checksum=%.1f region_s=%.9f\n", n, sum, t1 - t0);
  free(a);
  free(b);
  free(c);
  return 0;
}
