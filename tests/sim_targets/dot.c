/* Dot product s = sum x[i] * y[i] over n doubles: 2n FLOPs, 16n bytes loaded.
 * Built scalar (strict IEEE order: one multiply-add chain) and vectorised AVX2+FMA with
 * -ffast-math, whose horizontal reduction of the partial sums adds a few FLOPs at the end.
 * Usage: dot N */
#include "sim_target.h"

__attribute__((noinline)) static double Dot(long n, const double* restrict x,
                                            const double* restrict y) {
  double s = 0.0;
  for (long i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

int main(int argc, char** argv) {
  long n = SimTargetParseN(argc, argv, 100000);
  double* x = SimTargetAlloc(n);
  double* y = SimTargetAlloc(n);
  for (long i = 0; i < n; ++i) {
    x[i] = (double)(i % 11) * 0.25;
    y[i] = (double)(i % 3) - 1.0;
  }
  volatile double sink = Dot(n, x, y); /* warm-up */
  double t0 = SimTargetNow();
  SIM_TARGET_REGION_BEGIN();
  double s = Dot(n, x, y);
  SIM_TARGET_REGION_END();
  double t1 = SimTargetNow();
  sink = s;
  printf("dot n=%ld result=%.2f region_s=%.9f\n", n, (double)sink, t1 - t0);
  free(x);
  free(y);
  return 0;
}
