/* Code chosen by where it runs, as OpenBLAS chooses its kernels by the CPU's features: natively
 * native_sum does the work, under valgrind (whose CPUID hides AVX-512 from such libraries)
 * replayed_sum, another function. For sim's check that the replay ran the timed code
 * (functions/replay_coverage.h).
 *   replay_dispatch [N_MILLIONS]   sums N million doubles (default 40), 4 passes */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/valgrind.h>

__attribute__((noinline)) static double native_sum(const double* a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * 1.5;
  return s;
}

__attribute__((noinline)) static double replayed_sum(const double* a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * 2.5;
  return s;
}

int main(int argc, char** argv) {
  long n = 1000000L * (argc > 1 ? atol(argv[1]) : 40);
  if (RUNNING_ON_VALGRIND) n /= 40;  /* the replay need not be as long: only which code runs */
  double* a = malloc(sizeof(double) * (size_t)n);
  if (!a) return 1;
  for (long i = 0; i < n; ++i) a[i] = (double)(i % 13);
  double total = 0;
  for (int pass = 0; pass < 4; ++pass)
    total += RUNNING_ON_VALGRIND ? replayed_sum(a, n) : native_sum(a, n);
  printf("replay_dispatch: %g\n", total);
  free(a);
  return 0;
}
