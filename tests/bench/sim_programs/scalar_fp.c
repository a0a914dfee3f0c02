/* Scalar floating-point mix: a numerical integration (midpoint rule) of a rational function,
 * built -O2 -fno-tree-vectorize, so every FLOP is a scalar SSE2 add/mul/div (no vectors, no FMA,
 * no libm calls). Usage: scalar_fp [STEPS]   (default 4e7) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? (long)atof(argv[1]) : 40000000L;
  double h = 1.0 / (double)n, sum = 0.0;
  for (long i = 0; i < n; i++) {
    double x = (i + 0.5) * h;
    sum += (4.0 + 0.5 * x * x) / (1.0 + x * x + 0.25 * x * x * x);
  }
  printf("%.12f\n", sum * h);
  return 0;
}
