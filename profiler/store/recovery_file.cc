#include "store/recovery_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace rprof {

namespace fs = std::filesystem;

namespace {

// A file name from any text: letters, digits, '.', '-' and '_' kept, the rest made '-'.
std::string FileNamePart(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool plain = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '.' || c == '-' || c == '_';
    out += plain ? c : '-';
  }
  return out;
}

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string RecoveryDirectory() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  std::string state_home = xdg && *xdg     ? std::string(xdg)
                           : home && *home ? std::string(home) + "/.local/state"
                                           : std::string(".");
  return state_home + "/rprof/recovered";
}

bool WriteRecoveryFile(const RunRecord& run, std::string_view json, std::string* path,
                       std::string* err) {
  std::string dir = RecoveryDirectory();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *err = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  std::string uid = run.uid.empty() ? NewRunUid() : run.uid;
  *path = dir + "/run-" + FileNamePart(run.started_at) + "-" + FileNamePart(uid) + ".json";
  std::string temporary = *path + ".part" + std::to_string(getpid());
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "cannot write " + temporary + ": " + std::strerror(errno);
    return false;
  }
  std::string text = std::string(json);
  if (text.empty() || text.back() != '\n') text += '\n';
  // fsync before the rename: after a crash the file is whole or absent, never empty.
  bool written = WriteAll(fd, text) && fsync(fd) == 0;
  int saved_errno = errno;
  if (close(fd) != 0 && written) {
    written = false;
    saved_errno = errno;
  }
  if (!written || std::rename(temporary.c_str(), path->c_str()) != 0) {
    if (written) saved_errno = errno;
    unlink(temporary.c_str());
    *err = "cannot write " + *path + ": " + std::strerror(saved_errno);
    return false;
  }
  return true;
}

bool InRecoveryDirectory(const std::string& path) {
  std::error_code ec;
  fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return false;
  fs::path dir = fs::weakly_canonical(fs::absolute(RecoveryDirectory(), ec), ec);
  return !ec && file.parent_path() == dir;
}

}  // namespace rprof
