/* Prints a line, then writes through a null pointer: killed by SIGSEGV. */
#include <stdio.h>

int main(void) {
  printf("crasher: about to crash\n");
  fflush(stdout);
  volatile int* volatile nowhere = NULL;
  *nowhere = 1;
  return 0;
}
