#include "targets/target_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace rprof {

namespace {

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = colon + 1;
  }
  return "";
}

}  // namespace

bool LooksLikePlugin(const std::string& target) {
  size_t slash = target.rfind('/');
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  size_t so = base.find(".so");
  return so != std::string::npos && so > 0 &&
         (so + 3 == base.size() || base[so + 3] == '.');
}

bool LooksLikePath(const std::string& target) { return target.find('/') != std::string::npos; }

bool OnPath(const std::string& name) { return !LooksLikePath(name) && !FindOnPath(name).empty(); }

bool ResolveExecutable(const std::string& target, std::string* path, Error* err) {
  *path = LooksLikePath(target) ? target : FindOnPath(target);
  if (path->empty())
    return Fail(err, ExitStatus::kUsage,
                "'" + target + "' is not a kernel, and no program of that name is on PATH");
  struct stat st;
  if (stat(path->c_str(), &st) != 0)
    return Fail(err, ExitStatus::kUsage, *path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return Fail(err, ExitStatus::kUsage, *path + ": is a directory, not a program");
  if (access(path->c_str(), X_OK) != 0)
    return Fail(err, ExitStatus::kUsage,
                *path + ": not executable (" + std::strerror(errno) + "); chmod +x it");
  std::ifstream file(*path, std::ios::binary);
  char magic[4] = {};
  file.read(magic, 4);
  if (std::memcmp(magic, "\x7f" "ELF", 4) != 0) {
    std::string hint = magic[0] == '#' && magic[1] == '!'
                           ? "a script: run its interpreter, e.g. rprof /bin/sh " + *path
                           : "rprof runs ELF programs";
    return Fail(err, ExitStatus::kUsage, *path + ": not an ELF executable; " + hint);
  }
  return true;
}

}  // namespace rprof
