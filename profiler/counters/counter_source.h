// The one interface every counter source implements (pmu, sim, model; see source_registry.h).
// A source is probed (can it count here, and if not why), then prepared for one target; what it
// does while the target runs depends on its scope, and afterwards it returns metrics, each with
// its source, unit, note and coverage. The measuring driver (targets/measure.h) is the only
// caller: it treats every source alike and never names one.
#ifndef RPROF_COUNTERS_COUNTER_SOURCE_H_
#define RPROF_COUNTERS_COUNTER_SOURCE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "counters/counter_session.h"
#include "counters/sim_time_fit.h"
#include "functions/function_sampler.h"
#include "rprof/kernel.h"

namespace rprof {

struct GroupPlan;

// Whether a source can count on this machine; when not, why and what to do about it.
struct Availability {
  bool available = true;
  std::string cause;   // "valgrind not found"
  std::string remedy;  // "install the Debian package valgrind (apt-get install valgrind)"
  // "cause; remedy", for a one-line message.
  std::string Text() const { return remedy.empty() ? cause : cause + "; " + remedy; }
};

// When a source counts, relative to the native execution of the target.
enum class CounterScope {
  kPerRepetition,  // started and stopped around each timed repetition, in the measuring thread
  kPerProcess,     // opened on the program before it execs, read after it exits
  kReplayed,       // the target executed once more under a simulator, after the native runs
  kStatic,         // computed from formulas: nothing runs
};

// The target as sources see it: enough to count it, to model it and to run it again.
struct CountedTarget {
  enum class Kind { kKernel, kProgram } kind = Kind::kKernel;
  // Kernels (built-in or from a plugin): the kernel, its arguments, the plugin's path ("" for a
  // built-in one).
  const rprof_kernel* kernel = nullptr;
  rprof_args args{};
  std::string plugin;
  // Programs: the file to execute and its argv (argv[0] as the user wrote it).
  std::string path;
  std::vector<std::string> argv;
  // Programs made to be run again (a Google Benchmark instance, targets/benchmark_target.h):
  // the command line of the sim replay, which then runs under auto too. Empty: argv, and sim
  // only when chosen.
  std::vector<std::string> replay_argv;
  // Programs whose timed part is one marker region (a Google Benchmark instance's timed loop,
  // bracketed by rprof's shim): a replay counts their hot functions there. "": the whole
  // execution.
  std::string timed_region;
  // Programs: the model of one execution, as the user declared it.
  std::optional<double> declared_flops;
  std::optional<double> declared_bytes;
};

// The cache sizes a source that simulates caches should model (callgrind has a first-level
// data cache and a last level), and where they come from.
struct CacheSizes {
  uint64_t l1d_bytes = 0;  // 0: what sysfs reports
  uint64_t llc_bytes = 0;  // 0: what sysfs reports
  uint64_t l2_bytes = 0;   // a middle level 2 (rprofsim only; callgrind has none); 0: sysfs's
  // The sizes above the user gave (--sim-cache l1=48K,l2=2M,l3=32M): simulated as given, rounded
  // down to whole sets; the others a machine profile measured (to the nearest set count).
  bool l1d_given = false;
  bool llc_given = false;
  bool l2_given = false;
  std::string prefetch;  // rprofsim's prefetch model: "" (none), "next-line" or "stride"
  std::string origin = "reported by sysfs";
};

// What the user asked of the counters, for every source (each reads what concerns it).
struct CounterRequest {
  // pmu: the events; when `events_given` is false the default set is counted and events that
  // cannot be counted are absent with their reason, never fatal.
  std::vector<std::string> events;
  bool events_given = false;
  bool allow_missing_events = false;
  const GroupPlan* groups = nullptr;  // metric groups: their events counted, formulas applied
  // Replayed sources: the longest the replay may be expected to take when not chosen outright,
  // and what replays took on this machine before (the expectation's history).
  double replay_budget_s = 20;
  SimTimeFit sim_time;
  // Simulating sources: the hierarchy to simulate.
  CacheSizes caches;
  // A rank of a parallel job: the launcher that started it ("openmpi", "pmix", "hydra",
  // "slurm"; JobRank::launcher); "" outside a job. A replayed source cannot execute a rank a
  // second time outside its launcher.
  std::string job_launcher;
  // A long wait that cannot say how far it is (valgrind replaying a kernel): called with what
  // is waited for and the seconds it is expected to take; what it returns shows progress until
  // destroyed. Empty: nothing is shown. The command line hands its progress line down
  // (report/progress.h's StartElapsedProgress): counters draw nothing of their own.
  std::function<std::shared_ptr<void>(const std::string& what, double expected_s)> wait_progress;
  // Programs: how many hot functions get a point of their own (--functions; 0: off). Their
  // native executions are then sampled (NativeOutcome::function_samples).
  int functions = 0;
};

// What the driver knows once the target has run natively, for the sources to finish with.
struct NativeOutcome {
  bool ok = false;               // the target ran to the end and succeeded (check passed, exit 0)
  double calls = 0;              // calls of the target the per-repetition counters saw
  std::optional<double> time_s;  // median seconds per call (kernels) or per execution
  double replay_native_s = 0;    // native seconds one replay would take (warm-up included)
  std::vector<Metric> so_far;    // the metrics of the sources finished before this one
  // A program's native executions, sampled per function (--functions; the driver samples them
  // whatever the sources): what a source counting per function joins its counts to by name.
  // nullptr: not sampled (--functions off, or a kernel).
  const FunctionSamples* function_samples = nullptr;
};

// A program's counters, opened on each execution (the pmu source on programs).
class ProcessCounting {
 public:
  virtual ~ProcessCounting() = default;
  // Opens the counters on `pid`, a child that has not exec'd yet. False with *err when an event
  // the user insisted on cannot be counted: the program is then not run.
  [[nodiscard]] virtual bool Attach(pid_t pid, Error* err) = 0;
  // The events that opened on the last Attach, as the marker library should count them.
  virtual std::vector<std::string> Counted() const = 0;
  // After the execution ended: reads and keeps its counts.
  virtual void Collect() = 0;
};

// One source prepared for one target. Per-repetition and per-process sources hand the target
// what it counts with; every source then finishes into metrics.
class PreparedSource {
 public:
  virtual ~PreparedSource() = default;
  virtual CounterSession* per_repetition() { return nullptr; }
  virtual ProcessCounting* per_process() { return nullptr; }
  // The source's metrics for the run, per call (kernels) or per execution (programs). `note`
  // gets what the run should say about this source (e.g. why a replay was skipped). False with
  // *err when the source was chosen outright and could not count, or its counting failed:
  // nothing is then stored.
  virtual bool Finish(const CountedTarget& target, const NativeOutcome& outcome,
                      std::vector<Metric>* metrics, std::string* note, Error* err) = 0;
};

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual Source id() const = 0;
  // One line for `rprof doctor` and help: what the source counts and how.
  virtual const char* summary() const = 0;
  virtual CounterScope scope(CountedTarget::Kind kind) const = 0;
  // Whether the source can count on this machine, found by trying.
  virtual Availability Probe() const = 0;
  // Prepares counting `target`. `chosen`: the user chose this source by name (--counters), so
  // it must count or say why; otherwise it counts where it can and fits. nullptr with *err
  // when it cannot be prepared (an event the user insisted on, a broken model formula).
  virtual std::unique_ptr<PreparedSource> Prepare(const CountedTarget& target,
                                                  const CounterRequest& request, bool chosen,
                                                  Error* err) const = 0;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_COUNTER_SOURCE_H_
