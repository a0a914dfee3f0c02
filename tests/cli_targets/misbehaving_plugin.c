/* A kernel plugin that misbehaves in one way chosen at build time, for the isolation tests
 * (issue 26): rprof runs plugin code in a child process, so none of these may take rprof down.
 *
 *   MISBEHAVE_SEGV_AFTER  run() dereferences NULL on its 200th call
 *   MISBEHAVE_EXIT        run() calls exit(0)
 *   MISBEHAVE_CTOR        a constructor dereferences NULL as the plugin is loaded
 *   MISBEHAVE_NULL_NAME   the second kernel of the table has a NULL name
 *   MISBEHAVE_COUNT       the set claims 1000 kernels, its table holds one
 *   MISBEHAVE_SLOW_SETUP  setup() sleeps 30 s (a signal during it must end rprof at once)
 *
 * Deadlines, pipes and output (issue 41):
 *   MISBEHAVE_HANG_SETUP  setup() sleeps forever
 *   MISBEHAVE_HANG_RUN    run() sleeps forever once 0.5 s have passed since setup (after the
 *                         warm-up and some timed repetitions)
 *   MISBEHAVE_HANG_CHECK  check() sleeps forever
 *   MISBEHAVE_DAEMON      setup() starts a daemon (fork, setsid, fork) that sleeps 60 s: it
 *                         holds every descriptor the worker had
 *   MISBEHAVE_STDOUT      setup() and run() print to stdout (setup's flushed, run()'s left in
 *                         stdio's buffer)
 * "Forever" sleeps through signals: only SIGKILL ends it.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setsid under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rprof/kernel.h"

typedef struct {
  double* a;
  int64_t n;
} state_t;

static long g_calls = 0;

#if defined(MISBEHAVE_HANG_SETUP) || defined(MISBEHAVE_HANG_RUN) || defined(MISBEHAVE_HANG_CHECK)
static void sleep_forever(void) {
  for (;;) sleep(1000); /* a signal ends one sleep, never the loop */
}
#endif

#ifdef MISBEHAVE_HANG_RUN
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double g_setup_done = 0;
#endif

#ifdef MISBEHAVE_CTOR
__attribute__((constructor)) static void crash_on_load(void) {
  volatile int* volatile nowhere = (volatile int*)(uintptr_t)0; /* opaque: a real fault */
  *nowhere = 1;
}
#endif

static void* setup(const rprof_args* args, rprof_error* err) {
  (void)err;
#ifdef MISBEHAVE_SLOW_SETUP
  sleep(30);
#endif
#ifdef MISBEHAVE_HANG_SETUP
  sleep_forever();
#endif
#ifdef MISBEHAVE_DAEMON
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() != 0) _exit(0);
    sleep(60);
    _exit(0);
  }
  if (child > 0) waitpid(child, NULL, 0);
#endif
#ifdef MISBEHAVE_STDOUT
  printf("misbehave: hello from setup on stdout\n");
  fflush(stdout); /* at once, as a progress line would be; run()'s waits in the buffer */
#endif
#ifdef MISBEHAVE_HANG_RUN
  g_setup_done = now_s();
#endif
  state_t* s = malloc(sizeof *s);
  s->n = args->values[0];
  s->a = calloc((size_t)s->n, sizeof(double));
  return s;
}

static void run(void* state) {
  state_t* s = state;
  ++g_calls;
#ifdef MISBEHAVE_SEGV_AFTER
  if (g_calls == 200) {
    volatile int* volatile nowhere = (volatile int*)(uintptr_t)0; /* opaque: a real fault */
    *nowhere = 1;
  }
#endif
#ifdef MISBEHAVE_EXIT
  exit(0);
#endif
#ifdef MISBEHAVE_HANG_RUN
  if (g_calls % 64 == 0 && now_s() - g_setup_done > 0.5) sleep_forever();
#endif
#ifdef MISBEHAVE_STDOUT
  if (g_calls == 1) printf("misbehave: hello from run on stdout\n");
#endif
  for (int64_t i = 0; i < s->n; ++i) s->a[i] += 1.0;
}

static int check(void* state, rprof_error* err) {
  (void)state;
  (void)err;
#ifdef MISBEHAVE_HANG_CHECK
  sleep_forever();
#endif
  return 1;
}

static void teardown(void* state) {
  state_t* s = state;
  free(s->a);
  free(s);
}

static const rprof_param kParams[] = {{"n", "elements", 1000, 1, 100000000}};
static const rprof_kernel kKernels[] = {
    {"misbehave", "misbehaves on purpose", RPROF_PRECISION_FP64, kParams, 1, "n", "16*n", setup,
     run, check, teardown},
#ifdef MISBEHAVE_NULL_NAME
    {0, "a kernel without a name", RPROF_PRECISION_FP64, kParams, 1, "n", "16*n", setup, run, check,
     teardown},
#endif
};
#ifdef MISBEHAVE_COUNT
static const rprof_kernel_set kSet = {RPROF_KERNEL_ABI_VERSION, "misbehaving", kKernels, 1000};
#else
static const rprof_kernel_set kSet = {RPROF_KERNEL_ABI_VERSION, "misbehaving", kKernels,
                                      sizeof kKernels / sizeof kKernels[0]};
#endif

const rprof_kernel_set* rprof_kernels(void) { return &kSet; }
