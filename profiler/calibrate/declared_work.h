// Declared work against measured work: one check for every way work is declared — a kernel's
// model, `--flops`/`--bytes` for a program, `rprof_region_declare` for a marker region, a Google
// Benchmark's FLOP counter. A declaration more than kDeclaredTolerance from what was counted is
// a mistake somewhere (a formula that misses work, a counter of one iteration's work, a
// declaration left behind when the code changed), and it would otherwise place the run on a
// made-up roof whenever the counts are not measured: an `untrusted` note names both values.
#ifndef RPROF_CALIBRATE_DECLARED_WORK_H_
#define RPROF_CALIBRATE_DECLARED_WORK_H_

#include <vector>

#include "core/run.h"

namespace rprof {

// |declared / counted - 1| above this is a disagreement.
inline constexpr double kDeclaredTolerance = 0.05;

// One `untrusted` note per region ("" the whole run) and quantity whose declared (model) value
// differs from the measured count by more than kDeclaredTolerance, naming both. FLOPs: `flops`
// against sim's count, else pmu's (sim first: it is exact where the PMU may overcount or
// approximate). Bytes: a program's or a region's declared `bytes_dram`, compulsory, against the
// traffic of the outermost level that reaches them (the level the data came from: DRAM, or a
// cache for data already there, where more traffic than declared is reuse), and against L1's
// (every access) when no level does; a kernel's model bytes are not checked, because they are
// compulsory by definition (each input once) and their gap to the traffic is what the run
// teaches, shown side by side. A gap past 100 times reads "more than 100x". Empty when
// everything agrees or nothing is both declared and measured.
std::vector<TrustNote> DeclaredWorkNotes(const RunRecord& run);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_DECLARED_WORK_H_
