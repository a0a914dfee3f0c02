// Where cgroup v2 is writable: one cgroup for everything an rprof process starts, so the whole
// tree ends with it, a grandchild that left the process group with setsid() included (the
// watchdog kills process groups: such a grandchild of a SIGKILLed rprof lived on, re-parented to
// init). rprof itself stays where it is; its children join the cgroup between fork and exec.
// Without cgroup v2 mounted writable (a container, an old kernel without cgroup.kill) nothing
// changes: the process groups and the subreaper hold the tree as before.
#ifndef RPROF_PROCESS_RUN_CGROUP_H_
#define RPROF_PROCESS_RUN_CGROUP_H_

#include <sys/types.h>

#include <string>

namespace rprof {

// Creates the cgroup ("rprof-PID" under rprof's own cgroup), once: before the first child and
// before the watchdog is forked, which then knows its folder. "" when there is none here.
std::string OpenRunCgroup();

// In a child, between fork and exec: joins the cgroup. Async-signal-safe; nothing without one,
// or in a child ForkIntoRunCgroup started inside it.
void JoinRunCgroup();

// fork() for a child that makes only async-signal-safe calls until it execs (the raw clone3
// system call runs none of glibc's fork handlers): where the cgroup exists, the child starts in
// it (clone3 with CLONE_INTO_CGROUP, Linux 5.7), so that JoinRunCgroup has nothing to do. Joining
// by a write to cgroup.procs moves a process between cgroups, which waits for an RCU grace
// period: 13 ms of rprof run /bin/true's 29 on the Intel Xeon guest, while the program waited to
// start. Else plain fork().
pid_t ForkIntoRunCgroup();

// Kills every process in `folder` (cgroup.kill) and removes it, and the cgroups in it, once
// empty, waiting at most `patience_s` for each: the watchdog's, when rprof is gone.
void KillCgroup(const std::string& folder, double patience_s);
// The same for this rprof's own cgroup, at its exit; nothing when it made none.
void KillRunCgroup();

}  // namespace rprof

#endif  // RPROF_PROCESS_RUN_CGROUP_H_
