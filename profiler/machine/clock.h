// The core clock as the code sees it, measured: a chain of dependent 64-bit integer multiplies
// runs at exactly one multiply per imul latency, 3 cycles on every Intel and AMD big core since
// 2008 (Nehalem, Bulldozer, Zen 1-5), so chain length x 3 / time is the clock. (A chain of
// dependent adds does not work: recent Intel cores fold immediate adds at rename and run such a
// chain faster than one add per cycle.) Not meaningful on cores with another imul latency
// (Intel Atom/E-cores: 5 cycles for 64-bit imul on some).
#ifndef RPROF_MACHINE_CLOCK_H_
#define RPROF_MACHINE_CLOCK_H_

#include <string>

#include "core/error.h"
#include "machine/isa.h"
#include "machine/thread_team.h"

namespace rprof {

// Latency of imul r64, r64 in cycles on the cores the clock measurement supports.
inline constexpr int kImulLatencyCycles = 3;

struct ClockOptions {
  double seconds_per_rep = 0.01;
  int repetitions = 5;
};

struct ClockResult {
  RepStats ghz;  // best = max over repetitions (interruptions only ever slow the chain)
};

// Clock of worker 0 with every other worker asleep: the one-core turbo clock.
[[nodiscard]] bool MeasureScalarClock(ThreadTeam& team, const ClockOptions& opts,
                                      ClockResult* result, Error* err);

// Clock of worker 0 while it interleaves the multiply chain with the widest FMA instructions
// `flags` allows (AVX-512 > AVX2 > SSE) and workers 1..threads-1 run the widest FMA kernel flat
// out: the clock under full vector load (AVX-512 frequency licences on Intel, the package power
// limit everywhere). threads in 1..team.size().
[[nodiscard]] bool MeasureVectorClock(ThreadTeam& team, const IsaFlags& flags, int threads,
                                      const ClockOptions& opts, ClockResult* result, Error* err);

}  // namespace rprof

#endif  // RPROF_MACHINE_CLOCK_H_
