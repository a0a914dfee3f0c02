#include "process/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "process/interruption.h"
#include "process/run_cgroup.h"
#include "process/watchdog.h"

namespace rprof {

namespace {

// rprof has at most two children at once (a program and, never together, valgrind); a few
// slots spare. What a signal handler reads must be lock-free: plain atomics, no allocation.
constexpr int kSlots = 8;
struct Slot {
  std::atomic<pid_t> pid{0};
  std::atomic<bool> own_group{false};
};
Slot g_children[kSlots];

// Whether rprof is the foreground job of a terminal on its standard streams.
bool InTerminalForeground() {
  pid_t group = getpgrp();
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    if (isatty(fd) && tcgetpgrp(fd) == group) return true;
  return false;
}

// At exit: the children, their groups, and whatever was re-parented to rprof (the subreaper).
void KillAtExit() {
  KillChildren();
  KillOrphans();
  KillRunCgroup();  // what left the groups and was not re-parented to rprof
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void Signal(pid_t pid, bool own_group, int sig) { kill(own_group ? -pid : pid, sig); }

}  // namespace

ChildLaunch PrepareChildLaunch() {
  static bool registered = (std::atexit(KillAtExit), true);
  (void)registered;
  StartWatchdog();  // before the first child: the tree dies with rprof, by any death
  ChildLaunch launch;
  launch.parent = getpid();
  launch.own_group = !InTerminalForeground();
  return launch;
}

void SetUpChild(const ChildLaunch& launch) {
  // Survives exec (not of set-user-ID programs), so valgrind and the program both have it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launch.parent) _exit(127);  // rprof died before the line above
  if (launch.own_group) setpgid(0, 0);
  JoinRunCgroup();
  // The parent may be inside its handlers' scope: the child gets back what rprof inherited.
  RestoreInheritedSignals();
}

void TrackChild(pid_t pid, const ChildLaunch& launch) {
  // Both sides set the group (as shells do): whichever runs first, it exists before either
  // signals it.
  if (launch.own_group) setpgid(pid, pid);
  WatchdogTrack(pid, launch.own_group);
  for (Slot& slot : g_children) {
    pid_t free_slot = 0;
    if (slot.pid.load() == 0) {
      slot.own_group.store(launch.own_group);
      if (slot.pid.compare_exchange_strong(free_slot, pid)) break;
    }
  }
  // A signal that arrived between fork and now was not passed on: pass it on.
  if (int sig = InterruptingSignal()) Signal(pid, launch.own_group, sig);
}

void ForgetChild(pid_t pid) {
  WatchdogForget(pid);
  for (Slot& slot : g_children) {
    pid_t expected = pid;
    slot.pid.compare_exchange_strong(expected, 0);
  }
}

void SignalChildren(int sig, bool from_terminal) {
  for (Slot& slot : g_children) {
    pid_t pid = slot.pid.load();
    if (pid <= 0) continue;
    bool own_group = slot.own_group.load();
    if (from_terminal && !own_group) continue;
    Signal(pid, own_group, sig);
  }
}

void KillChildren() {
  for (Slot& slot : g_children) {
    pid_t pid = slot.pid.load();
    if (pid > 0) Signal(pid, slot.own_group.load(), SIGKILL);
  }
}

ChildEnd WaitChild(pid_t pid, double timeout_s) {
  ChildEnd end;
  bool own_group = false;
  for (Slot& slot : g_children)
    if (slot.pid.load() == pid) own_group = slot.own_group.load();
  // A pidfd wakes poll() at the exit; without one (kernels before 5.3) poll sleeps in steps.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  const double start = Now();
  double deadline = timeout_s > 0 && std::isfinite(timeout_s) ? start + timeout_s : INFINITY;
  double kill_at = INFINITY;  // set once the child was asked to stop
  for (;;) {
    pid_t got = wait4(pid, &end.wait_status, WNOHANG, &end.usage);
    if (got == pid || (got < 0 && errno != EINTR)) break;
    double now = Now();
    if (std::isinf(kill_at)) {
      if (now >= deadline) {
        end.timed_out = true;
        Signal(pid, own_group, SIGTERM);
        kill_at = now + kStopGraceSeconds;
      } else if (InterruptedFlag().load()) {
        end.interrupted = true;
        kill_at = now + kStopGraceSeconds;
      }
    } else if (now >= kill_at) {
      Signal(pid, own_group, SIGKILL);
      kill_at = now + 3600;  // killed: only the wait is left
    }
    // Woken by the exit, a signal (EINTR), or at most every 100 ms to look at the clock.
    double next = std::min({deadline, kill_at, now + 0.1});
    int wait_ms = static_cast<int>(std::ceil(std::max(0.0, next - now) * 1000));
    if (pidfd >= 0) {
      pollfd fd{pidfd, POLLIN, 0};
      poll(&fd, 1, wait_ms);
    } else {
      timespec ts{0, std::min(wait_ms, 5) * 1000000L};
      nanosleep(&ts, nullptr);
    }
  }
  if (pidfd >= 0) close(pidfd);
  // Whatever the child started in its group goes with it.
  if (own_group) kill(-pid, SIGKILL);
  if (InterruptedFlag().load()) end.interrupted = true;
  ForgetChild(pid);
  return end;
}

}  // namespace rprof
