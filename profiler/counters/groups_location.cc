#include "counters/groups_location.h"

#include <cstdlib>

#include "core/data_location.h"

namespace rprof {

std::string GroupsDataDir() {
  if (const char* env = std::getenv("RPROF_GROUPS_DIR"); env && *env) return env;
  return DataPath("groups", "profiler/counters/groups");
}

}  // namespace rprof
