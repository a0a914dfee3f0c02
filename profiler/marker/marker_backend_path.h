// How rprof finds its own librprof-marker-backend.so, to name it in RPROF_MARKER_BACKEND to the
// programs it starts: a program linked to the static archive librprof-marker.a has no library
// folder to look in (marker_backend_loader.h); and the other libraries rprof hands to the
// programs it starts (the Google Benchmark shim). Private to rprof. A header alone: rprof's library
// takes its sources from profiler/meson.build, and this is the one function the marker side
// gives it.
#ifndef RPROF_MARKER_MARKER_BACKEND_PATH_H_
#define RPROF_MARKER_MARKER_BACKEND_PATH_H_

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "marker/marker_backend.h"
#include "marker/marker_backend_layout.h"  // written by meson (profiler/marker/meson.build)

namespace rprof {

// The absolute path, symbolic links resolved, of a library that ships with this rprof binary
// (found from /proc/self/exe): in `built_folder` beside it as built (relative to the binary's
// folder, e.g. "marker" for build/profiler/marker/), else where it is installed
// ($bindir/../$libdir/rprof/), the first that exists. "" when neither does.
inline std::string CompanionLibraryPath(const std::string& built_folder, const std::string& file) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  std::string folder(self);
  folder.resize(folder.rfind('/'));
  for (std::string from : {built_folder, std::string(RPROF_MARKER_BACKEND_FROM_INSTALLED_RPROF)}) {
    std::string path = (from[0] == '/' ? from : folder + "/" + from) + "/" + file;
    char real[PATH_MAX];
    if (realpath(path.c_str(), real) != nullptr) return real;
  }
  return "";
}

// The marker backend built or installed with this rprof. "" when neither exists: the program
// then looks in the folder configured at build time, and reports it missing with the run.
inline std::string MarkerBackendPath() {
  return CompanionLibraryPath(RPROF_MARKER_BACKEND_FROM_BUILT_RPROF, RPROF_MARKER_BACKEND_FILE);
}

}  // namespace rprof

#endif  // RPROF_MARKER_MARKER_BACKEND_PATH_H_
