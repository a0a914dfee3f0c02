#include "targets/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rprof {

bool LoadPlugin(const std::string& path, KernelCatalog* catalog, Error* err) {
  if (access(path.c_str(), R_OK) != 0)
    return Fail(err, ErrorKind::kUsage, path + ": " + std::strerror(errno));
  // dlopen searches the library path for a bare name; a plugin is always a file the user named.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return Fail(err, ErrorKind::kEnvironment, path + ": cannot load: " + dlerror());
  auto entry = reinterpret_cast<rprof_kernels_fn>(dlsym(handle, RPROF_KERNELS_SYMBOL));
  if (!entry) {
    dlclose(handle);
    return Fail(err, ErrorKind::kUsage,
                path + ": not an rprof kernel plugin: it exports no `" RPROF_KERNELS_SYMBOL
                       "` function; see the plugin template in README");
  }
  const rprof_kernel_set* set = entry();
  if (!set)
    return Fail(err, ErrorKind::kEnvironment, path + ": rprof_kernels() returned no kernel set");
  return catalog->AddSet(set, path, err);
}

}  // namespace rprof
