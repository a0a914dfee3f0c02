/* LIKWID's marker API on rprof's (rprof/marker.h): a program written for LIKWID's
 * likwid-marker.h (https://github.com/RRZE-HPC/likwid, src/includes/likwid-marker.h) builds
 * unchanged against rprof, and `rprof ./app` measures its regions:
 *
 *     #include <likwid-marker.h>
 *     cc -fopenmp -DLIKWID_PERFMON app.c $(pkg-config --cflags --libs rprof-likwid)
 *
 * This file is installed as include/rprof/likwid/likwid-marker.h, and rprof-likwid.pc puts that
 * folder on the include path: it never stands in for LIKWID's own include/likwid-marker.h, and a
 * program switches between the two by its build flags alone. As LIKWID's, every macro expands to
 * nothing without LIKWID_PERFMON, and the program then needs no library at all.
 *
 * What each macro does here:
 *   LIKWID_MARKER_INIT             rprof_markers_active(): the library reads its environment and,
 *                                  under rprof, loads its backend now rather than in the first
 *                                  region. Optional, as any call may come first.
 *   LIKWID_MARKER_THREADINIT       nothing: a thread's counters start at its first region.
 *   LIKWID_MARKER_REGISTER(tag)    nothing (0): a thread's region is made at its first START.
 *   LIKWID_MARKER_START(tag)       rprof_region_begin(tag); 0.
 *   LIKWID_MARKER_STOP(tag)        rprof_region_end(tag); 0.
 *   LIKWID_MARKER_CLOSE            nothing: the results are written when the process exits.
 *   LIKWID_MARKER_RESET(tag)       nothing (0): a region's totals are never reset.
 *   LIKWID_MARKER_SWITCH           nothing: rprof counts one set of events for the whole run
 *                                  (`rprof run -e` / `-g`), not LIKWID's groups in turn.
 *   LIKWID_MARKER_WRITE_FILE(file) nothing (0): rprof stores the results in its database.
 *   LIKWID_MARKER_GET(tag, nevents, events, time, count)
 *                                  *nevents = 0, *time = 0, *count = 0: the program gets no
 *                                  values back; rprof reports them after the run.
 * The ones that return 0 return it as LIKWID's functions return "no error". The rules of
 * rprof/marker.h apply: a region started in a thread must stop in that thread, regions of
 * different names may nest, a name begun again while open is reported (LIKWID warns too). Calls
 * and counters are summed over threads, and a region's time is the most one thread spent inside
 * it, where LIKWID lists each thread. The likwid_* functions of likwid.h are not provided, nor
 * the GPU macros (NVMON_*, ROCMON_*). */
#ifndef LIKWID_MARKER_H /* LIKWID's own guard: this file takes its place */
#define LIKWID_MARKER_H

#ifdef LIKWID_PERFMON
#include "../marker.h"

static inline int rprof_likwid_start_(const char* tag) {
  rprof_region_begin(tag);
  return 0;
}

static inline int rprof_likwid_stop_(const char* tag) {
  rprof_region_end(tag);
  return 0;
}

static inline int rprof_likwid_nothing_(const char* tag) {
  (void)tag;
  return 0;
}

static inline void rprof_likwid_get_(const char* tag, int* nevents, double* events, double* time,
                                     int* count) {
  (void)tag;
  (void)events;
  *nevents = 0;
  *time = 0;
  *count = 0;
}

#define LIKWID_MARKER_INIT ((void)rprof_markers_active())
#define LIKWID_MARKER_THREADINIT ((void)0)
#define LIKWID_MARKER_SWITCH ((void)0)
#define LIKWID_MARKER_REGISTER(regionTag) rprof_likwid_nothing_(regionTag)
#define LIKWID_MARKER_START(regionTag) rprof_likwid_start_(regionTag)
#define LIKWID_MARKER_STOP(regionTag) rprof_likwid_stop_(regionTag)
#define LIKWID_MARKER_CLOSE ((void)0)
#define LIKWID_MARKER_WRITE_FILE(markerfile) rprof_likwid_nothing_(markerfile)
#define LIKWID_MARKER_RESET(regionTag) rprof_likwid_nothing_(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
  rprof_likwid_get_(regionTag, nevents, events, time, count)
#else /* LIKWID_PERFMON */
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
#define LIKWID_MARKER_WRITE_FILE(markerfile)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#define LIKWID_MARKER_RESET(regionTag)
#endif /* LIKWID_PERFMON */

#endif /* LIKWID_MARKER_H */
