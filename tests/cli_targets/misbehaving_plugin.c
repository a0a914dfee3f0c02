/* A kernel plugin that misbehaves in one way chosen at build time, for the isolation tests
 * (issue 26): rprof runs plugin code in a child process, so none of these may take rprof down.
 *
 *   MISBEHAVE_SEGV_AFTER  run() dereferences NULL on its 200th call
 *   MISBEHAVE_EXIT        run() calls exit(0)
 *   MISBEHAVE_CTOR        a constructor dereferences NULL as the plugin is loaded
 *   MISBEHAVE_NULL_NAME   the second kernel of the table has a NULL name
 *   MISBEHAVE_COUNT       the set claims 1000 kernels, its table holds one
 *   MISBEHAVE_SLOW_SETUP  setup() sleeps 30 s (a signal during it must end rprof at once)
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "rprof/kernel.h"

typedef struct {
  double* a;
  int64_t n;
} state_t;

static long g_calls = 0;

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
  for (int64_t i = 0; i < s->n; ++i) s->a[i] += 1.0;
}

static int check(void* state, rprof_error* err) {
  (void)state;
  (void)err;
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
