// rprof-sim-runner: runs one kernel under valgrind for the sim source. rprof starts it as
//
//   valgrind --tool=callgrind ... rprof-sim-runner [--plugin PATH] KERNEL VALUE...
//
// with the kernel's parameter values in declaration order (rprof has already parsed and checked
// them). It sets the kernel up, runs it once as a warm-up with collection off (the simulated
// caches then start as warm as in a timed repetition), once with collection on, checks the
// result and tears down. Built against the AVX2 build of the built-in kernels: valgrind 3.19
// cannot execute AVX-512. Exit status: 0 ok, 1 check failed, 2 bad arguments, 3 setup failed.
#include <dlfcn.h>
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "builtin_kernels.h"

int main(int argc, char** argv) {
  int arg = 1;
  const rprof_kernel_set* set = rprof_builtin_kernels();
  if (arg + 1 < argc && std::strcmp(argv[arg], "--plugin") == 0) {
    void* handle = dlopen(argv[arg + 1], RTLD_NOW | RTLD_LOCAL);
    auto entry =
        handle ? reinterpret_cast<rprof_kernels_fn>(dlsym(handle, RPROF_KERNELS_SYMBOL)) : nullptr;
    set = entry ? entry() : nullptr;
    if (!set || set->abi_version != RPROF_KERNEL_ABI_VERSION) {
      std::fprintf(stderr, "rprof-sim-runner: %s: not a usable kernel plugin\n", argv[arg + 1]);
      return 2;
    }
    arg += 2;
  }
  if (arg >= argc) {
    std::fprintf(stderr, "usage: rprof-sim-runner [--plugin PATH] KERNEL VALUE...\n");
    return 2;
  }
  const rprof_kernel* kernel = nullptr;
  for (uint32_t i = 0; i < set->kernel_count; ++i)
    if (std::strcmp(set->kernels[i].name, argv[arg]) == 0) kernel = &set->kernels[i];
  if (!kernel || argc - arg - 1 != static_cast<int>(kernel->param_count)) {
    std::fprintf(stderr, "rprof-sim-runner: no kernel %s taking %d values\n", argv[arg],
                 argc - arg - 1);
    return 2;
  }
  rprof_args args{};
  for (uint32_t i = 0; i < kernel->param_count; ++i)
    args.values[i] = std::strtoll(argv[arg + 1 + i], nullptr, 10);

  rprof_error error{};
  void* state = kernel->setup(&args, &error);
  if (!state) {
    std::fprintf(stderr, "rprof-sim-runner: %s: setup failed: %s\n", kernel->name, error.message);
    return 3;
  }
  kernel->run(state);
  CALLGRIND_TOGGLE_COLLECT;
  kernel->run(state);
  CALLGRIND_TOGGLE_COLLECT;
  int ok = kernel->check(state, &error);
  kernel->teardown(state);
  if (!ok) {
    std::fprintf(stderr, "rprof-sim-runner: %s: check failed: %s\n", kernel->name, error.message);
    return 1;
  }
  return 0;
}
