/* A program that succeeds natively and fails only under valgrind (tests/cli/sim_run_test.py):
 * it sums a small array, then exits 7 with a line on standard error when valgrind runs it, as a
 * program does whose replay differs (a check of the environment, a time limit, a CPU feature).
 * rprof must then keep no sim counts and say why. */
#include <stdio.h>
#include <valgrind/valgrind.h>

int main(void) {
  double sum = 0;
  for (int i = 0; i < 1000; ++i) sum += 0.5 * i;
  if (RUNNING_ON_VALGRIND) {
    fprintf(stderr, "valgrind_only_failure: sum %.1f, but this run is under valgrind: giving up\n",
            sum);
    return 7;
  }
  printf("valgrind_only_failure: sum %.1f\n", sum);
  return 0;
}
