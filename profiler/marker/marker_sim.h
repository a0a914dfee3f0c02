/* The marker calls under rprof's sim source (RPROF_MARKER_SIM=1: the program runs in valgrind).
 * Under rprofsim, rprof's own tool, they send its region requests (rprofsim_requests.h): the tool
 * keeps every region's counts per thread, exactly, however regions nest or overlap. Under
 * callgrind (the fallback) they tell callgrind where regions begin and end: it dumps its counts
 * (and zeroes them) when the first region opens, as "rprof-outside", and when each region ends,
 * as "rprof-region:<name>", so rprof counts each region on its own and the whole program as the
 * sum of all dumps. Nested or concurrent regions share their counts with the region that ends
 * first there. No backend is loaded under sim: its cost would be counted as the program's, and sim
 * counts what PAPI would (rprof takes calls and time from the program's native run). Outside
 * valgrind the client requests are a few no-op instructions. */
#ifndef RPROF_MARKER_MARKER_SIM_H_
#define RPROF_MARKER_MARKER_SIM_H_

/* A NULL or empty name is ignored, as an end without a begin is. Any thread. */
void rprof_marker_sim_begin(const char* name);
void rprof_marker_sim_end(const char* name);

#endif /* RPROF_MARKER_MARKER_SIM_H_ */
