/* The helper hot_loops.c inlines: its FLOPs belong on the caller's line (issue 38), not here. */
#ifndef HOT_LOOPS_HELPER_H_
#define HOT_LOOPS_HELPER_H_

static inline __attribute__((always_inline)) double scaled_add(double y, double a, double x) {
  return y + a * x; /* inlined helper */
}

#endif
