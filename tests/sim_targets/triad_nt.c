/* STREAM triad with non-temporal stores: a[i] = b[i] + s * c[i], a written with _mm256_stream_pd,
 * which bypasses the caches (no read-for-ownership): 24 bytes per element at every level, not
 * write-allocate's 32. Built for AVX2. Usage: triad_nt N (N a multiple of 4). */
/* clang-format off: sim_target.h comes first (it sets _POSIX_C_SOURCE) */
#include "sim_target.h"

#include <immintrin.h>
/* clang-format on */

__attribute__((noinline)) static void TriadNt(long n, double* restrict a, const double* restrict b,
                                              const double* restrict c, double s) {
  const __m256d vs = _mm256_set1_pd(s);
  for (long i = 0; i < n; i += 4)
    _mm256_stream_pd(a + i, _mm256_fmadd_pd(vs, _mm256_load_pd(c + i), _mm256_load_pd(b + i)));
  _mm_sfence();
}

int main(int argc, char** argv) {
  long n = SimTargetParseN(argc, argv, 100000) / 4 * 4;
  double* a = SimTargetAlloc(n);
  double* b = SimTargetAlloc(n);
  double* c = SimTargetAlloc(n);
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = (double)(i % 17);
    c[i] = (double)(i % 5);
  }
  TriadNt(n, a, b, c, 3.0); /* warm-up */
  double t0 = SimTargetNow();
  SIM_TARGET_REGION_BEGIN();
  TriadNt(n, a, b, c, 3.0);
  SIM_TARGET_REGION_END();
  double t1 = SimTargetNow();
  double sum = 0.0;
  for (long i = 0; i < n; ++i) sum += a[i];
  printf("triad_nt n=%ld checksum=%.1f region_s=%.9f\n", n, sum, t1 - t0);
  free(a);
  free(b);
  free(c);
  return 0;
}
