/* An example rprof kernel plugin, in plain C: y = a*x + y (AXPY) in fp32 and fp64.
 *
 * Build:  cc -O2 -shared -fPIC example_plugin.c -o libexample_plugin.so $(pkg-config ...)
 *         (or with -I path/to/rprof/include; the ABI is this one header)
 * Use:    rprof kernels ./libexample_plugin.so
 *         rprof run ./libexample_plugin.so --kernel saxpy --param n=1000000
 *
 * A plugin exports one function, rprof_kernels(), returning a static table. Each kernel
 * declares its parameters and its model (FLOPs and compulsory bytes as formulas over the
 * parameters); rprof times run(), counts with its counter sources, and calls check().
 */
#include <stdio.h>
#include <stdlib.h>

#include "rprof/kernel.h"

typedef struct {
  int64_t n;
  int fp64;
  void* x;
  void* y;
  void* y0; /* y before any run: the check recomputes from it */
  int runs;
} axpy_state;

static const rprof_param kParams[] = {
    {"n", "elements in x and y", 1000000, 1, 1000000000},
};

static void* axpy_setup(const rprof_args* args, rprof_error* err, int fp64) {
  axpy_state* s = calloc(1, sizeof *s);
  size_t size = fp64 ? sizeof(double) : sizeof(float);
  if (!s) goto oom;
  s->n = args->values[0];
  s->fp64 = fp64;
  s->x = malloc((size_t)s->n * size);
  s->y = malloc((size_t)s->n * size);
  s->y0 = malloc((size_t)s->n * size);
  if (!s->x || !s->y || !s->y0) goto oom;
  for (int64_t i = 0; i < s->n; ++i) {
    double xi = (double)(i % 7) * 0.25, yi = (double)(i % 5) * 0.5;
    if (fp64) {
      ((double*)s->x)[i] = xi;
      ((double*)s->y)[i] = ((double*)s->y0)[i] = yi;
    } else {
      ((float*)s->x)[i] = (float)xi;
      ((float*)s->y)[i] = ((float*)s->y0)[i] = (float)yi;
    }
  }
  return s;
oom:
  snprintf(err->message, sizeof err->message, "out of memory for n=%lld",
           (long long)args->values[0]);
  if (s) {
    free(s->x);
    free(s->y);
    free(s->y0);
    free(s);
  }
  return NULL;
}

static void* saxpy_setup(const rprof_args* args, rprof_error* err) { return axpy_setup(args, err, 0); }
static void* daxpy_setup(const rprof_args* args, rprof_error* err) { return axpy_setup(args, err, 1); }

/* a = +1/1024 on even runs, -1/1024 on odd ones: y swings between y0 and y0 + x/1024, every
 * value exactly representable, so however many times rprof repeats run() the check is exact. */
static void saxpy_run(void* state) {
  axpy_state* s = state;
  float* x = s->x;
  float* y = s->y;
  float a = (s->runs & 1) ? -1.0f / 1024 : 1.0f / 1024;
  for (int64_t i = 0; i < s->n; ++i) y[i] = a * x[i] + y[i];
  s->runs++;
}

static void daxpy_run(void* state) {
  axpy_state* s = state;
  double* x = s->x;
  double* y = s->y;
  double a = (s->runs & 1) ? -1.0 / 1024 : 1.0 / 1024;
  for (int64_t i = 0; i < s->n; ++i) y[i] = a * x[i] + y[i];
  s->runs++;
}

static int axpy_check(void* state, rprof_error* err) {
  axpy_state* s = state;
  for (int64_t i = 0; i < s->n; ++i) {
    double x = s->fp64 ? ((double*)s->x)[i] : ((float*)s->x)[i];
    double y0 = s->fp64 ? ((double*)s->y0)[i] : ((float*)s->y0)[i];
    double y = s->fp64 ? ((double*)s->y)[i] : ((float*)s->y)[i];
    double want = y0 + ((s->runs & 1) ? x / 1024 : 0);
    if (y != want) {
      snprintf(err->message, sizeof err->message, "y[%lld] = %g, expected %g after %d runs",
               (long long)i, y, want, s->runs);
      return 0;
    }
  }
  return 1;
}

static void axpy_teardown(void* state) {
  axpy_state* s = state;
  free(s->x);
  free(s->y);
  free(s->y0);
  free(s);
}

static const rprof_kernel kKernels[] = {
    {"saxpy", "y = a*x + y (fp32): 2 FLOPs per 12 bytes", RPROF_PRECISION_FP32, kParams, 1,
     "2*n", "12*n", saxpy_setup, saxpy_run, axpy_check, axpy_teardown},
    {"daxpy", "y = a*x + y (fp64): 2 FLOPs per 24 bytes", RPROF_PRECISION_FP64, kParams, 1,
     "2*n", "24*n", daxpy_setup, daxpy_run, axpy_check, axpy_teardown},
};

static const rprof_kernel_set kSet = {RPROF_KERNEL_ABI_VERSION, "example", kKernels,
                                      sizeof kKernels / sizeof kKernels[0]};

const rprof_kernel_set* rprof_kernels(void) { return &kSet; }
