/* An empty program, built four ways to measure what linking a library costs a program that runs
 * on its own (tests/cli/sim_run_test.py counts each under valgrind):
 *   link_cost_empty          nothing linked but libc;
 *   link_cost_markers        -DLINK_COST_MARKERS, linked to librprof-marker: the calls a program
 *                            makes around a region (active?, begin, end), outside rprof no-ops;
 *   link_cost_markers_static the same calls, linked to the static archive librprof-marker.a:
 *                            no shared library more than link_cost_empty;
 *   link_cost_one_function   -DLINK_COST_ONE_FUNCTION, linked to a library of one empty function
 *                            (link_cost_library.c): what the dynamic loader spends on any shared
 *                            library, the floor for the marker library. */
#if defined(LINK_COST_MARKERS)
#include <rprof/marker.h>
#elif defined(LINK_COST_ONE_FUNCTION)
void link_cost_one_function(void);
#endif

int main(void) {
#if defined(LINK_COST_MARKERS)
  rprof_markers_active();
  rprof_region_begin("empty");
  rprof_region_end("empty");
#elif defined(LINK_COST_ONE_FUNCTION)
  link_cost_one_function();
#endif
  return 0;
}
