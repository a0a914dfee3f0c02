#include "targets/target_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
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
    return Fail(err, ErrorKind::kUsage,
                "'" + target + "' is not a kernel, and no program of that name is on PATH");
  struct stat st;
  if (stat(path->c_str(), &st) != 0)
    return Fail(err, ErrorKind::kUsage, *path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return Fail(err, ErrorKind::kUsage, *path + ": is a directory, not a program");
  if (access(path->c_str(), X_OK) != 0)
    return Fail(err, ErrorKind::kUsage,
                *path + ": not executable (" + std::strerror(errno) + "); chmod +x it");
  std::ifstream file(*path, std::ios::binary);
  std::string first_line;
  std::getline(file, first_line);
  if (first_line.compare(0, 4, "\x7f" "ELF") != 0) {
    std::string hint = "rprof runs ELF programs";
    if (first_line.rfind("#!", 0) == 0) {
      // Name the script's own interpreter: "#!/usr/bin/env python3" -> "/usr/bin/env python3".
      std::string interpreter = first_line.substr(2);
      while (!interpreter.empty() && (interpreter.front() == ' ' || interpreter.front() == '\t'))
        interpreter.erase(interpreter.begin());
      while (!interpreter.empty() && std::isspace(static_cast<unsigned char>(interpreter.back())))
        interpreter.pop_back();
      hint = "a script: run its interpreter, rprof " + interpreter + " " + *path;
    }
    return Fail(err, ErrorKind::kUsage, *path + ": not an ELF executable; " + hint);
  }
  return true;
}

}  // namespace rprof
