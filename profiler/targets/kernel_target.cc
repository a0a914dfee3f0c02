#include "targets/kernel_target.h"

#include <sys/wait.h>

#include <cstdio>

#include "core/stats.h"
#include "core/target_kind.h"
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
                           KeyValues shown_params, MeasureOptions measure, double timeout_s)
    : entry_(entry),
      counted_(CountedKernel(entry, args)),
      shown_params_(std::move(shown_params)),
      measure_(measure),
      timeout_s_(timeout_s) {}

void KernelTarget::Describe(RunRecord* run) const {
  const rprof_kernel& kernel = *entry_.kernel;
  run->target_kind =
      TargetKindName(counted_.plugin.empty() ? TargetKind::kBuiltin : TargetKind::kPlugin);
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
  if (!RunKernelInWorker(entry_, counted_.args, counters.per_repetition, measure_, &worker, err,
                         timeout_s_))
    return false;
  out->ended_at = UtcNow();
  // Every repetition that ended is kept, however the worker ended after it: a hang in the
  // check, a deadline or a signal does not make its time and counts unmeasured.
  const MeasureResult& measured = worker.measured;
  out->samples = measured.seconds_per_call;
  out->samples_note = out->samples.size() == 1
                          ? std::string("one repetition")
                          : "median of " + std::to_string(out->samples.size()) + " repetitions";
  out->calls_per_repetition = measured.calls_per_repetition;
  out->timed_calls = measured.timed_calls;
  const std::string kept = out->samples.empty()
                               ? std::string("nothing was measured")
                               : std::to_string(out->samples.size()) + " timed repetitions kept";
  const std::string grace = std::to_string(static_cast<int>(kStopGraceSeconds)) + " s";
  if (worker.timed_out) {
    // As a program's (targets/program_target.cc), with the phase it was in.
    out->status = RunStatus::kInterrupted;
    char limit[64];
    std::snprintf(limit, sizeof limit, "%g s", timeout_s_);
    out->note = std::string("kernel ") + kernel.name + " timed out after " + limit +
                " (--timeout) during " + worker.deadline_phase + ": " +
                (!worker.killed_at_deadline              ? "stopped"
                 : worker.phase == worker.deadline_phase ? "killed"
                                                         : "killed during " + worker.phase) +
                "; " + kept;
  } else if (worker.killed_after_signal) {
    out->status = RunStatus::kInterrupted;
    out->note = "interrupted by " + SignalName(InterruptingSignal()) + " during " + worker.phase +
                " of kernel " + kernel.name + ", which did not stop within " + grace +
                ": killed; " + kept;
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
                ", in rprof's measuring worker; " + kept;
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
