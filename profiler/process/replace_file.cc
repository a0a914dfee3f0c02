#include "process/replace_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rprof {

namespace {

bool WriteWhole(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The file a path names, its links followed: renaming over a symbolic link would replace the
// link, not the file the user meant. The path itself where it does not exist yet.
std::string Target(const std::string& path) {
  char resolved[PATH_MAX];
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) &&
      realpath(path.c_str(), resolved) != nullptr)
    return resolved;
  return path;
}

bool FailWithErrno(Error* why, int error) {
  return Fail(why, ErrorKind::kEnvironment, std::strerror(error));
}

// Removes the temporary files of `target` that writers killed midway left (".NAME.rprof-PID"
// whose PID no longer runs): nothing can remove its own after SIGKILL, and each would stay
// beside the file for good. A live PID's is kept: it may be another rprof writing now.
void SweepStaleReplacements(const std::string& target) {
  size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  const std::string prefix =
      "." + (slash == std::string::npos ? target : target.substr(slash + 1)) + ".rprof-";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
      unlink((slash == std::string::npos ? name : dir + name).c_str());
  }
  closedir(d);
}

}  // namespace

std::string ReplacementPath(const std::string& path) {
  const std::string target = Target(path);
  size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  return dir + "." + name + ".rprof-" + std::to_string(getpid());
}

bool CommitReplacement(const std::string& temporary, const std::string& path, Error* why) {
  const std::string target = Target(path);
  if (std::rename(temporary.c_str(), target.c_str()) == 0) {
    SweepStaleReplacements(target);
    return true;
  }
  int error = errno;
  unlink(temporary.c_str());
  return FailWithErrno(why, error);
}

void DropReplacement(const std::string& temporary) { unlink(temporary.c_str()); }

bool ReplaceFile(const std::string& path, std::string_view content, Error* why) {
  struct stat st;
  const std::string target = Target(path);
  if (stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or a pipe: written in place, as a shell's redirection would.
    int fd = open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return FailWithErrno(why, errno);
    bool written = WriteWhole(fd, content);
    int error = errno;
    close(fd);
    return written || FailWithErrno(why, error);
  }
  const std::string temporary = ReplacementPath(path);
  // 0666 less the umask, as a new file from the shell gets; an old file's mode is kept.
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return FailWithErrno(why, errno);
  bool kept_mode = stat(target.c_str(), &st) != 0 || fchmod(fd, st.st_mode & 07777) == 0;
  (void)kept_mode;  // a mode that cannot be kept is no reason to lose the report
  // fsync before the rename: after a crash the file is the old one or the new one, whole.
  bool written = WriteWhole(fd, content) && fsync(fd) == 0;
  int error = errno;
  if (close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) {
    unlink(temporary.c_str());
    return FailWithErrno(why, error);
  }
  return CommitReplacement(temporary, path, why);
}

}  // namespace rprof
