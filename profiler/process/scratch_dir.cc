#include "process/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rprof {

namespace {

constexpr const char* kPrefix = "rprof-";
// Held with flock for the owner's life: the kernel drops the lock when the owner dies, however
// it dies, so a sweeper can tell a live directory from a dead one without trusting pids.
constexpr const char* kLockName = ".owner";

std::string g_dir;
int g_lock_fd = -1;
std::atomic<unsigned> g_counter{0};

std::string TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp ? tmp : "/tmp";
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

void RemoveTree(const std::string& dir) {
  nftw(dir.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

bool CreateDir(Error* err) {
  std::string templ = TempRoot() + "/" + kPrefix + std::to_string(getpid()) + ".XXXXXX";
  if (mkdtemp(templ.data()) == nullptr)
    return Fail(err, ErrorKind::kEnvironment,
                "cannot create a temporary directory in " + TempRoot() + ": " +
                    std::strerror(errno) + "; free space there or set TMPDIR");
  std::string lock = templ + "/" + kLockName;
  int fd = open(lock.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  // Blocking: a sweeper testing the lock holds it for an instant, and must not make us fail.
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    if (fd >= 0) close(fd);
    RemoveTree(templ);
    return Fail(err, ErrorKind::kEnvironment, "cannot lock " + lock + ": " + std::strerror(errno));
  }
  g_dir = templ;
  g_lock_fd = fd;
  std::atexit(RemoveScratchDir);
  return true;
}

// Whether `dir` (one of rprof's) belongs to a live rprof. A held lock says so. A free lock, or
// none, may also be a directory its owner has just created and not yet locked: the owner's pid,
// from the name, must be gone as well (a reused pid only keeps a dead directory a while longer).
bool OwnerAlive(const std::string& dir, const std::string& name) {
  int fd = open((dir + "/" + kLockName).c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    bool locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
    close(fd);
    if (locked) return true;
  }
  pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + std::strlen(kPrefix)));
  return pid <= 0 || kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace

bool ScratchPath(const std::string& stem, std::string* path, Error* err) {
  if (g_dir.empty() && !CreateDir(err)) return false;
  *path = g_dir + "/" + stem + "." + std::to_string(g_counter.fetch_add(1));
  return true;
}

void RemoveScratchDir() {
  if (g_dir.empty()) return;
  RemoveTree(g_dir);
  if (g_lock_fd >= 0) close(g_lock_fd);
  g_dir.clear();
  g_lock_fd = -1;
}

int SweepDeadScratchDirs() {
  std::string root = TempRoot();
  DIR* d = opendir(root.c_str());
  if (!d) return 0;
  int removed = 0;
  while (struct dirent* ent = readdir(d)) {
    std::string name = ent->d_name;
    if (name.rfind(kPrefix, 0) != 0) continue;
    // rprof-<digits>.<suffix>: ours; anything else under that prefix is left alone.
    size_t digits = name.find_first_not_of("0123456789", std::strlen(kPrefix));
    if (digits == std::strlen(kPrefix) || digits == std::string::npos || name[digits] != '.')
      continue;
    std::string dir = root + "/" + name;
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) continue;
    if (dir == g_dir || OwnerAlive(dir, name)) continue;
    RemoveTree(dir);
    ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace rprof
