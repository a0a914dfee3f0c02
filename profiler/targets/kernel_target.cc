#include "targets/kernel_target.h"

#include <chrono>

#include "core/stats.h"
#include "process/interruption.h"

namespace rprof {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CountedTarget CountedKernel(const CatalogEntry& entry, const rprof_args& args) {
  CountedTarget t;
  t.kind = CountedTarget::Kind::kKernel;
  t.kernel = entry.kernel;
  t.args = args;
  if (entry.origin != "builtin") t.plugin = entry.origin;
  return t;
}

KernelTarget::KernelTarget(const CatalogEntry& entry, const rprof_args& args,
                           KeyValues shown_params, MeasureOptions measure)
    : entry_(entry),
      counted_(CountedKernel(entry, args)),
      shown_params_(std::move(shown_params)),
      measure_(measure) {}

void KernelTarget::Describe(RunRecord* run) const {
  const rprof_kernel& kernel = *entry_.kernel;
  run->target_kind = counted_.plugin.empty() ? "builtin" : "plugin";
  run->target = kernel.name;
  if (!counted_.plugin.empty()) run->command = {counted_.plugin};  // the .so
  run->params = shown_params_;
  run->precision = PrecisionName(kernel.precision);
}

bool KernelTarget::Execute(const LiveCounters& counters, Execution* out, Error* err) {
  const rprof_kernel& kernel = *entry_.kernel;
  rprof_error kernel_error{};
  auto setup_start = std::chrono::steady_clock::now();
  void* state = kernel.setup(&counted_.args, &kernel_error);
  double setup_s = SecondsSince(setup_start);
  if (!state)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("kernel ") + kernel.name + ": setup failed: " + kernel_error.message);

  // Signals end the measurement between repetitions (process/interruption.h).
  MeasureOptions options = measure_;
  if (!options.interrupted) options.interrupted = &InterruptedFlag();
  MeasureResult measured;
  std::string why;
  out->started_at = UtcNow();
  bool ok = MeasureRepeated([&] { kernel.run(state); }, counters.per_repetition, options, &measured,
                            &why);
  out->ended_at = UtcNow();
  bool correct = ok && !measured.interrupted && kernel.check(state, &kernel_error);
  kernel.teardown(state);
  if (!ok) return Fail(err, ErrorKind::kEnvironment, "counters: " + why);

  out->samples = measured.seconds_per_call;
  out->samples_note = "median of " + std::to_string(out->samples.size()) + " repetitions";
  out->calls_per_repetition = measured.calls_per_repetition;
  out->timed_calls = measured.timed_calls;
  if (measured.interrupted) {
    out->status = RunStatus::kInterrupted;
    out->note = InterruptionNote() + ", after " + std::to_string(out->samples.size()) +
                " timed repetitions";
  } else if (!correct) {
    out->status = RunStatus::kFailed;
    out->note = std::string("check failed: ") + kernel_error.message;
  }
  // A replay sets the kernel up again and makes two calls: a warm-up and the counted one.
  if (!out->samples.empty()) out->replay_native_s = setup_s + 2 * Summarize(out->samples).median;
  return true;
}

}  // namespace rprof
