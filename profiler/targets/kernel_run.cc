#include "targets/kernel_run.h"

#include <memory>

#include "core/derived_metrics.h"
#include "core/stats.h"
#include "counters/model/kernel_model.h"
#include "counters/papi/papi_session.h"

namespace rprof {

bool RunKernel(const KernelRunRequest& request, RunRecord* run, Error* err) {
  const rprof_kernel& kernel = *request.entry->kernel;
  run->target_kind = request.entry->origin == "builtin" ? "builtin" : "plugin";
  run->target = kernel.name;
  run->params = request.shown_params;
  run->precision = PrecisionName(kernel.precision);

  std::vector<Metric> model;
  std::string why;
  if (!KernelModelMetrics(kernel, request.args, &model, &why))
    return Fail(err, ExitStatus::kEnvironment, why);

  const std::vector<std::string>& events =
      request.events_given ? request.events : DefaultPmuEvents();
  std::unique_ptr<CounterSession> pmu;
  if (!events.empty()) {
    pmu = CreatePapiSession(events, request.allow_missing_events || !request.events_given, err);
    if (!pmu) return false;
  }

  rprof_error kernel_error{};
  void* state = kernel.setup(&request.args, &kernel_error);
  if (!state)
    return Fail(err, ExitStatus::kEnvironment,
                std::string("kernel ") + kernel.name + ": setup failed: " + kernel_error.message);

  std::vector<CounterSession*> counters;
  if (pmu) counters.push_back(pmu.get());
  MeasureResult measured;
  run->started_at = UtcNow();
  bool ok = MeasureRepeated([&] { kernel.run(state); }, counters, request.measure, &measured, &why);
  run->ended_at = UtcNow();
  bool correct = ok && !measured.interrupted && kernel.check(state, &kernel_error);
  kernel.teardown(state);
  if (!ok) return Fail(err, ExitStatus::kEnvironment, "counters: " + why);

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
    for (Metric& m : pmu->Results(static_cast<double>(measured.timed_calls)))
      run->metrics.push_back(std::move(m));
  }
  AddDerivedMetrics(&run->metrics);
  return true;
}

}  // namespace rprof
