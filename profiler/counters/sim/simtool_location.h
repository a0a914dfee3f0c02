// Where rprofsim, rprof's own valgrind tool (counters/simtool/), is, and the folder valgrind
// loads it from.
//
// valgrind finds a tool as $VALGRIND_LIB/<tool>-amd64-linux, with its preload library and
// default suppressions in the same folder; rprofsim is installed apart from valgrind's own, so
// each run gets a folder of its own with the stock files linked in and the tool beside them.
#ifndef RPROF_COUNTERS_SIM_SIMTOOL_LOCATION_H_
#define RPROF_COUNTERS_SIM_SIMTOOL_LOCATION_H_

#include <string>

#include "core/error.h"

namespace rprof {

// The tool's path: $RPROF_SIMTOOL when set and not empty ("none" turns the tool off: callgrind
// is used), else this build tree's when rprof runs from it, the installed one otherwise, each
// falling back on the other. Empty when none is usable; *why (kEnvironment; may be null) then
// says why ("rprofsim was not built: ..."), for `rprof doctor`.
[[nodiscard]] std::string SimtoolPath(Error* why);

// Makes `dir` a VALGRIND_LIB folder: links to every file of valgrind's own tool folder (where
// vgpreload_core-amd64-linux.so is) and to `tool`. Returns false with *err (kEnvironment) when
// valgrind's folder cannot be found or a link cannot be made.
[[nodiscard]] bool PrepareSimtoolLib(const std::string& tool, const std::string& dir, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_SIMTOOL_LOCATION_H_
