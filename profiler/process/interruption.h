// How rprof stops when it is asked to (SIGINT, SIGTERM, SIGHUP) while it measures: the first
// signal ends the phase it arrives in, promptly, and what was measured is stored, the run marked
// interrupted with the signal and the phase in its note; a second signal kills rprof and its
// children at once, as the signal's default action would.
#ifndef RPROF_PROCESS_INTERRUPTION_H_
#define RPROF_PROCESS_INTERRUPTION_H_

#include <atomic>
#include <string>

#include "core/non_copyable.h"

namespace rprof {

enum class Phase { kPreparing, kWarmUp, kRepetitions, kExecution, kSim, kStoring };

// "the warm-up", "the timed repetitions", "the sim step", ...
const char* PhaseName(Phase phase);

// Catches the signals for its lifetime (rprof run's whole command: every phase) and restores
// the previous handlers after. One at a time.
class InterruptionScope : public NonCopyable {
 public:
  InterruptionScope();
  ~InterruptionScope();
};

// In a child between fork and exec (async-signal-safe): the signals the scope catches get back
// the dispositions rprof inherited, so a program started with SIGINT ignored (`rprof ./app &`
// from a script) still ignores it.
void RestoreInheritedSignals();

// The phase a signal arriving now would end.
void EnterPhase(Phase phase);

// The first signal received inside the scope; 0 when none.
int InterruptingSignal();
// The phase it arrived in.
Phase InterruptedPhase();
// True once a signal arrived: what loops check between steps.
const std::atomic<bool>& InterruptedFlag();

// "interrupted by SIGINT during the sim step"; "" when not interrupted.
std::string InterruptionNote();

// "SIGINT" for 2: the name users type to kill(1).
std::string SignalName(int sig);

}  // namespace rprof

#endif  // RPROF_PROCESS_INTERRUPTION_H_
