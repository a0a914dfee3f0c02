// A set of CPUs, written as likwid-pin and `taskset -c` write them ("0,2-3"), and pinning to it:
// `rprof run --cpu-list` / `-C`. Messages name no flag; the command line adds it.
#ifndef RPROF_PROCESS_CPU_LIST_H_
#define RPROF_PROCESS_CPU_LIST_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

class CpuList {
 public:
  // Parses "0,2-3" (in any order; a CPU named twice counts once). False with *why on an empty
  // list or item, anything but CPU numbers and ranges, a range that ends before it starts, or a
  // CPU past the kMaxCpus rprof can pin. The kind is kUsage: the request is wrong.
  [[nodiscard]] static bool Parse(const std::string& text, CpuList* out, Error* why);
  // The CPUs this process may run on: its affinity mask, within its cgroup's cpuset.
  static CpuList Allowed();

  static constexpr int kMaxCpus = 1024;  // CPU_SETSIZE

  bool empty() const { return cpus_.empty(); }
  const std::vector<int>& cpus() const { return cpus_; }  // ascending, each once
  // The canonical text: ascending, consecutive CPUs as ranges, "0,2-3". "" when empty.
  std::string Text() const;

  // True when this process may use every CPU of the list; else false with *why naming those it
  // may not and the allowed set ("this process may not use CPU 5 (it may use 0-1: ...)"), kUsage:
  // the user asked for CPUs they were not given.
  [[nodiscard]] bool Usable(Error* why) const;

  // Pins every thread of this process to the list (each one in /proc/self/task): threads
  // started later inherit the mask of the thread that starts them, child processes their
  // parent's, across exec. False with *why (kEnvironment: the system's reason) on failure.
  [[nodiscard]] bool PinThisProcess(Error* why) const;

 private:
  std::vector<int> cpus_;
};

}  // namespace rprof

#endif  // RPROF_PROCESS_CPU_LIST_H_
