/* librprof-marker: the functions of rprof/marker.h as programs link them. Plain C on libc alone,
 * so that linking it costs a program nothing it can measure when it runs on its own: the first
 * call reads the environment once and, outside rprof, every call is then one load and one
 * predictable branch. Only when rprof started the program does it load the backend
 * (marker_backend_loader.h), which does the real work, and forward every call to it; under
 * rprof's sim source it talks to callgrind itself (marker_sim.h). */
#define _POSIX_C_SOURCE 200809L /* pthread_once */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "marker/marker_backend.h"
#include "marker/marker_backend_loader.h"
#include "marker/marker_load_failure.h"
#include "marker/marker_sim.h"
#include "rprof/marker.h"

enum marker_mode {
  kUnknown = 0, /* no call yet */
  kOff,         /* not under rprof, or its backend could not be loaded */
  kBackend,     /* under rprof: every call goes to the backend */
  kSim,         /* under rprof's sim source: callgrind client requests only */
};

/* Decided at the first call, by whichever thread makes it; never changes afterwards. */
static atomic_int mode = kUnknown;
/* Written before mode becomes kBackend (release); read only after seeing kBackend (acquire). */
static const struct rprof_marker_backend* backend;
static pthread_once_t backend_loaded = PTHREAD_ONCE_INIT;

static void load_backend(void) {
  char why[1024];
  backend = rprof_marker_load_backend(why, sizeof why);
  const char* out = getenv("RPROF_MARKER_OUT");
  if (backend == NULL && out != NULL) rprof_marker_report_load_failure_at_exit(out, why);
  atomic_store_explicit(&mode, backend != NULL ? kBackend : kOff, memory_order_release);
}

/* The first call of the process. Outside rprof it reads one variable and nothing else: threads
 * whose first calls race all find the same answer. Loading the backend happens once; other
 * threads making their first call meanwhile wait for it. */
__attribute__((noinline, cold)) static int decide(void) {
  const char* out = getenv("RPROF_MARKER_OUT");
  if (out == NULL || *out == '\0') {
    atomic_store_explicit(&mode, kOff, memory_order_release);
    return kOff;
  }
  const char* sim = getenv("RPROF_MARKER_SIM");
  if (sim != NULL && sim[0] == '1' && sim[1] == '\0') {
    atomic_store_explicit(&mode, kSim, memory_order_release);
    return kSim;
  }
  pthread_once(&backend_loaded, load_backend);
  return atomic_load_explicit(&mode, memory_order_acquire);
}

/* The mode every call acts in; the first call of the process decides it. Outside rprof (kOff,
 * the case that must cost nothing) it is one load and one branch predicted taken. */
static inline int current_mode(void) {
  int now = atomic_load_explicit(&mode, memory_order_acquire);
  if (__builtin_expect(now == kOff, 1)) return kOff;
  return __builtin_expect(now == kUnknown, 0) ? decide() : now;
}

void rprof_region_begin(const char* name) {
  int now = current_mode();
  if (now == kBackend)
    backend->region_begin(name);
  else if (now == kSim)
    rprof_marker_sim_begin(name);
}

void rprof_region_end(const char* name) {
  int now = current_mode();
  if (now == kBackend)
    backend->region_end(name);
  else if (now == kSim)
    rprof_marker_sim_end(name);
}

void rprof_region_declare(const char* name, double flops, double bytes) {
  /* Under sim the FLOPs and bytes are counted, and rprof takes the declared ones from the
   * program's native run. */
  if (current_mode() == kBackend) backend->region_declare(name, flops, bytes);
}

static void declare_precision(const char* name, double flops, double bytes, int precision) {
  if (current_mode() == kBackend) backend->region_declare_precision(name, flops, bytes, precision);
}

void rprof_region_declare_fp64(const char* name, double flops, double bytes) {
  declare_precision(name, flops, bytes, 64);
}

void rprof_region_declare_fp32(const char* name, double flops, double bytes) {
  declare_precision(name, flops, bytes, 32);
}

int rprof_markers_active(void) {
  int now = current_mode();
  if (now == kBackend) return backend->markers_active();
  return now == kSim;
}
