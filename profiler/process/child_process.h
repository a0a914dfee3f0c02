// Children never outlive rprof. Every process rprof starts (the profiled program, valgrind) is
// started through here: it gets SIGKILL when rprof dies, even by SIGKILL (the parent-death
// signal); outside an interactive terminal it leads its own process group, so whatever it
// starts in turn is signalled and killed with it; signals rprof receives are passed on.
//
//   ChildLaunch launch = PrepareChildLaunch();   // before fork
//   pid_t pid = fork();
//   if (pid == 0) { SetUpChild(launch); execve(...); }
//   TrackChild(pid, launch);
//   ChildEnd end = WaitChild(pid, timeout_s);    // forgets it
#ifndef RPROF_PROCESS_CHILD_PROCESS_H_
#define RPROF_PROCESS_CHILD_PROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

namespace rprof {

struct ChildLaunch {
  pid_t parent = 0;
  // Whether the child leads its own process group. Not when rprof runs in the foreground of a
  // terminal: the child then stays in the terminal's foreground group, so it can read the
  // terminal and Ctrl-C reaches it directly, as under perf stat.
  bool own_group = false;
};

// Decided in the parent, before fork.
ChildLaunch PrepareChildLaunch();

// In the child, between fork and exec: async-signal-safe. Sets the parent-death signal and the
// process group; exits at once when rprof is already gone.
void SetUpChild(const ChildLaunch& launch);

// In the parent, right after fork: the child is signalled with rprof from now on.
void TrackChild(pid_t pid, const ChildLaunch& launch);
void ForgetChild(pid_t pid);

// Passes `sig` on to every tracked child (its group, where it has one). `from_terminal`: the
// terminal sent it to rprof's process group, which children in that group already got it with.
// Async-signal-safe.
void SignalChildren(int sig, bool from_terminal);
// SIGKILL to every tracked child and its group. Async-signal-safe; also run at exit.
void KillChildren();

struct ChildEnd {
  int wait_status = 0;
  rusage usage{};            // the child's, with the children it waited for (wait4)
  bool timed_out = false;    // stopped at its deadline
  bool interrupted = false;  // rprof was interrupted while it ran
};

// How long a child has to finish after it was asked to stop (SIGTERM at a time-out, or the
// signal rprof passed on) before it is killed: enough to flush a marker file.
constexpr double kStopGraceSeconds = 2.0;

// Waits for the child to end, then forgets it. After `timeout_s` (<= 0 or infinite: never) it
// gets SIGTERM; once rprof is interrupted, the signal was passed on already. Either way, still
// running kStopGraceSeconds later, it is killed.
ChildEnd WaitChild(pid_t pid, double timeout_s);

}  // namespace rprof

#endif  // RPROF_PROCESS_CHILD_PROCESS_H_
