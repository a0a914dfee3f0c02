// Counters that run in the measuring thread, started and stopped around each timed repetition
// (never around setup), totals reported per call of the target: what a per-repetition counter
// source (counter_source.h) hands the measurement loop.
#ifndef RPROF_COUNTERS_COUNTER_SESSION_H_
#define RPROF_COUNTERS_COUNTER_SESSION_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"

namespace rprof {

class CounterSession {
 public:
  virtual ~CounterSession() = default;
  virtual Source source() const = 0;
  // Starts counting. False with *err (kEnvironment) when the counters cannot run.
  [[nodiscard]] virtual bool Start(Error* err) = 0;
  // Stops counting and adds what was counted to the totals. False with *err (kEnvironment).
  [[nodiscard]] virtual bool Stop(Error* err) = 0;
  // The totals divided by `calls` (the target calls made while counting), one metric per event;
  // events that could not be counted are present with no value and the reason.
  virtual std::vector<Metric> Results(double calls) const = 0;
  // The fewest repetitions that let every event be counted at least once: more than 1 when the
  // events take turns on the counters (one pass per repetition).
  virtual int MinRepetitions() const { return 1; }
  // Counts process `pid` (a measuring worker rprof forked, targets/kernel_worker.h) instead of
  // the calling thread, from the next Start on. False with *err (kEnvironment) when it cannot.
  [[nodiscard]] virtual bool Attach(pid_t pid, Error* err) {
    (void)pid;
    (void)err;
    return true;
  }
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_COUNTER_SESSION_H_
