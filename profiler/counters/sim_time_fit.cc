#include "counters/sim_time_fit.h"

#include <algorithm>
#include <cstdio>

namespace rprof {

namespace {

// A replay whose work the reference puts under this many seconds beyond start-up says more of
// start-up (and of the machine's load at that moment) than of the simulator's speed.
constexpr double kLeastInformativeWorkSeconds = 0.5;
// How many of the newest replays the median takes: of the same target, and of any. Few enough
// that a faster build or a quieter machine shows within a few runs, enough that one replay
// slowed by a busy moment does not move it.
constexpr size_t kTargetReplays = 5;
constexpr size_t kMachineReplays = 15;
// No factor below this: a replay that took less than start-up (the constant is this project's
// guess for every machine) must not make the next one look free.
constexpr double kLeastFactor = 0.05;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Factor(const SimReplayRecord& r) {
  return std::max(kLeastFactor,
                  (r.measured_s - kSimStartupSeconds) / (r.work_s - kSimStartupSeconds));
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Format(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

SimTimeFit::SimTimeFit(std::string simulator, std::vector<SimReplayRecord> newest_first)
    : simulator_(std::move(simulator)) {
  for (SimReplayRecord& r : newest_first)
    if (r.work_s - kSimStartupSeconds >= kLeastInformativeWorkSeconds && r.measured_s > 0)
      replays_.push_back(std::move(r));
}

SimTimeExpectation SimTimeFit::Expect(const std::string& target, double work_s,
                                      const SimPrior& prior) const {
  SimTimeExpectation e;
  std::vector<double> same, any;
  for (const SimReplayRecord& r : replays_) {
    if (r.target == target && same.size() < kTargetReplays) same.push_back(Factor(r));
    if (prior.other_targets_scale_it && any.size() < kMachineReplays) any.push_back(Factor(r));
  }
  if (same.empty() && any.empty()) {
    e.seconds = prior.seconds;
    e.basis = !prior.basis.empty()
                  ? prior.basis
                  : std::string("no replay under ") +
                        (simulator_.empty() ? "this simulator" : simulator_) +
                        " stored for this machine yet: the reference cost of the work, at least "
                        "10x the native time";
    return e;
  }
  e.factor = Median(same.empty() ? any : same);
  std::string of = same.empty() ? "none of " + target + " yet: median of the newest " +
                                      Plural(any.size(), "replay", "replays")
                                : "median of the newest " +
                                      Plural(same.size(), "replay", "replays") + " of " + target;
  e.basis = of + " under " + simulator_ + " on this machine, " + Format("%.2g", *e.factor) +
            "x the reference cost of the work";
  e.seconds = kSimStartupSeconds + *e.factor * std::max(0.0, work_s - kSimStartupSeconds);
  return e;
}

std::string SimReplayMeasuredNote(const std::string& simulator,
                                  const SimTimeExpectation& expected) {
  return simulator + ": valgrind's wall time for the replay (the kernel's set-up, warm-up and " +
         "counted call; a program's whole execution); expected " +
         Format("%.3g", expected.seconds) + " s (" + expected.basis + ")";
}

std::string SimReplayReferenceNote() {
  return "the replay's work in reference seconds: 0.4 s start-up, 25 ns per model FLOP and "
         "5 ns per compulsory byte (without a model, 50x the native time), as callgrind took "
         "on this project's Xeon VM (issue 13); not this machine's time";
}

}  // namespace rprof
