// How long a replay under valgrind will take here: its work in reference seconds
// (SimWorkSeconds: the model's FLOPs and compulsory bytes at what callgrind took per FLOP and per
// byte on another machine) scaled by what the replays stored before took on this machine, under
// this simulator.
//
// The model, in one line: expected = start-up + f x (work - start-up), where f is the median,
// over the newest stored replays, of (measured - start-up) / (work - start-up): seconds per
// reference second. f comes from the newest replays of the same target when there are some
// (the cost per model FLOP or byte differs between kernels: scalar or vectorised, loads per
// FLOP, cache misses), else from the newest replays of any target (this machine's and this
// simulator's speed, and the load it has been under). With no replay stored, the prior:
// EstimateSimSeconds, the work's reference cost or a multiple of the native time, whichever is
// more; for a program, the cost of its sampled code under rprofsim (SimPrior), which other
// targets' factors do not rescale. rprofsim and callgrind are fitted apart (rprofsim is 1.6-2x the
// faster), as are machines.
//
// Each stored replay keeps what the fit needs as the metric sim_replay_s of its run: source
// clock, valgrind's wall time, its note opening with the simulator's name ("rprofsim: ..."),
// and source model, the replay's work in reference seconds.
#ifndef RPROF_COUNTERS_SIM_TIME_FIT_H_
#define RPROF_COUNTERS_SIM_TIME_FIT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"

namespace rprof {

// The start-up of valgrind and its tool, paid by every replay, whatever its work [s].
inline constexpr double kSimStartupSeconds = 0.4;

// The metric a replay stores its time under (sources clock and model, see above).
inline constexpr const char* kSimReplayMetric = "sim_replay_s";

// One stored replay.
struct SimReplayRecord {
  std::string target;  // the run's target: a kernel's name, a program's path
  double work_s = 0;   // its work in reference seconds (SimWorkSeconds)
  double measured_s = 0;
};

// What a replay is expected to take, and on what the expectation rests, in words: "median of
// the newest 3 replays of matmul-naive under rprofsim on this machine, 0.41x the reference cost".
struct SimTimeExpectation {
  double seconds = 0;
  std::optional<double> factor;  // f above; none: the prior
  std::string basis;
};

// What a replay is expected to take before a replay of its own target is stored here.
struct SimPrior {
  double seconds = 0;  // EstimateSimSeconds
  // What it rests on, in words; "" for the reference cost of the work.
  std::string basis;
  // Other targets' replays may scale the work instead: it is in reference seconds, which they
  // turn into this machine's. false: the prior is this simulator's own time already (the
  // sampled code's cost per instruction under rprofsim, counters/sim/replay_cost.h), which a
  // factor fitted to reference seconds would only skew.
  bool other_targets_scale_it = true;
};

class SimTimeFit {
 public:
  // No history: the prior, as it is.
  SimTimeFit() = default;
  // `newest_first`: this machine's replays under `simulator`, the newest first.
  SimTimeFit(std::string simulator, std::vector<SimReplayRecord> newest_first);

  // The expected seconds of a replay of `target` whose work is `work_s` reference seconds
  // (SimWorkSeconds); `prior` when no stored replay says better.
  SimTimeExpectation Expect(const std::string& target, double work_s, const SimPrior& prior) const;

  const std::string& simulator() const { return simulator_; }

 private:
  std::string simulator_;
  std::vector<SimReplayRecord> replays_;  // only those that say something of the speed
};

// The notes of the two sim_replay_s metrics a replay stores.
std::string SimReplayMeasuredNote(const std::string& simulator, const SimTimeExpectation& expected);
std::string SimReplayReferenceNote();

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_TIME_FIT_H_
