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
  // Without a PointerCycle, the permutation is a pure function of the seed.
  uint64_t seed = 0x9e3779b97f4a7c15ull;
};

struct LatencyResult {
  RepStats ns;  // ns per dependent load; best = min over repetitions
  uint64_t working_set_bytes = 0;
  uint64_t loads_per_rep = 0;
  bool repeated = false;  // the repetitions were taken again (LatencyOptions::confirm)
};

// The random cycle a chase follows, kept from one working set to the next of a sweep (small to
// large) so that each line is shuffled in once, not once per working set: a sweep to 1 GiB built
// 3.4 GiB of cycles from scratch, most of its latency phase on the Intel Xeon guest.
class PointerCycle {
 public:
  explicit PointerCycle(uint64_t seed) : seed_(seed), state_(seed) {}
  // Makes lines [0, lines) of `base`, `line_bytes` apart, one random cycle. Where the last call
  // linked fewer lines of the same memory at the same spacing, the cycle grows: each new line goes
  // in after a uniformly random line already on it, which keeps a uniformly random cycle uniform
  // ((n-1)! cycles of n lines, n places each: the n! cycles of n+1). Otherwise it is built anew
  // (BuildPointerCycle). Then every line's pointer is written again in order, as a build's last
  // pass writes them, so that the set is as warm (and dirty) in the caches as a build left it:
  // a chase repetition visits a fraction of an L3-sized cycle. (Read in order instead, the Intel
  // Xeon guest's L3 plateau ended anywhere from 22.6 to 256 MiB from one profile to the next.)
  void Link(char* base, uint64_t lines, int line_bytes);

 private:
  uint64_t seed_;
  uint64_t state_;  // the generator, continued from one growth to the next
  char* base_ = nullptr;
  uint64_t lines_ = 0;
  int line_bytes_ = 0;
};

// Measures on worker 0 of the team. `buffer` is the memory to chase through: reused between
// calls, (re)mapped and first touched by worker 0 when smaller than the working set. `cycle`:
// the cycle of the previous call on this buffer, grown to this working set (a sweep); null, a
// cycle built for this call from opts.seed. Returns false and sets *err when memory cannot be
// mapped.
[[nodiscard]] bool MeasureLatency(ThreadTeam& team, HugeBuffer* buffer, const LatencyOptions& opts,
                                  LatencyResult* result, Error* err, PointerCycle* cycle = nullptr);

// Writes a single random cycle through `lines` lines of `line_bytes` bytes at `base`: the first
// 8 bytes of each line point to the next line of the cycle (Sattolo's algorithm, so every line is
// on the one cycle). Exposed for tests.
void BuildPointerCycle(char* base, uint64_t lines, int line_bytes, uint64_t seed);

}  // namespace rprof

#endif  // RPROF_MACHINE_LATENCY_H_
