#include "core/data_location.h"

#include <sys/stat.h>

#include "rprof_config.h"

namespace rprof {

std::string DataPath(const std::string& installed_name, const std::string& source_path) {
  struct stat st;
  std::string installed = std::string(RPROF_DATADIR) + "/" + installed_name;
  if (stat(installed.c_str(), &st) == 0) return installed;
  return std::string(RPROF_SOURCE_DIR) + "/" + source_path;
}

}  // namespace rprof
