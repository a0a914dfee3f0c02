// One program measured end to end, as `perf stat` would: started with fork/exec (no shell),
// counters on the process and everything it starts, stdout/stderr passed through, signals
// forwarded, its exit status recorded; marker regions read back when it uses the marker API.
#ifndef RPROF_TARGETS_PROCESS_RUN_H_
#define RPROF_TARGETS_PROCESS_RUN_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "counters/group_session.h"
#include "counters/sim_source.h"
#include "core/run.h"

namespace rprof {

struct ProcessRunRequest {
  std::string path;               // the file to execute (see ResolveExecutable)
  std::vector<std::string> argv;  // argv[0] as the user wrote it, then the program's arguments
  std::vector<std::string> events;
  bool events_given = false;  // else the default software events, missing ones never fatal
  bool allow_missing_events = false;
  int repetitions = 1;
  double timeout_s = 0;  // > 0: kill the program after this long; the run is interrupted
  std::optional<double> declared_flops;  // --flops / --bytes: the model of one execution
  std::optional<double> declared_bytes;
  bool use_pmu = true;  // false with --counters model
  const GroupPlan* groups = nullptr;  // --group: their events counted, their formulas applied
  // The sim source: one more execution, whole, under valgrind (the program's output appears
  // again), after the timed ones and only when they succeeded.
  SimMode sim = SimMode::kAuto;
  double sim_budget_s = 20;
};

// Runs the program `repetitions` times (stopping at the first failure) and fills run. A program
// that fails, crashes, times out or is interrupted is a stored outcome (true, with status,
// exit code or signal); false with *err means nothing should be stored: the program could not
// be started or the counters could not be opened.
bool RunProcess(const ProcessRunRequest& request, RunRecord* run, Error* err);

// Installed by the caller around RunProcess: SIGINT/SIGTERM sent to rprof by another process
// are forwarded to the program (one typed at the terminal already reaches it, the terminal
// signals the whole foreground process group). Either way the run ends as interrupted.
class ProcessSignalScope {
 public:
  ProcessSignalScope();
  ~ProcessSignalScope();
  ProcessSignalScope(const ProcessSignalScope&) = delete;
  ProcessSignalScope& operator=(const ProcessSignalScope&) = delete;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_PROCESS_RUN_H_
