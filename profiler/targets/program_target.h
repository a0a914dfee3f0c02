// A program as a target, measured as `perf stat` would: started with fork/exec (no shell),
// counters on the process and everything it starts, stdout/stderr passed through, signals
// forwarded, its exit status recorded; marker regions read back when it uses the marker API.
#ifndef RPROF_TARGETS_PROGRAM_TARGET_H_
#define RPROF_TARGETS_PROGRAM_TARGET_H_

#include <optional>
#include <string>
#include <vector>

#include "targets/target.h"

namespace rprof {

struct ProgramOptions {
  int repetitions = 1;   // executions, stopping at the first that fails
  double timeout_s = 0;  // > 0: kill the program after this long; the run is interrupted
  std::optional<double> declared_flops;  // the model of one execution, as the user declared it
  std::optional<double> declared_bytes;
  // The threads (or processes) it computes on, as the user declared it (--threads): stored as
  // the run's `threads` metric (clock), for its roof. nullopt: CPU time / wall time says.
  std::optional<int> threads;
};

class ProgramTarget : public Target {
 public:
  // `path`: the file to execute (see ResolveExecutable); `argv`: argv[0] as the user wrote it,
  // then the program's arguments.
  ProgramTarget(std::string path, std::vector<std::string> argv, ProgramOptions options);

  const CountedTarget& counted() const override { return counted_; }
  void Describe(RunRecord* run) const override;
  // Runs the program `repetitions` times. The first execution that cannot start fails the call;
  // a later one ends the run as failed. While it runs, SIGINT/SIGTERM sent to rprof by another
  // process are forwarded to the program (one typed at the terminal already reaches it, with
  // its process group); either way the run ends as interrupted.
  bool Execute(const LiveCounters& counters, Execution* out, Error* err) override;

 private:
  CountedTarget counted_;
  ProgramOptions options_;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_PROGRAM_TARGET_H_
