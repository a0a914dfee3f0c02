// A kernel measured in a worker process forked for the run: the plugin is loaded, and the
// kernel's setup, warm-up, timed repetitions, check and teardown run there, never in rprof. A
// crash, abort, exit() or hang of kernel code ends the worker, and rprof records how (the signal
// or exit status, and the phase it ended in) with what it had measured.
//
// What was measured reaches rprof as it is measured: each timed repetition's time is sent once
// it ends, so a worker that hangs later (in the check, in teardown), is stopped at its deadline
// or is killed after a signal keeps the repetitions it finished. rprof stops reading once the
// worker itself has exited and its pipe is drained, not at the pipe's end: a process the kernel
// forked holds the pipe's write end (fork without exec keeps every descriptor), and a daemon
// would otherwise hold rprof for as long as it lives. What kernel code prints on stdout goes to
// rprof's stderr, so that rprof's own output (`run --format json`) stays whole.
//
// The counters stay in rprof and count the worker: PAPI event sets are bound to a thread when
// they are opened, so those rprof opened would count rprof, not a forked worker. Instead the
// worker asks rprof to start and stop them around each timed repetition (one pipe round trip
// each, outside the timed loop), and rprof opens them attached to the worker
// (CounterSession::Attach) before its first repetition. The timed loop itself is the same code
// as in process (targets/measure_loop.h): its overhead does not change.
#ifndef RPROF_TARGETS_KERNEL_WORKER_H_
#define RPROF_TARGETS_KERNEL_WORKER_H_

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "counters/counter_session.h"
#include "targets/kernel_catalog.h"
#include "targets/measure_loop.h"

namespace rprof {

// How a worker ended, with what it measured.
struct WorkerOutcome {
  // The timed repetitions that ended, as they arrived; `measured.interrupted` is the worker's
  // own word once its loop ended (has_results).
  MeasureResult measured;
  bool has_results = false;   // the measurement loop ended and said so
  bool checked = false;       // the check ran to its end: correct and check_message hold
  bool correct = false;       // the check passed
  std::string check_message;  // the kernel's reason when it did not
  double setup_s = 0;         // seconds setup took
  bool ended_abnormally = false;
  int wait_status = 0;               // when ended_abnormally
  std::string phase;                 // the phase it ended in: "setup", "the warm-up", "teardown"...
  bool killed_after_signal = false;  // interrupted, and it did not stop within the grace time
  bool timed_out = false;            // the deadline passed: it was asked to stop (SIGTERM)
  std::string deadline_phase;        // the phase it was in then
  bool killed_at_deadline = false;   // and killed (SIGKILL): before the warm-up, or after grace
};

// Runs `entry` with `args` in a worker, counting with `counters` around each timed repetition.
// `timeout_s` > 0: the whole of it (loading, setup, warm-up, repetitions, check, teardown) has
// that many seconds; then the worker is asked to stop (SIGTERM), killed 1 s later (at once
// before the warm-up: nothing can be measured then), and *out says so (timed_out).
// False with *err when nothing was measured and nothing should be stored: the worker could not
// start, the plugin could not be loaded there, setup failed (kEnvironment), a counter failed
// (kEnvironment), or rprof was interrupted before the kernel's warm-up (kTargetFailed).
bool RunKernelInWorker(const CatalogEntry& entry, const rprof_args& args,
                       const std::vector<CounterSession*>& counters, MeasureOptions options,
                       WorkerOutcome* out, Error* err, double timeout_s = 0);

}  // namespace rprof

#endif  // RPROF_TARGETS_KERNEL_WORKER_H_
