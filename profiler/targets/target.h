// What rprof measures, behind one interface: a built-in kernel, a kernel from a plugin, or a
// program. Targets differ only in how they are described and invoked; the measuring driver
// (measure.h) does the rest the same way for all of them.
#ifndef RPROF_TARGETS_TARGET_H_
#define RPROF_TARGETS_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "core/run.h"
#include "counters/counter_source.h"

namespace rprof {

// The counters a target counts with while it runs natively.
struct LiveCounters {
  std::vector<CounterSession*> per_repetition;  // around each timed repetition
  std::vector<ProcessCounting*> per_process;    // on each execution of a program
};

// What a target reports after its native runs.
struct Execution {
  std::vector<double> samples;  // seconds per call (kernels) or per execution (programs)
  std::string samples_note;     // how time_s is their median: "median of 5 repetitions"
  int64_t calls_per_repetition = 1;
  int64_t timed_calls = 0;  // calls the per-repetition counters saw
  RunStatus status = RunStatus::kOk;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string note;  // what went wrong, and what the run should say
  // The target's own metrics, per execution: its marker regions' and, for a program, its
  // `cpu_time_s` and declared `threads` (source clock, region "").
  std::vector<Metric> metrics;
  double replay_native_s = 0;  // native seconds one replay under a simulator would take
  std::string started_at, ended_at;
};

// How an execution went: when it started and ended, its status, exit code, signal and note,
// copied to a run (RunRecord) or to the execution of a target built on another's (a benchmark
// instance on its binary's). One copy, so that a field added to the outcome reaches both.
template <typename To>
void CopyOutcome(const Execution& from, To* to) {
  to->started_at = from.started_at;
  to->ended_at = from.ended_at;
  to->status = from.status;
  to->exit_code = from.exit_code;
  to->signal = from.signal;
  to->note = from.note;
}

class Target {
 public:
  virtual ~Target() = default;
  // The target as counter sources see it.
  virtual const CountedTarget& counted() const = 0;
  // Fills what ran: target kind and name, parameters or command line, directory, precision.
  virtual void Describe(RunRecord* run) const = 0;
  // Runs the target natively, counting with `counters`. A failed check, a crash, an exit status,
  // a time-out or an interrupt is an outcome (true, in *out); false with *err when the target
  // could not be started or its counters failed: nothing is then to be stored.
  virtual bool Execute(const LiveCounters& counters, Execution* out, Error* err) = 0;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_TARGET_H_
