#include "process/interruption.h"

#include <signal.h>
#include <string.h>

#include <string>

#include "process/child_process.h"

namespace rprof {

namespace {

constexpr int kCaught[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_signal{0};
std::atomic<bool> g_interrupted{false};
std::atomic<Phase> g_phase{Phase::kPreparing};
std::atomic<Phase> g_phase_at_signal{Phase::kPreparing};
struct sigaction g_previous[sizeof kCaught / sizeof kCaught[0]];
std::atomic<bool> g_scope_active{false};

extern "C" void OnSignal(int sig, siginfo_t* info, void*) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig)) {
    g_phase_at_signal.store(g_phase.load());
    g_interrupted.store(true);
    // From the terminal (si_code > 0: the kernel sent it to the whole foreground process
    // group) a child in rprof's group has it already; from kill(1) or a scheduler it has not.
    SignalChildren(sig, info != nullptr && info->si_code > 0);
    return;
  }
  // The second signal: the user means it. Children first, then rprof by the default action.
  KillChildren();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

const char* PhaseName(Phase phase) {
  // Indexed by Phase, in its order.
  static constexpr const char* kNames[] = {"preparation (before the target ran)",
                                           "the warm-up",
                                           "the timed repetitions",
                                           "the program's execution",
                                           "the sim step",
                                           "storing"};
  return kNames[static_cast<int>(phase)];
}

InterruptionScope::InterruptionScope() {
  g_signal.store(0);
  g_interrupted.store(false);
  g_phase.store(Phase::kPreparing);
  struct sigaction action {};
  action.sa_sigaction = OnSignal;
  // No SA_RESTART: a blocking wait returns EINTR and looks at the flag at once.
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < sizeof kCaught / sizeof kCaught[0]; ++i)
    sigaction(kCaught[i], &action, &g_previous[i]);
  g_scope_active.store(true);
}

InterruptionScope::~InterruptionScope() {
  g_scope_active.store(false);
  for (size_t i = 0; i < sizeof kCaught / sizeof kCaught[0]; ++i)
    sigaction(kCaught[i], &g_previous[i], nullptr);
}

void RestoreInheritedSignals() {
  if (!g_scope_active.load()) return;
  for (size_t i = 0; i < sizeof kCaught / sizeof kCaught[0]; ++i)
    sigaction(kCaught[i], &g_previous[i], nullptr);
}

void EnterPhase(Phase phase) { g_phase.store(phase); }

int InterruptingSignal() { return g_signal.load(); }

Phase InterruptedPhase() { return g_phase_at_signal.load(); }

const std::atomic<bool>& InterruptedFlag() { return g_interrupted; }

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string InterruptionNote() {
  int sig = InterruptingSignal();
  if (sig == 0) return "";
  return "interrupted by " + SignalName(sig) + " during " + PhaseName(InterruptedPhase());
}

}  // namespace rprof
