// One benchmark instance of a Google Benchmark binary as a target (kind `benchmark`): the binary
// executed with only that instance selected, its JSON written to rprof's scratch folder (its
// standard output stays the user's), and rprof's shim preloaded (profiler/gbench/gbench_shim.cc)
// so that a marker region brackets exactly the timed loop. Time per iteration is Google
// Benchmark's own; pmu and sim counts are the region's totals divided by the iterations the
// shim counted in that execution (the native one for pmu, the replay for sim, which runs the
// fewest iterations the binary allows); model counts come from the benchmark's own counters.
// With T threads an iteration is one step of all T (each runs its own loop; Google Benchmark's
// time per iteration is the wall time of one step, its rates the throughput of all threads):
// the counts are the work of T loop iterations.
//
//   BenchmarkEnvironment env(shim, region);   // around Measure: native run and replay
//   Measure(target, ...);
//   target.Conclude(&run);                    // per iteration, of the timed loop
#ifndef RPROF_TARGETS_BENCHMARK_TARGET_H_
#define RPROF_TARGETS_BENCHMARK_TARGET_H_

#include <optional>
#include <string>
#include <vector>

#include "targets/benchmark_binary.h"
#include "targets/benchmark_json.h"
#include "targets/target.h"

namespace rprof {

// The shim's variables in rprof's own environment while one instance is measured, so that the
// native execution and the sim replay (valgrind passes the environment on) both load it; the
// previous values are restored when it goes out of scope.
class BenchmarkEnvironment {
 public:
  BenchmarkEnvironment(const std::string& shim, const std::string& region,
                       const std::string& iterations_file);
  ~BenchmarkEnvironment();
  BenchmarkEnvironment(const BenchmarkEnvironment&) = delete;
  BenchmarkEnvironment& operator=(const BenchmarkEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Where the shim is: beside rprof as built (profiler/gbench/), else in $libdir/rprof.
std::string GbenchShimPath();

class BenchmarkTarget : public Target {
 public:
  // `benchmark_args`: the user's --benchmark_* options (their own filter is replaced by the
  // instance's). `invocation`: the uid shared by this invocation's runs.
  BenchmarkTarget(const BenchmarkBinary& binary, std::string argv0, std::string instance,
                  std::vector<std::string> benchmark_args, std::string iterations_file,
                  double timeout_s);

  const CountedTarget& counted() const override { return counted_; }
  void Describe(RunRecord* run) const override;
  bool Execute(const LiveCounters& counters, Execution* out, Error* err) override;

  // After Measure: the region's pmu and sim totals divided by the iterations counted (the
  // whole process's own counts dropped: they are not the timed loop), derived metrics again,
  // and a trust note where a declared FLOP counter and sim disagree by more than 5 %.
  void Conclude(RunRecord* run) const;

 private:
  CountedTarget counted_;
  std::vector<std::string> command_;  // as the user typed it: the binary, its own options
  std::string instance_;
  std::string json_file_, replay_json_file_, iterations_file_;
  double timeout_s_;
  bool shim_applies_;
  std::optional<double> native_iterations_;
  int64_t threads_ = 1;  // Google Benchmark's threads of this instance
  std::string no_iterations_reason_;
};

// "loops 7, iterations 277752" as the shim writes it: the iterations, or nullopt.
std::optional<double> ReadShimIterations(const std::string& path);

}  // namespace rprof

#endif  // RPROF_TARGETS_BENCHMARK_TARGET_H_
