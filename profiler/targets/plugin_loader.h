// Kernel plugins: shared objects exporting the kernel ABI (rprof/kernel.h), loaded with dlopen.
#ifndef RPROF_TARGETS_PLUGIN_LOADER_H_
#define RPROF_TARGETS_PLUGIN_LOADER_H_

#include <string>

#include "core/error.h"
#include "targets/kernel_catalog.h"

namespace rprof {

// Loads the plugin at `path` and adds its kernels to `catalog`. The object stays loaded for the
// life of the process (its tables are referenced). Fails with kUsage when the file is missing or
// is not an rprof plugin (no `rprof_kernels` symbol), kEnvironment when it cannot be loaded or
// was built for another ABI version — each with the reason and what to do.
bool LoadPlugin(const std::string& path, KernelCatalog* catalog, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_PLUGIN_LOADER_H_
