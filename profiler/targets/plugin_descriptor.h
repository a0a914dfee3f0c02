// A plugin's kernel table copied out of the plugin. rprof never loads a plugin into itself: a
// probing child loads it, reads its table (a bad pointer crashes the child, not rprof) and writes
// it as bytes (EncodeKernelSet); rprof reads those bytes as untrusted input and checks every
// field (DecodeKernelSet) before any of it is shown, stored or used. The kernels' functions stay
// in the plugin: only a measuring worker (targets/kernel_worker.h) ever calls them.
#ifndef RPROF_TARGETS_PLUGIN_DESCRIPTOR_H_
#define RPROF_TARGETS_PLUGIN_DESCRIPTOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "rprof/kernel.h"

namespace rprof {

// Bounds on what a plugin may declare: beyond them the table is refused, not read.
constexpr uint32_t kMaxPluginKernels = 4096;
constexpr size_t kMaxKernelNameBytes = 128;
constexpr size_t kMaxKernelTextBytes = 4096;  // a description or a formula

// A checked kernel table whose strings rprof owns. `set` and the kernels it points to have the
// plugin's layout, with every function pointer null: the table describes, it never runs.
class PluginDescriptor {
 public:
  const rprof_kernel_set& set() const { return set_; }

 private:
  friend bool DecodeKernelSet(std::string_view bytes, const std::string& origin,
                              std::unique_ptr<PluginDescriptor>* out, Error* err);
  std::vector<std::unique_ptr<std::string>> strings_;  // stable addresses for the const char*s
  std::vector<std::vector<rprof_param>> params_;
  std::vector<rprof_kernel> kernels_;
  rprof_kernel_set set_{};
};

// In the probing child: `set` as bytes. Reads every string (bounded: at most one byte past each
// limit) and every kernel up to kMaxPluginKernels + 1; a null pointer is written as such, never
// followed.
std::string EncodeKernelSet(const rprof_kernel_set* set);

// In rprof: the bytes of EncodeKernelSet, parsed and checked. kEnvironment with `origin` and
// the first fault: another ABI version (with what to do), truncated or malformed bytes, more
// kernels or parameters than allowed, a null or empty name, a name with characters outside
// [A-Za-z0-9_.+-], a control byte in a description, two kernels or parameters of one name, a
// default outside its range, a missing formula or function.
bool DecodeKernelSet(std::string_view bytes, const std::string& origin,
                     std::unique_ptr<PluginDescriptor>* out, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_PLUGIN_DESCRIPTOR_H_
