// Where a program's time goes, by function, without markers or a PMU: every thread of each
// execution sampled with perf_event's software `cpu-clock` (a timer, so it works in a virtual
// machine without a PMU), one event per online CPU, inherited by every thread and child and
// enabled at exec, as `perf record` does. The samples' addresses are symbolized afterwards from
// the mappings the kernel reported (PERF_RECORD_MMAP2) by FunctionNames (function_names.h): the
// names the sim source gives the same functions, so sampled time and counted work meet per
// function.
#ifndef RPROF_FUNCTIONS_FUNCTION_SAMPLER_H_
#define RPROF_FUNCTIONS_FUNCTION_SAMPLER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "core/error.h"

namespace rprof {

// Samples per function (and per source line) over every execution sampled so far.
struct FunctionSamples {
  // FunctionNames' names; "[kernel]", "[unknown]", or a mapping's ("[vdso]")
  std::map<std::string, uint64_t> by_function;
  // The same samples per (module's file name, function): one name in two modules (strcmp in
  // ld.so and in libc) is two functions; samples outside a module's file are not here.
  std::map<std::pair<std::string, std::string>, uint64_t> by_module_function;
  // The same samples per (function, source file, line), the line in its function from the
  // module's DWARF or its debug file (source_line.h: inlined code on its caller's line, as the
  // sim source counts it); a sample without a line is in by_function only, and line_why_not
  // says, per function, why (its module has no line information: stripped, or without -g; or
  // too few samples for any line's share: only a function that may be hot gets its lines).
  std::map<std::tuple<std::string, std::string, uint32_t>, uint64_t> by_line;
  std::map<std::string, std::string> line_why_not;
  // The same samples per (module's path, link-time address of the sampled instruction): where
  // the code ran, for what decodes it (the sim source's expectation of a replay's time from the
  // instructions that took the time, counters/sim/replay_cost.h).
  std::map<std::pair<std::string, uint64_t>, uint64_t> by_code_address;
  uint64_t total = 0;   // samples taken in user code
  uint64_t lost = 0;    // samples the ring buffers had no room for
  double period_s = 0;  // cpu-clock time between samples, per thread
  // Executions sampled (Collect calls after a successful Attach): a function's CPU time per
  // execution is its samples x period_s / executions.
  uint64_t executions = 0;
  // The threads (and child processes) that ran side by side in an execution, as its samples
  // show them (the median over windows of ten periods); the most over executions.
  uint64_t threads = 0;
  // Kernel code was not sampled (perf_event_paranoid): shares are of user CPU time only.
  bool user_only = false;
  std::string why_not;  // why nothing was sampled (perf_event_open refused); "" when sampled
};

class FunctionSampler {
 public:
  // `period_s`: CPU time between two samples of one thread.
  explicit FunctionSampler(double period_s);
  ~FunctionSampler();
  FunctionSampler(const FunctionSampler&) = delete;
  FunctionSampler& operator=(const FunctionSampler&) = delete;

  // Opens the sampling events on `pid`, a child that has not exec'd yet. False (why_not set)
  // when the kernel refuses: the run then has no per-function time, said, and goes on.
  bool Attach(pid_t pid);
  // After the execution ended: reads its samples and symbolizes them.
  void Collect();

  const FunctionSamples& samples() const { return samples_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  FunctionSamples samples_;

  // Looks up the source lines of the functions whose samples so far could make them hot, once
  // each; the others' wait (line_why_not says so meanwhile).
  void AddLinesOfFunctionsThatMayBeHot();
};

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_FUNCTION_SAMPLER_H_
