#include "counters/sim/simtool_location.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "counters/simtool/simtool_config.h"

namespace rprof {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// valgrind's own tool folder: where its launcher was configured to look (Debian:
// /usr/libexec/valgrind), found by its preload library.
std::string StockToolFolder() {
  for (const char* dir :
       {"/usr/libexec/valgrind", "/usr/lib/x86_64-linux-gnu/valgrind", "/usr/lib/valgrind",
        "/usr/local/libexec/valgrind", "/usr/local/lib/valgrind"}) {
    std::string preload = std::string(dir) + "/vgpreload_core-amd64-linux.so";
    if (access(preload.c_str(), R_OK) == 0) return dir;
  }
  return "";
}

// Whether this process is a binary of the build tree rprof was configured in.
bool RunningFromBuildTree() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return false;
  self[n] = '\0';
  std::string root = std::string(RPROF_BUILD_ROOT) + "/";
  return std::string(self).rfind(root, 0) == 0;
}

}  // namespace

std::string SimtoolPath(Error* why) {
  // Set and empty is unset, as for most variables: `RPROF_SIMTOOL= rprof ...` must not
  // switch simulators behind the user's back.
  if (const char* env = std::getenv("RPROF_SIMTOOL"); env != nullptr && *env != '\0') {
    std::string path = env;
    if (path == "none") {
      Fail(why, ErrorKind::kEnvironment, "RPROF_SIMTOOL=" + path + " turns rprofsim off");
      return "";
    }
    if (IsExecutable(path)) return path;
    Fail(why, ErrorKind::kEnvironment, "RPROF_SIMTOOL=" + path + ": not an executable file");
    return "";
  }
  bool built = RunningFromBuildTree();
  for (const char* path : {built ? RPROF_SIMTOOL_BUILD_PATH : RPROF_SIMTOOL_INSTALL_PATH,
                           built ? RPROF_SIMTOOL_INSTALL_PATH : RPROF_SIMTOOL_BUILD_PATH})
    if (IsExecutable(path)) return path;
  std::string not_built = RPROF_SIMTOOL_WHY_NOT;
  Fail(why, ErrorKind::kEnvironment,
       not_built.empty() ? std::string("rprofsim not found at ") + RPROF_SIMTOOL_INSTALL_PATH
                         : "rprofsim was not built: " + not_built);
  return "";
}

bool PrepareSimtoolLib(const std::string& tool, const std::string& dir, Error* err) {
  std::string stock = StockToolFolder();
  if (stock.empty()) {
    Fail(err, ErrorKind::kEnvironment,
         "valgrind's tool folder (with vgpreload_core-amd64-linux.so) not found");
    return false;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    Fail(err, ErrorKind::kEnvironment, "cannot create " + dir + ": " + std::strerror(errno));
    return false;
  }
  auto link = [&](const std::string& target, const std::string& name) {
    std::string path = dir + "/" + name;
    unlink(path.c_str());
    if (symlink(target.c_str(), path.c_str()) == 0) return true;
    Fail(err, ErrorKind::kEnvironment, "cannot link " + path + ": " + std::strerror(errno));
    return false;
  };
  DIR* d = opendir(stock.c_str());
  if (d == nullptr) {
    Fail(err, ErrorKind::kEnvironment, "cannot read " + stock + ": " + std::strerror(errno));
    return false;
  }
  bool ok = true;
  while (struct dirent* ent = readdir(d)) {
    std::string name = ent->d_name;
    if (name == "." || name == ".." || name.rfind("rprofsim-", 0) == 0) continue;
    if (!(ok = link(stock + "/" + name, name))) break;
  }
  closedir(d);
  return ok && link(tool, "rprofsim-amd64-linux");
}

}  // namespace rprof
