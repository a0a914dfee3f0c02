// The kernels rprof can run: the built-in set and any plugin sets loaded, looked up by name,
// and their parameters parsed and checked against each kernel's declared ranges.
#ifndef RPROF_TARGETS_KERNEL_CATALOG_H_
#define RPROF_TARGETS_KERNEL_CATALOG_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "rprof/kernel.h"

namespace rprof {

struct CatalogEntry {
  const rprof_kernel* kernel;
  std::string origin;  // "builtin" or the plugin's path
  uint32_t index = 0;  // its place in its set: how a measuring worker finds it in the plugin
};

class KernelCatalog {
 public:
  // Adds every kernel of a set; refuses (kEnvironment) a set built for another ABI version.
  bool AddSet(const rprof_kernel_set* set, const std::string& origin, Error* err);

  // The kernel called `name`, or nullptr.
  const CatalogEntry* Find(const std::string& name) const;
  // Like Find, but a miss fails with kUsage listing the known kernels (and a likely typo).
  const CatalogEntry* Resolve(const std::string& name, Error* err) const;

  const std::vector<CatalogEntry>& entries() const { return entries_; }
  std::vector<std::string> Names() const;

 private:
  std::vector<CatalogEntry> entries_;
};

// The catalog of built-in kernels.
const KernelCatalog& BuiltinCatalog();

// Parses `name=value` assignments for `kernel`, starting from its defaults. kUsage for an
// unknown name (with "did you mean"), a value that is not an integer, one out of range, or a
// parameter given twice.
// *shown gets every parameter's final value, in declaration order, for storing and printing.
bool ParseKernelArgs(const rprof_kernel& kernel, const std::vector<std::string>& assignments,
                     rprof_args* args, KeyValues* shown, Error* err);

// "fp64", "fp32" or "".
const char* PrecisionName(rprof_precision precision);

}  // namespace rprof

#endif  // RPROF_TARGETS_KERNEL_CATALOG_H_
