/* rprof kernel ABI, version 1.
 *
 * A kernel is a piece of code rprof can set up, run repeatedly under counters, check, and tear
 * down, together with its own model of the work it does: FLOPs and compulsory bytes (each input
 * read once, each output written once) as formulas over its parameters.
 *
 * Built-in kernels and plugins use exactly this header. A plugin is a shared object exporting
 *
 *     const rprof_kernel_set* rprof_kernels(void);
 *
 * returning a static table; rprof refuses a set whose abi_version differs from the one it was
 * built with. Everything here is plain C so plugins can be written in C, C++, Fortran or Rust.
 *
 * Formulas (flops, bytes) use numbers, parameter names, + - * / and parentheses, for example
 * "2*n*n*n" or "3*n*n*8". rprof prints them as they are written and evaluates them with the
 * parameter values of the run, so the text shown to the user is the formula that was used.
 */
#ifndef RPROF_KERNEL_H_
#define RPROF_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RPROF_KERNEL_ABI_VERSION 1u
#define RPROF_MAX_PARAMS 8

/* Floating-point precision of a kernel's arithmetic: picks the compute ceiling it is judged by
 * and the canonical FLOP metric (flops_dp or flops_sp) its model fills. */
typedef enum rprof_precision {
  RPROF_PRECISION_NONE = 0, /* no floating-point arithmetic at all (integer work) */
  RPROF_PRECISION_FP64 = 1,
  RPROF_PRECISION_FP32 = 2
} rprof_precision;

/* One integer parameter: a name usable in formulas and on the command line (--param name=v). */
typedef struct rprof_param {
  const char* name;
  const char* description;
  int64_t default_value;
  int64_t min_value; /* inclusive */
  int64_t max_value; /* inclusive */
} rprof_param;

/* Parameter values, in the order of rprof_kernel.params. */
typedef struct rprof_args {
  int64_t values[RPROF_MAX_PARAMS];
} rprof_args;

/* Error text a kernel may fill (NUL-terminated, truncated to the buffer). */
typedef struct rprof_error {
  char message[256];
} rprof_error;

typedef struct rprof_kernel {
  const char* name;        /* unique within its set: lower-case, dashes ("matmul-naive") */
  const char* description; /* one line */
  rprof_precision precision;
  const rprof_param* params;
  uint32_t param_count;      /* at most RPROF_MAX_PARAMS */
  const char* flops_formula; /* FLOPs of one run() call; "0" when none */
  const char* bytes_formula; /* compulsory bytes of one run() call */

  /* Allocates and initialises the kernel's data. Returns an opaque state, or NULL with *err set
   * (for example when memory runs out). Not timed. */
  void* (*setup)(const rprof_args* args, rprof_error* err);
  /* One repetition of the measured work. Must be repeatable: rprof calls it many times on the
   * same state (warm-up, timed repetitions). Timed and counted. */
  void (*run)(void* state);
  /* Verifies the result of the last run() against a simple reference. Returns 1 when correct,
   * 0 with *err describing the first mismatch. Not timed. */
  int (*check)(void* state, rprof_error* err);
  /* Frees everything setup() allocated. */
  void (*teardown)(void* state);
} rprof_kernel;

typedef struct rprof_kernel_set {
  uint32_t abi_version; /* RPROF_KERNEL_ABI_VERSION at the plugin's build */
  const char* name;     /* the set's name, shown by `rprof kernels` */
  const rprof_kernel* kernels;
  uint32_t kernel_count;
} rprof_kernel_set;

/* The symbol a plugin exports. */
typedef const rprof_kernel_set* (*rprof_kernels_fn)(void);
#define RPROF_KERNELS_SYMBOL "rprof_kernels"

#ifdef __cplusplus
}
#endif

#endif /* RPROF_KERNEL_H_ */
