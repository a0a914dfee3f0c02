/* spin_threads T S: T threads, each spinning until it has used S seconds of its own CPU time
 * (integer work only), so that the program's CPU time / wall time is T on an idle machine. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds;

static double ThreadCpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void* Spin(void* arg) {
  volatile unsigned long x = 0;
  while (ThreadCpu() < cpu_seconds)
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005ul + 1;
  (void)arg;
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  cpu_seconds = argc > 2 ? atof(argv[2]) : 0.2;
  if (threads < 1 || threads > 64) return 2;
  pthread_t ids[64];
  for (int i = 0; i < threads; ++i)
    if (pthread_create(&ids[i], NULL, Spin, NULL) != 0) return 1;
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  return 0;
}
