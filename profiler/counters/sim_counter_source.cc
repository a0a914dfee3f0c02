// The sim source behind the CounterSource interface; the simulation itself is sim_source.cc's
// (or its stub's, in a build without Zydis).

#include <algorithm>
#include <cstdio>

#include "counters/model/kernel_model.h"
#include "counters/sim_source.h"
#include "counters/time_adaptive.h"

namespace rprof {

namespace {

std::optional<double> FindValue(const std::vector<Metric>& metrics, const char* name) {
  const Metric* m = FindMetric(metrics, name, Source::kSim);
  return m ? m->value : std::nullopt;
}

// The native run's instruction count, where the pmu source counted it.
std::optional<double> NativeInstructions(const std::vector<Metric>& so_far) {
  for (const char* name : {"instructions", "PAPI_TOT_INS"})
    if (const Metric* m = FindMetric(so_far, name, Source::kPmu); m && m->value) return m->value;
  return std::nullopt;
}

// Says on every simulated cache metric which cache sizes were simulated.
void NoteCaches(const CacheSizes& caches, std::vector<Metric>* metrics) {
  for (Metric& m : *metrics)
    if (m.name == "l1d_misses" || m.name == "l2_misses" || m.name == "llc_misses" ||
        m.name == "bytes_l2" || m.name == "bytes_l3" || m.name == "bytes_dram")
      m.note += (m.note.empty() ? "" : "; ") + std::string("cache sizes ") + caches.origin;
}

// Fitted on this project's Xeon VM (2 cores, load 1.5-7), issue 13: the valgrind wall time of
// the kernel runner (set-up, warm-up and counted call) for copy n=1e3-2e7, triad n=1e6-2e7 and
// matmul-naive n=128-512, 0.3-13 s. Streaming kernels cost about 5 ns per compulsory byte
// (copy and triad alike: their FLOPs come nearly free), scalar matmul 25 ns per FLOP.
// (Start-up: kSimStartupSeconds, counters/sim_time_fit.h.)
constexpr double kSimSecondsPerByte = 5e-9;
constexpr double kSimSecondsPerFlop = 2.5e-8;
// Never expected faster than this many times the native time (the least measured: 17x, naive
// matmul at n=512, whose native time is mostly cache-miss stalls valgrind does not pay for).
constexpr double kSimLeastSlowdown = 10;
// Without a model, the native time is all there is: callgrind's middle slowdown here (17-63x
// over the kernels above; issue 5 saw 60-360x on programs).
constexpr double kSimSlowdown = 50;
// A size suggested to fit the replay budget is expected within this share of it, so that it
// still fits when the user's run estimates it from a native time a busy machine made slower.
constexpr double kSuggestedSizeBudgetShare = 0.75;

double ModelSeconds(const SimWork& work) {
  return work.flops * kSimSecondsPerFlop + work.bytes * kSimSecondsPerByte;
}

// The model's FLOPs and compulsory bytes of one replay of `kernel` with `args`: two calls (the
// runner's warm-up and its counted call).
bool KernelWork(const rprof_kernel& kernel, const rprof_args& args, double native_s,
                SimWork* work) {
  std::vector<Metric> model;
  // No model, no expected work to check the replay against: the caller goes without.
  if (!KernelModelMetrics(kernel, args, &model, nullptr)) return false;
  const Metric* flops = FindMetric(model, "flops", Source::kModel);
  const Metric* bytes = FindMetric(model, "bytes_dram", Source::kModel);
  work->native_s = native_s;
  work->flops = flops && flops->value ? 2 * *flops->value : 0;
  work->bytes = bytes && bytes->value ? 2 * *bytes->value : 0;
  return true;
}

// Rounded down to two significant digits: 283 -> 280, 5871 -> 5800, 12 -> 12.
int64_t RoundDown2(int64_t v) {
  int64_t scale = 1;
  while (v / scale >= 100) scale *= 10;
  return v / scale * scale;
}

// One execution of the whole program under valgrind, counted from its start and per region.
bool SimulateProgram(const CountedTarget& program, const CacheSizes& caches, int functions,
                     const FunctionSamples* samples, double native_time_s, std::vector<Metric>* out,
                     Error* err, double* wall_s) {
  // The program runs a second time, its output and side effects again: said every time, to a
  // terminal or a log alike (the run's note says it too).
  // A benchmark instance replays under auto too, for one short timed loop.
  std::fprintf(stderr,
               "rprof: executing %s a second time, under valgrind, for the sim counts (%s; its "
               "output is not shown again, its last lines are if it fails)\n",
               program.argv[0].c_str(),
               program.replay_argv.empty() ? "--counters sim" : "one short timed loop of it");
  SimRequest sim;
  sim.argv = program.replay_argv.empty() ? program.argv : program.replay_argv;
  sim.argv[0] = program.path;
  sim.collect_from_start = true;
  sim.per_region = true;
  // The program's output is the timed runs': the replay's, on the user's stdout a second time
  // (or a Google Benchmark table and context that are not the run's), would be mixed into what
  // a script reads from it. A failing replay's last words are in the run's note.
  sim.discard_output = true;
  // A replay of its own (a Google Benchmark instance) counts its functions over its timed loop
  // alone (the shim's region), which its target divides per iteration as it does the loop's
  // counts; without that region, none: over the whole replay they would not be per iteration.
  sim.functions = program.replay_argv.empty() || !program.timed_region.empty() ? functions : 0;
  sim.functions_region = program.replay_argv.empty() ? "" : program.timed_region;
  sim.samples = samples;
  sim.native_time_s = native_time_s;
  SimGeometry(caches, &sim.d1, &sim.ll);
  sim.levels = SimHierarchy(caches);
  sim.prefetch = caches.prefetch;
  SimResult result;
  if (!RunSim(sim, &result, err)) return false;
  *wall_s = result.wall_s;
  NoteCaches(caches, &result.metrics);
  for (Metric& m : result.metrics) out->push_back(std::move(m));
  return true;
}

// REP string instructions are one instruction to a PMU and one per element to valgrind: where
// they are a tenth of the cost, the count says too little.
constexpr double kMostRepCostForCounts = 0.1;

bool UsesInstructionCount(const SimWork& work) {
  return work.code && work.native_instructions && *work.native_instructions > 0 &&
         work.code->ns_per_instruction > 0 && work.code->rep_cost_share < kMostRepCostForCounts;
}

}  // namespace

double EstimateSimSeconds(const SimWork& work) {
  double model = ModelSeconds(work);
  if (model <= 0 && work.code) return SimWorkSeconds(work);
  double slowdown = model > 0 ? kSimLeastSlowdown : kSimSlowdown;
  return kSimStartupSeconds + std::max(model, work.native_s * slowdown);
}

double SimWorkSeconds(const SimWork& work) {
  double model = ModelSeconds(work);
  if (model > 0) return kSimStartupSeconds + model;
  if (!work.code) return kSimStartupSeconds + work.native_s * kSimSlowdown;
  // valgrind waits off the CPU as long as the program did; it runs the CPU time slower, or
  // each counted instruction at the sampled mix's cost.
  const double cpu = work.native_cpu_s > 0 ? work.native_cpu_s : work.native_s;
  const double off_cpu = std::max(0.0, work.native_s - cpu);
  if (UsesInstructionCount(work))
    return kSimStartupSeconds + off_cpu +
           *work.native_instructions * work.code->ns_per_instruction * 1e-9;
  return kSimStartupSeconds + off_cpu + cpu * work.code->slowdown;
}

SimPrior SimWorkPrior(const SimWork& work) {
  SimPrior prior{EstimateSimSeconds(work), "", true};
  if (ModelSeconds(work) > 0 || !work.code) return prior;
  const ReplaySlowdown& code = *work.code;
  char text[200];
  if (UsesInstructionCount(work))
    std::snprintf(text, sizeof text,
                  "no replay of it stored yet: its %.3g counted instructions (pmu) at %.3g ns each "
                  "under rprofsim, its sampled code's mix (%llu of %llu samples decoded",
                  *work.native_instructions, code.ns_per_instruction,
                  static_cast<unsigned long long>(code.decoded),
                  static_cast<unsigned long long>(code.samples));
  else
    std::snprintf(text, sizeof text,
                  "no replay of it stored yet: its sampled code under rprofsim, %.3gx the native "
                  "CPU time (%llu of %llu samples' instructions decoded",
                  code.slowdown, static_cast<unsigned long long>(code.decoded),
                  static_cast<unsigned long long>(code.samples));
  prior.basis = text;
  auto share = [&](double part, const char* what) {
    if (part < 0.01) return;
    std::snprintf(text, sizeof text, "; %.0f %% of it in %s", 100 * part, what);
    prior.basis += text;
  };
  share(code.fma_cost_share, "FMA lanes, a helper call each under valgrind");
  share(code.rep_cost_share, "REP string instructions, one execution per element");
  prior.basis += ")";
  prior.other_targets_scale_it = false;
  return prior;
}

std::string KernelSizeThatFits(const CountedTarget& kernel, double native_s, double budget_s,
                               const SimTimeFit& fit) {
  if (kernel.kind != CountedTarget::Kind::kKernel || !kernel.kernel ||
      kernel.kernel->param_count == 0)
    return "";
  const rprof_kernel& k = *kernel.kernel;
  SimWork given;
  if (!KernelWork(k, kernel.args, native_s, &given)) return "";
  double given_model = ModelSeconds(given);
  // The expected seconds with the first parameter at `v`: the native time scales with the
  // model's work.
  auto expected_at = [&](int64_t v, double* seconds) {
    rprof_args args = kernel.args;
    args.values[0] = v;
    SimWork work;
    if (!KernelWork(k, args, 0, &work)) return false;
    if (given_model > 0) work.native_s = native_s * ModelSeconds(work) / given_model;
    *seconds = fit.Expect(k.name, SimWorkSeconds(work), SimWorkPrior(work)).seconds;
    return true;
  };
  // The largest v in [min, given) that fits with room to spare, by bisection (the estimate
  // grows with the size). The room: the next run's estimate rests on its own native time, which
  // a busy machine moves by tens of percent, and a size suggested at the budget's very edge was
  // then refused when the user ran it (2.0 s expected against --sim-budget 2.0 under load).
  const double fits_within_s = budget_s * kSuggestedSizeBudgetShare;
  int64_t lo = k.params[0].min_value, hi = kernel.args.values[0];
  double seconds = 0;
  if (lo >= hi || !expected_at(lo, &seconds) || seconds > fits_within_s) return "";
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (!expected_at(mid, &seconds)) return "";
    (seconds <= fits_within_s ? lo : hi) = mid;
  }
  std::string fits =
      std::string(k.params[0].name) + " <= " + std::to_string(RoundDown2(lo)) + " would fit";
  return k.param_count > 1 ? fits + ", the other parameters as given" : fits;
}

namespace {

class PreparedSim : public PreparedSource {
 public:
  // `refused`: why this target is never replayed ("" when it may be).
  PreparedSim(bool chosen, const CounterRequest& request, std::string refused)
      : functions_(request.functions),
        chosen_(chosen),
        budget_s_(request.replay_budget_s),
        caches_(request.caches),
        fit_(request.sim_time),
        wait_progress_(request.wait_progress),
        refused_(std::move(refused)) {}

  // Replays only a target that succeeded natively: a failed one has nothing worth simulating.
  bool Finish(const CountedTarget& target, const NativeOutcome& outcome,
              std::vector<Metric>* metrics, std::string* note, Error* err) override {
    if (!outcome.ok) return true;
    if (!refused_.empty()) {
      *note = "sim skipped: " + refused_;
      return true;
    }
    bool kernel = target.kind == CountedTarget::Kind::kKernel;
    SimWork work;
    work.native_s = outcome.replay_native_s;
    if (!kernel || !KernelWork(*target.kernel, target.args, work.native_s, &work)) {
      // A program: its declared model, for its one execution under valgrind.
      const Metric* flops = FindMetric(outcome.so_far, "flops", Source::kModel);
      const Metric* bytes = FindMetric(outcome.so_far, "bytes_dram", Source::kModel);
      work.flops = flops && flops->value ? *flops->value : 0;
      work.bytes = bytes && bytes->value ? *bytes->value : 0;
      if (const FunctionSamples* sampled = outcome.function_samples) {
        work.code = SampledReplaySlowdown(*sampled);
        // A Google Benchmark's counts are its timed loop's, not the replay's.
        if (target.replay_argv.empty())
          work.native_instructions = NativeInstructions(outcome.so_far);
        // A replay of its own (a Google Benchmark instance's loop) is CPU time already.
        work.native_cpu_s =
            !target.replay_argv.empty() || sampled->executions == 0
                ? work.native_s
                : sampled->total * sampled->period_s / static_cast<double>(sampled->executions);
      }
    }
    // The reference cost of the work, and what replays took here before, make the expectation.
    double work_s = SimWorkSeconds(work);
    SimTimeExpectation expected = fit_.Expect(
        kernel ? std::string(target.kernel->name) : target.path, work_s, SimWorkPrior(work));
    std::string fits;
    if (!chosen_ && expected.seconds > budget_s_ && kernel)
      fits = KernelSizeThatFits(target, work.native_s, budget_s_, fit_);
    Error why;
    if (!ShouldRunSim(chosen_ ? SimMode::kAlways : SimMode::kAuto, expected.seconds, budget_s_,
                      fits, &why)) {
      if (chosen_) return Fail(err, ErrorKind::kEnvironment, "sim: " + why.message);
      *note = why.message;
      return true;
    }
    double wall_s = 0;
    if (kernel) {
      // valgrind's wait says nothing of itself: its time against the estimate, on a terminal
      // (never for a program, whose own output shares the terminal).
      std::shared_ptr<void> progress =
          wait_progress_
              ? wait_progress_(std::string("sim: ") + target.kernel->name + " under valgrind",
                               expected.seconds)
              : nullptr;
      if (!SimulateKernel(target, caches_, metrics, err, &wall_s)) return false;
      AddReplayTime(work_s, expected, wall_s, metrics);
      return true;
    }
    *note = target.replay_argv.empty()
                ? "executed once more after its timed executions, under valgrind, for the sim "
                  "counts"
                : "executed once more, for the fewest iterations, under valgrind, for the sim "
                  "counts";
    if (!SimulateProgram(target, caches_, functions_, outcome.function_samples,
                         outcome.time_s.value_or(0), metrics, err, &wall_s))
      return false;
    AddReplayTime(work_s, expected, wall_s, metrics);
    // A program whose work depends on time did other work under valgrind: its counts do not go
    // with the native time, so none is kept. (A replay of its own, replay_argv, does other
    // work by design: its target divides the counts by the replay's own work.)
    if (auto mismatch =
            WorkMismatch(NativeInstructions(outcome.so_far), FindValue(*metrics, "instructions"));
        mismatch && target.replay_argv.empty()) {
      metrics->clear();
      *note += "; sim counts dropped: " + *mismatch;
    }
    return true;
  }

 private:
  // The replay's time, measured, and its work in reference seconds: what the next expectation
  // on this machine is fitted to (counters/sim_time_fit.h).
  void AddReplayTime(double work_s, const SimTimeExpectation& expected, double wall_s,
                     std::vector<Metric>* metrics) const {
    metrics->push_back({kSimReplayMetric, wall_s, "s", Source::kClock, "",
                        SimReplayMeasuredNote(SimulatorName(), expected)});
    metrics->push_back(
        {kSimReplayMetric, work_s, "s", Source::kModel, "", SimReplayReferenceNote()});
  }

  int functions_;  // hot functions counted on their own (SimRequest::functions)
  bool chosen_;
  double budget_s_;
  CacheSizes caches_;
  SimTimeFit fit_;
  std::function<std::shared_ptr<void>(const std::string&, double)> wait_progress_;
  std::string refused_;
};

class SimSource : public CounterSource {
 public:
  Source id() const override { return Source::kSim; }
  const char* summary() const override {
    return "rprof's own valgrind tool rprofsim (callgrind where it is missing): every "
           "instruction decoded with Zydis and every cache level simulated, exact FLOPs and "
           "bytes";
  }
  CounterScope scope(CountedTarget::Kind) const override { return CounterScope::kReplayed; }
  Availability Probe() const override { return SimAvailability(); }
  // A benchmark harness is refused before anything runs: chosen outright, it is an error (the
  // program has not run yet, nothing is lost); under auto, the run says why sim was skipped.
  std::unique_ptr<PreparedSource> Prepare(const CountedTarget& target,
                                          const CounterRequest& request, bool chosen,
                                          Error* err) const override {
    std::string refused;
    if (target.kind == CountedTarget::Kind::kProgram && target.replay_argv.empty() &&
        IsGoogleBenchmarkBinary(target.path))
      refused = target.argv[0] +
                " is a Google Benchmark binary: it repeats each benchmark until its time is "
                "up, so under valgrind it runs far fewer iterations, and the counts cannot be "
                "divided by the native time";
    if (chosen && !refused.empty()) {
      Fail(err, ErrorKind::kUsage, "sim: " + refused + "; count it with the pmu source");
      return nullptr;
    }
    // A rank of an MPI job: its second execution, under valgrind, would start outside the job
    // (the launcher served the native one, which finalized) and die in MPI_Init; what an aborted
    // replay counted is not the rank's work. Refused before anything runs: nothing is lost.
    if (target.kind == CountedTarget::Kind::kProgram && !request.job_launcher.empty()) {
      refused = target.argv[0] + " runs as a rank of a parallel job (" + request.job_launcher +
                "): sim replays a program after it ran, and a rank cannot be executed again "
                "outside its launcher (its MPI_Init fails there)";
      if (chosen) {
        Fail(err, ErrorKind::kEnvironment,
             "sim: " + refused +
                 "; count the job with --counters pmu (or model), or count one process alone "
                 "with sim, without the launcher: `rprof --counters sim " +
                 target.argv[0] + "` (an MPI program runs as a one-rank job)");
        return nullptr;
      }
    }
    // A user's program is executed as many times as the command says: under auto, counting it
    // with sim would execute it a second time, so that takes asking for sim by name.
    if (!chosen && refused.empty() && target.kind == CountedTarget::Kind::kProgram &&
        target.replay_argv.empty())
      refused = "counting " + target.argv[0] +
                " with sim executes it a second time, under valgrind; --counters sim asks "
                "for that";
    return std::make_unique<PreparedSim>(chosen, request, std::move(refused));
  }
};

}  // namespace

bool SimulateKernel(const CountedTarget& kernel, const CacheSizes& caches, std::vector<Metric>* out,
                    Error* err, double* wall_s) {
  const rprof_kernel& k = *kernel.kernel;
  SimRequest sim;
  sim.argv = {SimRunnerPath()};
  if (!kernel.plugin.empty()) sim.argv.insert(sim.argv.end(), {"--plugin", kernel.plugin});
  sim.argv.push_back(k.name);
  for (uint32_t i = 0; i < k.param_count; ++i)
    sim.argv.push_back(std::to_string(kernel.args.values[i]));
  SimGeometry(caches, &sim.d1, &sim.ll);
  sim.levels = SimHierarchy(caches);
  sim.prefetch = caches.prefetch;
  SimResult result;
  // A runner that fails (its check, a crash) fails RunSim: its counts are not the kernel's.
  if (!RunSim(sim, &result, err)) return false;
  if (wall_s) *wall_s = result.wall_s;
  NoteCaches(caches, &result.metrics);
  for (Metric& m : result.metrics) {
    if (m.name == "flops") m.note += "; AVX2 build of the kernel (valgrind cannot run AVX-512)";
    out->push_back(std::move(m));
  }
  return true;
}

const CounterSource& SimCounterSource() {
  static const SimSource source;
  return source;
}

}  // namespace rprof
