/* Forks 3 children that sleep, writes its own pid and theirs to the file named by argv[1] (one
 * a line, then "ready"), then sleeps too: the process tree a `kill -9` of rprof must take down
 * whole (issue 26). With "setsid" after the file, each child leaves the process group first
 * (issue 41: only rprof's cgroup still holds them). */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 3 && strcmp(argv[2], "setsid") == 0)) return 2;
  pid_t pids[3];
  for (int i = 0; i < 3; ++i) {
    pids[i] = fork();
    if (pids[i] == 0) {
      if (argc == 3) setsid();
      sleep(60);
      _exit(0);
    }
  }
  FILE* f = fopen(argv[1], "w");
  if (!f) return 1;
  fprintf(f, "%d\n", (int)getpid());
  for (int i = 0; i < 3; ++i) fprintf(f, "%d\n", (int)pids[i]);
  fprintf(f, "ready\n");
  fclose(f);
  sleep(60);
  return 0;
}
