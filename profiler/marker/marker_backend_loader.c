#define _GNU_SOURCE /* dladdr */
#include "marker/marker_backend_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RPROF_MARKER_BACKEND_DIR
#define RPROF_MARKER_BACKEND_DIR ""
#endif

#ifndef RPROF_MARKER_STATIC
/* The folder of the file this library was loaded from, as the dynamic loader found it (through
 * a symbolic link in that folder, such as librprof-marker.so.1); "" when unknown. */
static void own_folder(char* out, size_t size) {
  out[0] = '\0';
  Dl_info info;
  if (dladdr((const void*)&rprof_marker_load_backend, &info) == 0 || info.dli_fname == NULL) return;
  const char* slash = strrchr(info.dli_fname, '/');
  int length = slash == NULL ? 0 : (int)(slash - info.dli_fname);
  if (length == 0 || (size_t)length >= size) return;
  snprintf(out, size, "%.*s", length, info.dli_fname);
}
#endif

static const struct rprof_marker_backend* load(const char* path, char* why, size_t why_size) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char* error = dlerror();
    snprintf(why, why_size, "cannot load %s: %s", path, error != NULL ? error : "dlopen failed");
    return NULL;
  }
  rprof_marker_backend_entry entry =
      (rprof_marker_backend_entry)dlsym(handle, RPROF_MARKER_BACKEND_ENTRY);
  if (entry == NULL) {
    snprintf(why, why_size,
             "%s is not the backend of this librprof-marker (no %s: another version of rprof); "
             "reinstall rprof",
             path, RPROF_MARKER_BACKEND_ENTRY);
    return NULL;
  }
  return entry();
}

#ifdef RPROF_MARKER_STATIC
/* Linked into the program: dladdr would name the program, not a library folder. rprof names its
 * own backend; outside rprof (a program that sets RPROF_MARKER_OUT itself) the configured folder
 * is the only place left to look. */
const struct rprof_marker_backend* rprof_marker_load_backend(char* why, size_t why_size) {
  const char* named = getenv(RPROF_MARKER_BACKEND_VARIABLE);
  if (named != NULL && *named != '\0') return load(named, why, why_size);
  const char* configured = RPROF_MARKER_BACKEND_DIR;
  char path[PATH_MAX];
  if (configured[0] != '\0') {
    int n = snprintf(path, sizeof path, "%s/" RPROF_MARKER_BACKEND_FILE, configured);
    if (n > 0 && (size_t)n < sizeof path && access(path, F_OK) == 0)
      return load(path, why, why_size);
  }
  snprintf(why, why_size,
           "%s not found: " RPROF_MARKER_BACKEND_VARIABLE " not set%s%s; reinstall rprof",
           RPROF_MARKER_BACKEND_FILE, configured[0] != '\0' ? " and none in " : "", configured);
  return NULL;
}
#else
const struct rprof_marker_backend* rprof_marker_load_backend(char* why, size_t why_size) {
  char folder[PATH_MAX];
  own_folder(folder, sizeof folder);
  const char* formats[] = {"%s/rprof/" RPROF_MARKER_BACKEND_FILE, "%s/" RPROF_MARKER_BACKEND_FILE};
  char path[PATH_MAX];
  if (folder[0] != '\0') {
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i) {
      int n = snprintf(path, sizeof path, formats[i], folder);
      if (n > 0 && (size_t)n < sizeof path && access(path, F_OK) == 0)
        return load(path, why, why_size);
    }
  }
  const char* configured = RPROF_MARKER_BACKEND_DIR;
  if (configured[0] != '\0') {
    int n = snprintf(path, sizeof path, "%s/" RPROF_MARKER_BACKEND_FILE, configured);
    if (n > 0 && (size_t)n < sizeof path && access(path, F_OK) == 0)
      return load(path, why, why_size);
  }
  snprintf(why, why_size, "%s not found in %s/rprof, %s%s%s; reinstall rprof",
           RPROF_MARKER_BACKEND_FILE, folder[0] != '\0' ? folder : "(this library's folder)",
           folder[0] != '\0' ? folder : "(this library's folder)",
           configured[0] != '\0' ? " or " : "", configured);
  return NULL;
}
#endif /* RPROF_MARKER_STATIC */
