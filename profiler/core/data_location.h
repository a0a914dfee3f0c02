// Where rprof's data files (metric groups, the calibration plan) are: installed under
// <prefix>/share/rprof, else in the source tree this rprof was built from, so a binary in build/
// works without installing.
#ifndef RPROF_CORE_DATA_LOCATION_H_
#define RPROF_CORE_DATA_LOCATION_H_

#include <string>

namespace rprof {

// <prefix>/share/rprof/INSTALLED_NAME when it exists, else RPROF_SOURCE_DIR/SOURCE_PATH.
std::string DataPath(const std::string& installed_name, const std::string& source_path);

}  // namespace rprof

#endif  // RPROF_CORE_DATA_LOCATION_H_
