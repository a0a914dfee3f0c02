/* fake_pmu_papi [EVENT]: the reproducer of PAPI_attach on a PMU-less guest (PAPI 7.0), carried
 * on to a count: add EVENT (default perf::TASK-CLOCK) to a set, attach the set to a forked child
 * that spins, start, wait until the set has counted (100 ms or more), stop, print the value.
 * fake_pmu_check runs it with and without librprof-fake-pmu.so.
 *
 * Prints one line per step ("add EVENT: <PAPI_strerror>", "attach: <code> <PAPI_strerror>",
 * "start: ...", "stop: ... value N") and `expect-log:` the open PAPI's permission check makes on
 * the child. Exit status: 0 the whole flow worked and counted above zero, 1 a step failed (the
 * lines say which), 2 PAPI_library_init failed. */
#define _GNU_SOURCE
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0); /* the child must not repeat buffered lines */
  const char* event = argc > 1 ? argv[1] : "perf::TASK-CLOCK";
  if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    puts("init: PAPI_library_init failed");
    return 2;
  }
  int set = PAPI_NULL;
  int code = PAPI_create_eventset(&set);
  if (code != PAPI_OK) {
    printf("create: %d %s\n", code, PAPI_strerror(code));
    return 1;
  }
  code = PAPI_add_named_event(set, event);
  printf("add %s: %s\n", event, PAPI_strerror(code));
  if (code != PAPI_OK) return 1;

  pid_t child = fork();
  if (child == 0) {
    volatile unsigned long x = 0;
    for (;;) x = x * 6364136223846793005ul + 1;
  }
  int status = 1;
  code = PAPI_attach(set, (unsigned long)child);
  printf("attach: %d %s\n", code, PAPI_strerror(code));
  /* PAPI's check_permissions: PERF_TYPE_HARDWARE instructions on the target, before any event. */
  printf("expect-log: pid=%d type=0 config=0x1 target=%d cpu=-1 group=-1 -> \n", (int)getpid(),
         (int)child);
  if (code == PAPI_OK) {
    code = PAPI_start(set);
    printf("start: %d %s\n", code, PAPI_strerror(code));
    if (code == PAPI_OK) {
      /* Up to 2 s for the child to be scheduled: the machine may be busy with other work. */
      long long value = 0;
      for (int i = 0; i < 20 && value == 0; ++i) {
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        if (PAPI_read(set, &value) != PAPI_OK) break;
      }
      code = PAPI_stop(set, &value);
      printf("stop: %d %s value %lld\n", code, PAPI_strerror(code), value);
      if (code == PAPI_OK && value > 0) status = 0;
    }
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return status;
}
