/* A PolyBench/C-style program (issue 28): its kernel a static noinline function kernel_gemm(),
 * as PolyBench 4.2's gemm writes it (C = alpha A B + beta C, loops i, j, k, j), called once from
 * main between marker calls, so that the kernel_* function's sim FLOPs can be held against the
 * region's, which must be equal: the region holds the call and nothing else. Built -O2 -g, as
 * PolyBench's kernels are measured. Sizes: PolyBench's MEDIUM dataset (21 MFLOP, a few tens of
 * milliseconds natively: enough cpu-clock samples for the function's time). GCC clones the
 * kernel for its constant arguments, as it does PolyBench's own: kernel_gemm.constprop.0.
 *   polybench_gemm      prints a checksum */
#include <rprof/marker.h>
#include <stdio.h>

#define NI 200
#define NJ 220
#define NK 240

static double A[NI][NK], B[NK][NJ], C[NI][NJ];

static void init_array(double* alpha, double* beta) {
  *alpha = 1.5;
  *beta = 1.2;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (double)(i * (k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
}

/* PolyBench's own kernel, its loops as written there. */
__attribute__((noinline)) static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                                                  double C[NI][NJ], double A[NI][NK],
                                                  double B[NK][NJ]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

int main(void) {
  double alpha, beta;
  init_array(&alpha, &beta);
  rprof_region_begin("gemm");
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
  rprof_region_end("gemm");
  double sum = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) sum += C[i][j];
  printf("%.6f\n", sum);
  return 0;
}
