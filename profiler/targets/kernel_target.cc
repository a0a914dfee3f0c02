#include "targets/kernel_target.h"

#include <sys/wait.h>

#include "core/stats.h"
#include "process/child_process.h"
#include "process/interruption.h"
#include "process/worker_pipe.h"
#include "targets/kernel_worker.h"

namespace rprof {

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
  // Kernel code runs in a worker (targets/kernel_worker.h): whatever it does, rprof stores the
  // run. Signals end the measurement between repetitions there (process/interruption.h).
  WorkerOutcome worker;
  out->started_at = UtcNow();
  if (!RunKernelInWorker(entry_, counted_.args, counters.per_repetition, measure_, &worker, err))
    return false;
  out->ended_at = UtcNow();
  const MeasureResult& measured = worker.measured;
  out->samples = measured.seconds_per_call;
  out->samples_note = out->samples.size() == 1
                          ? std::string("one repetition")
                          : "median of " + std::to_string(out->samples.size()) + " repetitions";
  out->calls_per_repetition = measured.calls_per_repetition;
  out->timed_calls = measured.timed_calls;
  if (worker.killed_after_signal) {
    out->status = RunStatus::kInterrupted;
    out->note = InterruptionNote() + "; kernel " + kernel.name + " did not stop within " +
                std::to_string(static_cast<int>(kStopGraceSeconds)) + " s during " + worker.phase +
                ": killed";
    out->samples.clear();
  } else if (worker.ended_abnormally) {
    int status = worker.wait_status;
    std::string how;
    if (WIFSIGNALED(status)) {
      out->status = RunStatus::kCrashed;
      out->signal = WTERMSIG(status);
      how = "crashed (" + SignalName(WTERMSIG(status)) + ")";
    } else {
      out->status = RunStatus::kFailed;
      if (WIFEXITED(status)) out->exit_code = WEXITSTATUS(status);
      how = "ended the process (" + WaitStatusText(status) + ", e.g. by calling exit())";
    }
    out->note = std::string("kernel ") + kernel.name + " " + how + " during " + worker.phase +
                ", in rprof's measuring worker";
    if (!worker.has_results) {
      out->note += "; nothing was measured";
      out->samples.clear();
      out->timed_calls = 0;
    }
  } else if (measured.interrupted) {
    out->status = RunStatus::kInterrupted;
    out->note = InterruptionNote() + ", after " + std::to_string(out->samples.size()) +
                " timed repetitions";
  } else if (!worker.correct) {
    out->status = RunStatus::kFailed;
    out->note = "check failed: " + worker.check_message;
  }
  // A replay sets the kernel up again and makes two calls: a warm-up and the counted one.
  if (!out->samples.empty())
    out->replay_native_s = worker.setup_s + 2 * Summarize(out->samples).median;
  return true;
}

}  // namespace rprof
