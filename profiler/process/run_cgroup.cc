#include "process/run_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sched.h>  // clone_args, CLONE_INTO_CGROUP
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rprof {

namespace {

// cgroup.procs of the run's cgroup, open before any fork: a child writes "0" to it (itself).
std::atomic<int> g_procs_fd{-1};
// The run's cgroup folder, open, for clone3's CLONE_INTO_CGROUP.
std::atomic<int> g_dir_fd{-1};
// This process started in the cgroup (ForkIntoRunCgroup's child): nothing left to join.
bool g_born_inside = false;

// Where cgroup v2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system):
// /proc/self/mountinfo's line whose file system type, after " - ", is cgroup2.
std::string CgroupV2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, mount;
    fields >> id >> parent >> device >> root >> mount;
    return mount;
  }
  return "";
}

// This process's cgroup v2 path ("0::/user.slice/..." in /proc/self/cgroup).
std::string OwnCgroup() {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "";
}

void Pause(long nanoseconds) {
  timespec ts{0, nanoseconds};
  nanosleep(&ts, nullptr);
}

// The folder and the cgroups inside it (an rprof that rprof started, under mpirun, makes its
// own there), innermost first, each once its processes are gone (EBUSY until then).
void RemoveCgroupTree(const std::string& folder, double patience_s) {
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* e = readdir(dir))
      if (e->d_type == DT_DIR && e->d_name[0] != '.')
        RemoveCgroupTree(folder + "/" + e->d_name, patience_s);
    closedir(dir);
  }
  for (double waited = 0; rmdir(folder.c_str()) != 0 && errno == EBUSY && waited < patience_s;
       waited += 0.005)
    Pause(5000000);
}

// The run's cgroup folder once made ("" before, or without one). A plain array, never
// destroyed: the exit path (an atexit handler registered before it was made) reads it after
// static objects made later are gone.
char g_folder[4096];
std::atomic<bool> g_opened{false};
// The rprof that made it: a forked measuring worker that calls exit() runs rprof's exit path
// too, and must not kill the cgroup it is in.
std::atomic<pid_t> g_owner{0};

}  // namespace

std::string OpenRunCgroup() {
  if (g_opened.exchange(true)) return g_folder;
  std::string folder = [] {
    std::string mount = CgroupV2Mount(), own = OwnCgroup();
    if (mount.empty() || own.empty()) return std::string();
    std::string dir = mount + (own == "/" ? "" : own) + "/rprof-" + std::to_string(getpid());
    // cgroup.kill (Linux 5.14) is what ends the whole tree; without it, no cgroup.
    if (dir.size() + 16 >= sizeof g_folder ||
        access((mount + (own == "/" ? "" : own) + "/cgroup.procs").c_str(), W_OK) != 0 ||
        mkdir(dir.c_str(), 0755) != 0)
      return std::string();
    int fd = open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || access((dir + "/cgroup.kill").c_str(), W_OK) != 0) {
      if (fd >= 0) close(fd);
      rmdir(dir.c_str());
      return std::string();
    }
    g_procs_fd.store(fd);
    g_dir_fd.store(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return dir;
  }();
  std::memcpy(g_folder, folder.c_str(), folder.size() + 1);  // it fits: checked above
  g_owner.store(getpid());
  return g_folder;
}

pid_t ForkIntoRunCgroup() {
  if (int dir = g_dir_fd.load(); dir >= 0) {
    clone_args args{};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<uint64_t>(dir);
    long pid = syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0) g_born_inside = true;
    if (pid >= 0) return static_cast<pid_t>(pid);
    // ENOSYS (no clone3 before Linux 5.3), E2BIG or EINVAL (no CLONE_INTO_CGROUP before 5.7):
    // fork, and the child joins.
  }
  return fork();
}

void JoinRunCgroup() {
  int fd = g_procs_fd.load();
  if (fd < 0 || g_born_inside) return;
  ssize_t ignored = write(fd, "0", 1);  // "0": the writer itself
  (void)ignored;
}

void KillCgroup(const std::string& folder, double patience_s) {
  if (folder.empty()) return;
  int fd = open((folder + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t ignored = write(fd, "1", 1);  // its processes and those of the cgroups inside
    (void)ignored;
    close(fd);
  }
  RemoveCgroupTree(folder, patience_s);
}

void KillRunCgroup() {
  if (g_owner.load() != getpid()) return;
  KillCgroup(g_folder, 1.0);
  g_folder[0] = '\0';
}

}  // namespace rprof
