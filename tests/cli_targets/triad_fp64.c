/* triad_fp64 N [REPS]: a[i] = b[i] + s * c[i] in double, REPS times over N elements, then prints
 * a checksum as an integer (printing a double would add the library's own arithmetic). All of its
 * floating-point work is fp64: 2 FLOPs per element and repetition. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  double* c = malloc(sizeof(double) * (size_t)n);
  if (!a || !b || !c) return 1;
  for (long i = 0; i < n; ++i) {
    b[i] = (double)(i % 7);
    c[i] = (double)(i % 5);
  }
  volatile double s = 3;
  for (long r = 0; r < reps; ++r)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  long sum = 0;
  for (long i = 0; i < n; ++i) sum += (long)a[i];
  printf("%ld\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
