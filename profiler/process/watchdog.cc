#include "process/watchdog.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "process/run_cgroup.h"

namespace rprof {

namespace {

// Closes every descriptor from 3 up but `keep`: close_range(2), two calls, where the kernel has
// it (5.9), which also reaches descriptors from 1024 up; else one close(2) each up to 1024.
void CloseAllBut(int keep) {
  const unsigned k = static_cast<unsigned>(keep);
  if ((k <= 3 || close_range(3, k - 1, 0) == 0) && close_range(k + 1, ~0U, 0) == 0) return;
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != keep) close(fd);
}

std::atomic<int> g_watchdog_fd{-1};  // rprof's end: closing it (by dying) wakes the watchdog

struct Record {
  int32_t pid;    // > 0: track; < 0: forget -pid
  int32_t group;  // 1: the child leads its own process group
};

// A process's parent and process group from /proc/PID/stat, with open/read only.
bool ParentAndGroup(pid_t pid, pid_t* parent, pid_t* group) {
  char path[64], text[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; the last ')' ends it.
  const char* close_paren = std::strrchr(text, ')');
  if (!close_paren) return false;
  char state = 0;
  int ppid = 0, pgrp = 0;
  if (std::sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) return false;
  *parent = ppid;
  *group = pgrp;
  return true;
}

template <typename Visit>
void ForEachProcess(Visit visit) {
  DIR* proc = opendir("/proc");
  if (!proc) return;
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    visit(static_cast<pid_t>(pid));
  }
  closedir(proc);
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// The watchdog's life: collect the children rprof announces; when the pipe closes, kill them.
[[noreturn]] void Watch(int fd, const std::string& cgroup) {
  prctl(PR_SET_NAME, "rprof-watchdog");
  // rprof's signals are rprof's: the watchdog only leaves when the pipe closes.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE})
    signal(sig, SIG_IGN);
  std::vector<Record> children;
  for (;;) {
    Record r{};
    ssize_t n = read(fd, &r, sizeof r);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof r)) break;  // rprof is gone (or wrote garbage)
    if (r.pid > 0) {
      children.push_back(r);
    } else {
      for (size_t i = 0; i < children.size(); ++i)
        if (children[i].pid == -r.pid) children.erase(children.begin() + static_cast<long>(i--));
    }
  }
  // rprof has ended. Its direct children got SIGKILL (parent-death signal); so do their groups.
  for (const Record& c : children) {
    if (c.group) kill(-c.pid, SIGKILL);
    kill(c.pid, SIGKILL);
  }
  // Wait briefly for them to die, then sweep what valgrind among them left.
  for (int i = 0; i < 50; ++i) {
    bool any = false;
    for (const Record& c : children) any = any || Alive(c.pid);
    if (!any) break;
    timespec ts{0, 2000000};
    nanosleep(&ts, nullptr);
  }
  for (const Record& c : children) SweepValgrindFifos(c.pid);
  // What left the groups (setsid()) is still in rprof's cgroup, where there is one.
  KillCgroup(cgroup, 2.0);
  _exit(0);
}

}  // namespace

void StartWatchdog() {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return;
  // Before the fork: the watchdog knows the cgroup it is to kill when rprof is gone.
  const std::string cgroup = OpenRunCgroup();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) == 0) {
    // Forked twice, so that the watchdog is nobody's child rprof sees (tools and tests that list
    // rprof's children find its targets only), and before rprof becomes a subreaper, so that
    // it is re-parented away from rprof rather than to it.
    pid_t middle = fork();
    if (middle == 0) {
      if (fork() != 0) _exit(0);
      // Out of rprof's session and process group: a harness that waits for the group to empty
      // (or a shell's job) is done when rprof is, not when the watchdog has been reaped, which
      // an init that reaps orphans every few seconds delays by that much. Killing the group still
      // ends rprof, which closes the pipe the watchdog reads: it then does its work and leaves.
      setsid();
      // Holds nothing of rprof's: no standard stream a reader waits on, no database file.
      int null = open("/dev/null", O_RDWR | O_CLOEXEC);
      if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
      }
      int keep = fds[0];
      CloseAllBut(keep);
      Watch(keep, cgroup);
    }
    close(fds[0]);
    if (middle > 0) {
      int status = 0;
      while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
      }
      g_watchdog_fd.store(fds[1]);
    } else {
      close(fds[1]);  // no watchdog: the parent-death signal still holds for direct children
    }
  }
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

void WatchdogTrack(pid_t pid, bool own_group) {
  int fd = g_watchdog_fd.load();
  if (fd < 0) return;
  Record r{static_cast<int32_t>(pid), own_group ? 1 : 0};
  ssize_t ignored = write(fd, &r, sizeof r);
  (void)ignored;
}

void WatchdogForget(pid_t pid) {
  int fd = g_watchdog_fd.load();
  if (fd < 0) return;
  Record r{-static_cast<int32_t>(pid), 0};
  ssize_t ignored = write(fd, &r, sizeof r);
  (void)ignored;
}

// The children of this process as the kernel lists them (/proc/self/task/TID/children, one
// file per thread: an orphan is re-parented to the subreaper's thread group). False when the
// kernel has no such files (CONFIG_PROC_CHILDREN off). Open/read only, no allocation.
template <typename Visit>
bool ForEachChildListed(Visit visit) {
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return false;
  bool listed = false;
  while (dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    char path[320], text[4096];  // room for any d_name (256 bytes): no truncation
    std::snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    listed = true;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) continue;
    text[n] = '\0';
    for (char* at = text; *at;) {
      char* end = nullptr;
      long pid = std::strtol(at, &end, 10);
      if (end == at) break;
      if (pid > 0) visit(static_cast<pid_t>(pid));
      at = end;
    }
  }
  closedir(tasks);
  return listed;
}

void KillOrphans() {
  // The kernel's own list of rprof's children when it keeps one: reading every /proc/PID/stat
  // of the machine cost rprof's exit several milliseconds on a busy host.
  if (ForEachChildListed([](pid_t pid) { kill(pid, SIGKILL); })) return;
  pid_t self = getpid();
  ForEachProcess([&](pid_t pid) {
    pid_t parent = 0, group = 0;
    if (ParentAndGroup(pid, &parent, &group) && parent == self) kill(pid, SIGKILL);
  });
}

void SweepValgrindFifos(pid_t pid) {
  const char* tmp = getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  // vgdb-pipe-from-vgdb-to-<pid>-by-..., vgdb-pipe-to-vgdb-from-<pid>-by-...,
  // vgdb-pipe-shared-mem-vgdb-<pid>-by-...
  std::string mark = "-";  // built in place: GCC 12 warns (-Wrestrict) on "-" + std::string
  mark += std::to_string(pid);
  mark += "-by-";
  uid_t uid = getuid();
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind("vgdb-pipe-", 0) != 0 || name.find(mark) == std::string::npos) continue;
    std::string path = dir + "/" + name;
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0 && st.st_uid == uid) unlink(path.c_str());
  }
  closedir(d);
}

}  // namespace rprof
