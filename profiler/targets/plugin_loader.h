// Kernel plugins: shared objects exporting the kernel ABI (rprof/kernel.h). rprof never loads
// one into itself: a probing child loads it and hands back its kernel table
// (targets/plugin_descriptor.h); the kernels run in a measuring worker that loads the plugin
// again (targets/kernel_worker.h). A plugin whose constructors or rprof_kernels() crash, exit or
// hang fails the probe, not rprof.
#ifndef RPROF_TARGETS_PLUGIN_LOADER_H_
#define RPROF_TARGETS_PLUGIN_LOADER_H_

#include <string>

#include "core/error.h"
#include "targets/kernel_catalog.h"

namespace rprof {

// Probes the plugin at `path` and adds its kernels to `catalog` (the table lives as long as
// the process). Fails with kUsage when the file is missing or is not an rprof plugin (no
// `rprof_kernels` symbol), kEnvironment when it cannot be loaded, was built for another ABI
// version, has a malformed kernel table, or crashed, exited or hung while loading — each with
// the reason and what to do.
bool LoadPlugin(const std::string& path, KernelCatalog* catalog, Error* err);

// In a worker process (never rprof itself): loads the plugin and returns its kernel number
// `index`, which must be called `name`. nullptr with *err otherwise (environment: the worker
// passes its message on to rprof as text).
[[nodiscard]] const rprof_kernel* LoadPluginKernelHere(const std::string& path, uint32_t index,
                                                       const std::string& name, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_PLUGIN_LOADER_H_
