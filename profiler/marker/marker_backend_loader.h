/* Finds librprof-marker-backend.so (marker_backend.h) and loads it, once, when rprof started the
 * program. Looked for, in this order, where the library that programs link was loaded from:
 *   <its folder>/rprof/librprof-marker-backend.so   installed ($libdir/rprof/)
 *   <its folder>/librprof-marker-backend.so         the build tree (build/profiler/marker/)
 * then in the private folder configured at build time (RPROF_MARKER_BACKEND_DIR, for a copy of
 * the library moved elsewhere). "Where it was loaded from" is the path the dynamic loader used
 * (dladdr), symbolic links not resolved. The first file found is the one loaded (RTLD_LOCAL:
 * PAPI and libstdc++ stay out of the program's symbol scope).
 * The static archive (librprof-marker.a, built with RPROF_MARKER_STATIC) has no folder of its
 * own: it loads the file RPROF_MARKER_BACKEND names (marker_backend.h; rprof sets it to its own
 * backend), else the one in the configured folder. */
#ifndef RPROF_MARKER_MARKER_BACKEND_LOADER_H_
#define RPROF_MARKER_MARKER_BACKEND_LOADER_H_

#include <stddef.h>

#include "marker/marker_backend.h"

/* The backend's table, or NULL with *why (NUL-terminated, at most why_size bytes): not found
 * (where it was looked for), or dlopen's or dlsym's message. Never unloaded. */
const struct rprof_marker_backend* rprof_marker_load_backend(char* why, size_t why_size);

#endif /* RPROF_MARKER_MARKER_BACKEND_LOADER_H_ */
