/* The interface between the two halves of the marker library:
 *   - librprof-marker.so.1 (marker_api.c, plain C on libc alone): what programs link. Outside
 *     rprof it reads the environment once and does nothing more;
 *   - librprof-marker-backend.so (marker_backend.cc, C++ and PAPI): regions per thread, counters
 *     and the results file. The first half loads it with dlopen only when rprof started the
 *     program (RPROF_MARKER_OUT set), and forwards every call to it.
 * The backend exports one function, whose name carries the version of this table: a backend of
 * another build of rprof, with another table, is refused at dlsym rather than called wrongly.
 * Private to rprof (not installed): change the table, change the number in the name. */
#ifndef RPROF_MARKER_MARKER_BACKEND_H_
#define RPROF_MARKER_MARKER_BACKEND_H_

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's file, looked for by marker_backend_loader.c. */
#define RPROF_MARKER_BACKEND_FILE "librprof-marker-backend.so"
/* Where rprof names its own backend for the program it starts (the absolute path of the file),
 * read by the static archive librprof-marker.a only (marker_backend_loader.h). */
#define RPROF_MARKER_BACKEND_VARIABLE "RPROF_MARKER_BACKEND"
/* The backend's one exported symbol: const struct rprof_marker_backend* (*)(void). */
#define RPROF_MARKER_BACKEND_ENTRY "rprof_marker_backend_2"

/* The functions of rprof/marker.h, with the same contract. The backend reads RPROF_MARKER_OUT
 * and RPROF_MARKER_EVENTS itself, at its first call. */
struct rprof_marker_backend {
  void (*region_begin)(const char* name);
  void (*region_end)(const char* name);
  void (*region_declare)(const char* name, double flops, double bytes);
  int (*markers_active)(void);
  /* Version 2: rprof_region_declare_fp64 (precision 64) and _fp32 (32). Appended, so that the
   * table of version 1 is this table's beginning. */
  void (*region_declare_precision)(const char* name, double flops, double bytes, int precision);
};

/* The entry point: the backend's table, never null. Its name is RPROF_MARKER_BACKEND_ENTRY.
 * The backend also exports rprof_marker_backend_1, the same table, for the static archive of
 * an older rprof (which reads only version 1's functions). */
const struct rprof_marker_backend* rprof_marker_backend_2(void);
const struct rprof_marker_backend* rprof_marker_backend_1(void);
typedef const struct rprof_marker_backend* (*rprof_marker_backend_entry)(void);

#ifdef __cplusplus
}
#endif

#endif /* RPROF_MARKER_MARKER_BACKEND_H_ */
