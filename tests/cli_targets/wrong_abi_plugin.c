/* A plugin built against a future kernel ABI: a well-formed set whose abi_version is 999. rprof
 * must refuse it before calling anything in it. */
#include <stdlib.h>

#include "rprof/kernel.h"

static void* never_setup(const rprof_args* args, rprof_error* err) {
  (void)args;
  (void)err;
  abort(); /* rprof must not call a kernel of an ABI it does not speak */
}
static void never_run(void* state) { (void)state; abort(); }
static int never_check(void* state, rprof_error* err) {
  (void)state;
  (void)err;
  abort();
}
static void never_teardown(void* state) { (void)state; abort(); }

static const rprof_param kParams[] = {{"n", "elements", 1000, 1, 1000000}};
static const rprof_kernel kKernels[] = {
    {"future", "from a newer ABI", RPROF_PRECISION_FP64, kParams, 1, "n", "8*n", never_setup,
     never_run, never_check, never_teardown},
};
static const rprof_kernel_set kSet = {999u, "future", kKernels, 1};

const rprof_kernel_set* rprof_kernels(void) { return &kSet; }
