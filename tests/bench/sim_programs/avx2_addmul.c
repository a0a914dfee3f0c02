/* Vectorised AVX2 floating point without FMA: separate vmulpd/vaddpd on 256-bit vectors over
 * arrays that stay in L1/L2 (built -O3 -march=x86-64-v3 -mno-fma -ffp-contract=off).
 * Usage: avx2_addmul [SWEEPS]   (default 20000 sweeps over 4 arrays of 2048 doubles) */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
static double a[N], b[N], c[N], d[N];

int main(int argc, char **argv) {
  long sweeps = argc > 1 ? atol(argv[1]) : 20000;
  for (int i = 0; i < N; i++) { a[i] = 1.0 / (i + 1); b[i] = 0.5; c[i] = 0.25; d[i] = 0.0; }
  for (long s = 0; s < sweeps; s++) {
    for (int i = 0; i < N; i++) d[i] = a[i] * b[i] + c[i] * d[i] * 0.999;
    for (int i = 0; i < N; i++) a[i] = a[i] + d[i] * 1e-6 - c[i] * 1e-7;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++) sum += d[i];
  printf("%.12f\n", sum);
  return 0;
}
