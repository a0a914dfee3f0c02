/* Ignores SIGINT and SIGTERM and sleeps: only SIGKILL stops it. Prints "ready" once both are
 * ignored. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  printf("stubborn: ready\n");
  fflush(stdout);
  for (int i = 0; i < 600; ++i) sleep(1);
  return 0;
}
