#include "counters/groups_location.h"

#include <sys/stat.h>

#include <cstdlib>

#include "rprof_config.h"

namespace rprof {

std::string GroupsDataDir() {
  if (const char* env = std::getenv("RPROF_GROUPS_DIR"); env && *env) return env;
  struct stat st;
  std::string installed = std::string(RPROF_DATADIR) + "/groups";
  if (stat(installed.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return installed;
  return std::string(RPROF_SOURCE_DIR) + "/profiler/counters/groups";
}

}  // namespace rprof
