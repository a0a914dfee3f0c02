// The sim source behind the CounterSource interface; the simulation itself is sim_source.cc's
// (or its stub's, in a build without Zydis).
#include <unistd.h>

#include <cstdio>

#include "counters/sim_source.h"

namespace rprof {

namespace {

// Says on every simulated cache metric which cache sizes were simulated.
void NoteCaches(const CacheSizes& caches, std::vector<Metric>* metrics) {
  for (Metric& m : *metrics)
    if (m.name == "l1d_misses" || m.name == "llc_misses" || m.name == "bytes_l2" ||
        m.name == "bytes_dram")
      m.note += (m.note.empty() ? "" : "; ") + std::string("cache sizes ") + caches.origin;
}

// One execution of the whole program under valgrind, counted from its start and per region.
bool SimulateProgram(const CountedTarget& program, const CacheSizes& caches,
                     std::vector<Metric>* out, Error* err) {
  // The program runs once more, and its output appears again: say why, to a person.
  if (isatty(STDERR_FILENO))
    std::fprintf(stderr,
                 "rprof: running %s once more under valgrind for the sim counts "
                 "(--counters pmu skips this)\n",
                 program.argv[0].c_str());
  SimRequest sim;
  sim.argv = program.argv;
  sim.argv[0] = program.path;
  sim.collect_from_start = true;
  sim.per_region = true;
  SimGeometry(caches, &sim.d1, &sim.ll);
  SimResult result;
  if (!RunSim(sim, &result, err)) return false;
  NoteCaches(caches, &result.metrics);
  for (Metric& m : result.metrics) out->push_back(std::move(m));
  return true;
}

class PreparedSim : public PreparedSource {
 public:
  PreparedSim(bool chosen, double budget_s, CacheSizes caches)
      : chosen_(chosen), budget_s_(budget_s), caches_(std::move(caches)) {}

  // Replays only a target that succeeded natively: a failed one has nothing worth simulating.
  bool Finish(const CountedTarget& target, const NativeOutcome& outcome,
              std::vector<Metric>* metrics, std::string* note, Error* err) override {
    if (!outcome.ok) return true;
    bool kernel = target.kind == CountedTarget::Kind::kKernel;
    const Metric* model = FindMetric(outcome.so_far, "flops", Source::kModel);
    double flops = model && model->value ? *model->value : 0;
    if (kernel) flops *= 2;  // the runner's warm-up call and its counted call
    std::string why;
    if (!ShouldRunSim(chosen_ ? SimMode::kAlways : SimMode::kAuto, outcome.replay_native_s, flops,
                      budget_s_, &why)) {
      if (chosen_) return Fail(err, ErrorKind::kEnvironment, "sim: " + why);
      *note = why;
      return true;
    }
    return kernel ? SimulateKernel(target, caches_, metrics, err)
                  : SimulateProgram(target, caches_, metrics, err);
  }

 private:
  bool chosen_;
  double budget_s_;
  CacheSizes caches_;
};

class SimSource : public CounterSource {
 public:
  Source id() const override { return Source::kSim; }
  const char* summary() const override {
    return "valgrind's callgrind with its cache simulator, instructions decoded with Zydis: "
           "exact FLOPs and bytes";
  }
  CounterScope scope(CountedTarget::Kind) const override { return CounterScope::kReplayed; }
  Availability Probe() const override { return SimAvailability(); }
  std::unique_ptr<PreparedSource> Prepare(const CountedTarget&, const CounterRequest& request,
                                          bool chosen, Error*) const override {
    return std::make_unique<PreparedSim>(chosen, request.replay_budget_s, request.caches);
  }
};

}  // namespace

bool SimulateKernel(const CountedTarget& kernel, const CacheSizes& caches,
                    std::vector<Metric>* out, Error* err) {
  const rprof_kernel& k = *kernel.kernel;
  SimRequest sim;
  sim.argv = {SimRunnerPath()};
  if (!kernel.plugin.empty()) sim.argv.insert(sim.argv.end(), {"--plugin", kernel.plugin});
  sim.argv.push_back(k.name);
  for (uint32_t i = 0; i < k.param_count; ++i)
    sim.argv.push_back(std::to_string(kernel.args.values[i]));
  SimGeometry(caches, &sim.d1, &sim.ll);
  SimResult result;
  if (!RunSim(sim, &result, err)) return false;
  if (result.exit_code != 0)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("sim: the kernel runner failed under valgrind (exit ") +
                    std::to_string(result.exit_code) + "); its message is above");
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
