// The measurement loop shared by every in-process target: warm-up, then timed repetitions until
// a minimum total time, counters around each repetition only.
#ifndef RPROF_TARGETS_MEASURE_LOOP_H_
#define RPROF_TARGETS_MEASURE_LOOP_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "counters/counter_session.h"
#include "process/interruption.h"

namespace rprof {

// A cap on stored repetitions: beyond it more samples add nothing to the median.
constexpr int kMaxRepetitions = 10000;

struct MeasureOptions {
  double min_time_s = 0.5;  // keep repeating until the timed repetitions add up to this
  int min_repetitions = 3;  // and at least this many
  int repetitions = 0;      // > 0: exactly this many, whatever the time
  // Calls shorter than this are batched so one repetition lasts about this long: the clock's
  // and the counters' own cost then stay below a thousandth of what is measured.
  double target_repetition_s = 0.01;
  const std::atomic<bool>* interrupted = nullptr;  // checked between repetitions
  // Told of each phase as it begins (after EnterPhase): a measuring worker passes it on to rprof.
  std::function<void(Phase)> on_phase;
  // Told of each timed repetition once it ended and its counters were stopped: seconds per
  // call, calls in it. A measuring worker sends it to rprof at once, so what was measured
  // survives the worker (kill at a deadline, a hang in the check).
  std::function<void(double seconds_per_call, int64_t calls)> on_repetition;
};

struct MeasureResult {
  std::vector<double> seconds_per_call;  // one per timed repetition
  int64_t calls_per_repetition = 1;
  int64_t timed_calls = 0;  // what the counters saw: repetitions × calls per repetition
  bool interrupted = false;
};

// Measures `call`. Counters are started right before and stopped right after each repetition's
// timed region, so setup, warm-up and the counters' own start/stop are never counted or timed.
// False with *err (the counter's own, kEnvironment) when a counter fails to start or stop.
[[nodiscard]] bool MeasureRepeated(const std::function<void()>& call,
                                   const std::vector<CounterSession*>& counters,
                                   const MeasureOptions& options, MeasureResult* result,
                                   Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_MEASURE_LOOP_H_
