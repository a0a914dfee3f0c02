// How much one run may hold, at every way in (a marker results file, a plugin, import, merge):
// a program that opens a million regions or names one with a megabyte cost rprof minutes and
// gigabytes, its database hundreds of megabytes, and every later `history` its share. Entrances
// that measure leave the excess out and say so in a note; import and merge, which copy a run
// whole or not at all, refuse it with the key named (RunBoundsViolation).
#ifndef RPROF_CORE_RUN_BOUNDS_H_
#define RPROF_CORE_RUN_BOUNDS_H_

#include <cstddef>
#include <string>

#include "core/run.h"

namespace rprof {

// Marker regions one run keeps; and the regions rprof finds in the code besides them (hot
// functions and their lines: about 30 × 11 at most today), which a stored run may add.
constexpr size_t kMaxRegions = 10000;
constexpr size_t kMaxCodeRegions = 1000;
// The longest region name kept, in bytes: a name is for people to read and type.
constexpr size_t kMaxRegionNameBytes = 1024;

// What in `run` is beyond the bounds the store holds every run to, naming the key: its note or a
// metric's over kMaxNoteBytes or holding a NUL byte (SQLite's text would end there), a region
// name too long, too many regions, a repetition's time or a time metric negative or not finite,
// ended_at before started_at. "" when it is within them.
std::string RunBoundsViolation(const RunRecord& run);

}  // namespace rprof

#endif  // RPROF_CORE_RUN_BOUNDS_H_
