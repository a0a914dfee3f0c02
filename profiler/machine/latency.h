// Load-to-use latency: a pointer chase over a random cyclic permutation of the cache lines of a
// working set. Each load's address comes from the previous load and the order is random, so
// neither out-of-order execution nor the prefetchers can hide the latency: ns per load is the
// latency of whatever level holds the working set, page walks included where the TLB does not
// reach (huge pages, where the kernel gives them, keep that small).
#ifndef RPROF_MACHINE_LATENCY_H_
#define RPROF_MACHINE_LATENCY_H_

#include <cstdint>
#include <string>

#include "core/error.h"
#include "machine/huge_buffer.h"
#include "machine/thread_team.h"

namespace rprof {

struct LatencyOptions {
  uint64_t working_set_bytes = 1 << 20;  // rounded down to whole lines (at least 2)
  int line_bytes = 64;                   // one pointer per line
  double seconds_per_rep = 0.01;         // the chase length is calibrated to this
  int repetitions = 3;
  // When no repetition confirms the best (BestConfirmed), the repetitions are taken once more on
  // the same cycle and the steadier set stands: the cycle is not built again (at 362 MiB the
  // build takes ten times the chase).
  bool confirm = true;
  uint64_t seed = 0x9e3779b97f4a7c15ull;  // the permutation is a pure function of the seed
};

struct LatencyResult {
  RepStats ns;  // ns per dependent load; best = min over repetitions
  uint64_t working_set_bytes = 0;
  uint64_t loads_per_rep = 0;
  bool repeated = false;  // the repetitions were taken again (LatencyOptions::confirm)
};

// Measures on worker 0 of the team. `buffer` is the memory to chase through: reused between
// calls, (re)mapped and first touched by worker 0 when smaller than the working set. Returns
// false and sets *err when memory cannot be mapped.
[[nodiscard]] bool MeasureLatency(ThreadTeam& team, HugeBuffer* buffer, const LatencyOptions& opts,
                                  LatencyResult* result, Error* err);

// Writes a single random cycle through `lines` lines of `line_bytes` bytes at `base`: the first
// 8 bytes of each line point to the next line of the cycle (Sattolo's algorithm, so every line is
// on the one cycle). Exposed for tests.
void BuildPointerCycle(char* base, uint64_t lines, int line_bytes, uint64_t seed);

}  // namespace rprof

#endif  // RPROF_MACHINE_LATENCY_H_
