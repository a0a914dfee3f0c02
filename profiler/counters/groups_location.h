// Where the metric-group data files are: $RPROF_GROUPS_DIR, else the installed data dir
// (<prefix>/share/rprof/groups), else the source tree this rprof was built from (so a binary in
// build/ works without installing). The user's override folder is GroupLibrary's business.
#ifndef RPROF_COUNTERS_GROUPS_LOCATION_H_
#define RPROF_COUNTERS_GROUPS_LOCATION_H_

#include <string>

namespace rprof {

std::string GroupsDataDir();

}  // namespace rprof

#endif  // RPROF_COUNTERS_GROUPS_LOCATION_H_
