// The process tree dies with rprof, even when rprof is killed by SIGKILL, which it cannot catch.
//
// Three parts: rprof is the subreaper of everything it starts (PR_SET_CHILD_SUBREAPER), so a
// grandchild whose parent exits is re-parented to rprof, not to init, and is killed with rprof's
// other children at exit; each direct child gets SIGKILL when rprof dies (the parent-death
// signal, process/child_process.h); and a tiny watchdog process holds one end of a pipe whose
// other end only rprof holds. When rprof dies by any means the pipe closes, and the watchdog
// kills the process group of every child rprof had (where the grandchildren are, unless they
// left it) and removes the FIFOs valgrind left. Limit: in the foreground of a terminal the
// children share the terminal's job with rprof, so no group of theirs can be killed; there a
// grandchild of a SIGKILLed rprof stays in that job, where Ctrl-C still reaches it.
#ifndef RPROF_PROCESS_WATCHDOG_H_
#define RPROF_PROCESS_WATCHDOG_H_

#include <sys/types.h>

#include <string>

namespace rprof {

// Makes rprof a subreaper and starts the watchdog, once; later calls do nothing. Call before
// the first child is started (PrepareChildLaunch does).
void StartWatchdog();

// Tells the watchdog of a child (and whether it leads its own group) or that it is gone.
// Async-signal-safe.
void WatchdogTrack(pid_t pid, bool own_group);
void WatchdogForget(pid_t pid);

// SIGKILL to every process re-parented to rprof (orphans of its targets; the watchdog is not
// rprof's child).
// Async-signal-safe enough for an exit path: reads /proc with open/read only.
void KillOrphans();

// Removes the FIFOs and shared-memory files valgrind's gdbserver left in $TMPDIR (or /tmp) for
// `pid` when it was killed: vgdb-pipe-*-<pid>-by-<user>-on-<host>.
void SweepValgrindFifos(pid_t pid);

}  // namespace rprof

#endif  // RPROF_PROCESS_WATCHDOG_H_
