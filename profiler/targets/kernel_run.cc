#include "targets/kernel_run.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/derived_metrics.h"
#include "core/stats.h"
#include "counters/model/kernel_model.h"
#include "counters/papi/papi_session.h"

namespace rprof {

namespace {

// Counts one call of the kernel under valgrind (see KernelRunRequest::sim). Adds the sim
// metrics, or a note saying why sim did not run.
bool RunKernelSim(const KernelRunRequest& request, double native_s, RunRecord* run, Error* err) {
  std::string why;
  const Metric* flops = FindMetric(run->metrics, "flops", Source::kModel);
  double sim_flops = flops && flops->value ? 2 * *flops->value : 0;  // warm-up + counted call
  if (!ShouldRunSim(request.sim, native_s, sim_flops, request.sim_budget_s, &why)) {
    if (request.sim == SimMode::kAlways)
      return Fail(err, ErrorKind::kEnvironment, "--counters sim: " + why);
    if (request.sim == SimMode::kAuto && !why.empty())
      run->note += (run->note.empty() ? "" : "; ") + why;
    return true;
  }
  std::vector<Metric> metrics;
  if (!SimulateKernel(*request.entry, request.args, &metrics, err)) return false;
  run->sources.push_back("sim");
  for (Metric& m : metrics) run->metrics.push_back(std::move(m));
  return true;
}

}  // namespace

bool SimulateKernel(const CatalogEntry& entry, const rprof_args& args, std::vector<Metric>* out,
                    Error* err) {
  const rprof_kernel& kernel = *entry.kernel;
  SimRequest sim;
  sim.argv = {SimRunnerPath()};
  if (entry.origin != "builtin") sim.argv.insert(sim.argv.end(), {"--plugin", entry.origin});
  sim.argv.push_back(kernel.name);
  for (uint32_t i = 0; i < kernel.param_count; ++i)
    sim.argv.push_back(std::to_string(args.values[i]));
  SimGeometryForThisMachine(&sim.d1, &sim.ll);
  SimResult result;
  if (!RunSim(sim, &result, err)) return false;
  if (result.exit_code != 0)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("sim: the kernel runner failed under valgrind (exit ") +
                    std::to_string(result.exit_code) + "); its message is above");
  for (Metric& m : result.metrics) {
    if (m.name == "flops") m.note += "; AVX2 build of the kernel (valgrind cannot run AVX-512)";
    out->push_back(std::move(m));
  }
  return true;
}

bool RunKernel(const KernelRunRequest& request, RunRecord* run, Error* err) {
  const rprof_kernel& kernel = *request.entry->kernel;
  run->target_kind = request.entry->origin == "builtin" ? "builtin" : "plugin";
  run->target = kernel.name;
  if (request.entry->origin != "builtin") run->command = {request.entry->origin};  // the .so
  run->params = request.shown_params;
  run->precision = PrecisionName(kernel.precision);

  std::vector<Metric> model;
  std::string why;
  if (!KernelModelMetrics(kernel, request.args, &model, &why))
    return Fail(err, ErrorKind::kEnvironment, why);

  std::vector<std::string> events = request.events_given ? request.events : DefaultPmuEvents();
  if (request.groups)
    for (const std::string& e : request.groups->events)
      if (std::find(events.begin(), events.end(), e) == events.end()) events.push_back(e);
  std::unique_ptr<CounterSession> pmu;
  if (request.use_pmu && !events.empty()) {
    bool user_events_strict = request.events_given && !request.allow_missing_events;
    // With groups, which events may be missing is decided per event below.
    pmu = CreatePapiSession(events, !user_events_strict || request.groups != nullptr, err);
    if (!pmu) return false;
    if (request.groups) {
      std::vector<Metric> opened = pmu->Results(1);
      if (!CheckRequiredEvents(*request.groups, opened, err)) return false;
      if (user_events_strict)
        for (const Metric& m : opened)
          if (!m.value && std::find(request.events.begin(), request.events.end(), m.name) !=
                              request.events.end())
            return Fail(err, ErrorKind::kEnvironment,
                        "cannot open event " + m.name + ": " + m.note +
                            " (--allow-missing-events runs without it)");
    }
  }

  rprof_error kernel_error{};
  auto setup_start = std::chrono::steady_clock::now();
  void* state = kernel.setup(&request.args, &kernel_error);
  double setup_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
  if (!state)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("kernel ") + kernel.name + ": setup failed: " + kernel_error.message);

  std::vector<CounterSession*> counters;
  if (pmu) counters.push_back(pmu.get());
  MeasureResult measured;
  run->started_at = UtcNow();
  bool ok = MeasureRepeated([&] { kernel.run(state); }, counters, request.measure, &measured, &why);
  run->ended_at = UtcNow();
  bool correct = ok && !measured.interrupted && kernel.check(state, &kernel_error);
  kernel.teardown(state);
  if (!ok) return Fail(err, ErrorKind::kEnvironment, "counters: " + why);

  run->samples = measured.seconds_per_call;
  run->calls_per_rep = measured.calls_per_repetition;
  run->sources = {"clock", "model"};
  if (measured.interrupted) {
    run->status = RunStatus::kInterrupted;
    run->note = "interrupted after " + std::to_string(run->samples.size()) + " repetitions";
  } else if (!correct) {
    run->status = RunStatus::kFailed;
    run->note = std::string("check failed: ") + kernel_error.message;
  }

  if (!run->samples.empty()) {
    SampleStats stats = Summarize(run->samples);
    run->metrics.push_back({"time_s", stats.median, "s", Source::kClock, "",
                            "median of " + std::to_string(stats.count) + " repetitions"});
  }
  run->metrics.insert(run->metrics.end(), model.begin(), model.end());
  if (pmu && measured.timed_calls > 0) {
    run->sources.push_back("pmu");
    std::vector<Metric> raw = pmu->Results(static_cast<double>(measured.timed_calls));
    if (request.groups) {
      std::optional<double> time_s = Summarize(run->samples).median;
      for (Metric& m : GroupMetrics(*request.groups, raw, time_s)) run->metrics.push_back(m);
    }
    for (Metric& m : raw) run->metrics.push_back(std::move(m));
  }
  if (run->status == RunStatus::kOk && !run->samples.empty() &&
      !RunKernelSim(request, setup_s + 2 * Summarize(run->samples).median, run, err))
    return false;
  AddDerivedMetrics(&run->metrics);
  return true;
}

}  // namespace rprof
