#include "marker/marker_sim.h"

#include <stdatomic.h>
#include <stddef.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>

#include "counters/simtool/rprofsim_requests.h"
#else
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#define RPROFSIM_IS_RUNNING() 0
#define RPROFSIM_REGION_BEGIN(name) ((void)(name))
#define RPROFSIM_REGION_END(name) ((void)(name))
#endif

/* Regions open now, over all threads (callgrind): the first to open ends the "outside" part. */
static atomic_int open_regions;

/* Which tool runs the program: 0 not known yet, 1 callgrind (or any other), 2 rprofsim. Asked
 * once: under rprofsim the request answers 1, under any other tool valgrind answers the default,
 * 0. Racing first calls all get the same answer. */
static atomic_int tool;

static int under_rprofsim(void) {
  int now = atomic_load_explicit(&tool, memory_order_relaxed);
  if (now == 0) {
    now = RPROFSIM_IS_RUNNING() ? 2 : 1;
    atomic_store_explicit(&tool, now, memory_order_relaxed);
  }
  return now == 2;
}

void rprof_marker_sim_begin(const char* name) {
  if (name == NULL || *name == '\0') return;
  if (under_rprofsim()) {
    RPROFSIM_REGION_BEGIN(name);
    return;
  }
  if (atomic_fetch_add_explicit(&open_regions, 1, memory_order_acq_rel) == 0)
    CALLGRIND_DUMP_STATS_AT("rprof-outside");
}

void rprof_marker_sim_end(const char* name) {
  if (name == NULL || *name == '\0') return;
  if (under_rprofsim()) {
    RPROFSIM_REGION_END(name);
    return;
  }
  int open = atomic_load_explicit(&open_regions, memory_order_acquire);
  do {
    if (open <= 0) return; /* an end without a begin: no region to close */
  } while (!atomic_compare_exchange_weak_explicit(&open_regions, &open, open - 1,
                                                  memory_order_acq_rel, memory_order_acquire));
  /* By hand, not snprintf: what runs here before the dump is counted as the region's. */
  static const char kPrefix[] = "rprof-region:";
  char label[160];
  size_t length = sizeof kPrefix - 1;
  for (size_t i = 0; i < length; ++i) label[i] = kPrefix[i];
  while (*name != '\0' && length < sizeof label - 1) label[length++] = *name++;
  label[length] = '\0';
  CALLGRIND_DUMP_STATS_AT(label);
}
