// A kernel measured in a worker process forked for the run: the plugin is loaded, and the
// kernel's setup, warm-up, timed repetitions, check and teardown run there, never in rprof. A
// crash, abort, exit() or hang of kernel code ends the worker, and rprof records how (the signal
// or exit status, and the phase it ended in) with what it had measured.
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
  MeasureResult measured;     // empty when the worker ended before its results
  bool has_results = false;   // measured and check are the worker's own
  bool correct = false;       // the check passed
  std::string check_message;  // the kernel's reason when it did not
  double setup_s = 0;         // seconds setup took
  bool ended_abnormally = false;
  int wait_status = 0;               // when ended_abnormally
  std::string phase;                 // the phase it ended in: "setup", "the warm-up", "teardown"...
  bool killed_after_signal = false;  // interrupted, and it did not stop within the grace time
};

// Runs `entry` with `args` in a worker, counting with `counters` around each timed repetition.
// False with *err when nothing was measured and nothing should be stored: the worker could not
// start, the plugin could not be loaded there, setup failed (kEnvironment), a counter failed
// (kEnvironment), or rprof was interrupted before the kernel's warm-up (kTargetFailed).
bool RunKernelInWorker(const CatalogEntry& entry, const rprof_args& args,
                       const std::vector<CounterSession*>& counters, MeasureOptions options,
                       WorkerOutcome* out, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_KERNEL_WORKER_H_
