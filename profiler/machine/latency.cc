#include "machine/latency.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace rprof {
namespace {

// splitmix64: a fast, well-mixed generator; quality matters little, speed does (a 4 GiB working
// set has 64 M lines to shuffle).
uint64_t NextRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Follows `loads` pointers from `p` (a multiple of 16) and returns where it stopped. Never
// instrumented: ASan's shadow load beside each load would add a cache miss to the latency it
// measures (and the buffer is mmap'd: ASan has no redzones there to check).
__attribute__((no_sanitize("address"))) void* Chase(void* p, uint64_t loads) {
  for (uint64_t i = 0; i < loads; i += 16) {
#define RPROF_STEP p = *static_cast<void**>(p);
    RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP
        RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP RPROF_STEP
#undef RPROF_STEP
  }
  return p;
}

}  // namespace

void BuildPointerCycle(char* base, uint64_t lines, int line_bytes, uint64_t seed) {
  // Sattolo's shuffle: next[i] starts as i; swapping next[i] with a next[j], j < i, for
  // i = n-1 .. 1 leaves i -> next[i] one cycle through all lines. The shuffle runs on a compact
  // array of line numbers (4 bytes a line, not the 64 of a line in place: 16 times fewer pages
  // and cache lines under its random swaps), and the pointers are then written in one
  // sequential pass: 0.55 s to 0.30 s for 1 GiB on the Intel Xeon guest, where the latency
  // sweep's largest points built their cycles in most of its 4 s.
  auto shuffle_and_link = [&](auto* next) {
    for (uint64_t i = 0; i < lines; ++i) next[i] = i;
    uint64_t state = seed;
    for (uint64_t i = lines - 1; i > 0; --i) {
      // A random number in [0, i) by a multiply's high half: no division in the loop.
      uint64_t j =
          static_cast<uint64_t>((static_cast<unsigned __int128>(NextRandom(&state)) * i) >> 64);
      std::swap(next[i], next[j]);
    }
    const uint64_t step = static_cast<uint64_t>(line_bytes);
    for (uint64_t i = 0; i < lines; ++i)
      *reinterpret_cast<void**>(base + i * step) = base + static_cast<uint64_t>(next[i]) * step;
  };
  if (lines <= std::numeric_limits<uint32_t>::max()) {
    std::vector<uint32_t> next(lines);
    shuffle_and_link(next.data());
  } else {
    std::vector<uint64_t> next(lines);
    shuffle_and_link(next.data());
  }
}

bool MeasureLatency(ThreadTeam& team, HugeBuffer* buffer, const LatencyOptions& opts,
                    LatencyResult* result, Error* err) {
  const int line = std::max(16, opts.line_bytes);
  const uint64_t lines = std::max<uint64_t>(2, opts.working_set_bytes / line);
  const uint64_t bytes = lines * line;
  bool ok = true;
  team.Run(1, [&](int) {
    if (buffer->size() < bytes && !buffer->Ensure(bytes, err)) {
      ok = false;
      return;
    }
    char* base = buffer->data();
    BuildPointerCycle(base, lines, line, opts.seed);

    // Warm up (the build left much of the set in cache; one more partial lap settles it), then
    // calibrate the chase length to the target time.
    void* p = base;
    uint64_t loads = 1024;
    double t = 0;
    double target = std::max(1e-3, opts.seconds_per_rep);
    for (;;) {
      double t0 = NowSeconds();
      p = Chase(p, loads);
      t = NowSeconds() - t0;
      if (t >= target / 8) break;
      loads *= t < target / 64 ? 8 : 2;
    }
    loads = std::max<uint64_t>(16, static_cast<uint64_t>(loads * (target / t)) / 16 * 16);
    auto repetitions = [&] {
      std::vector<double> ns;
      for (int rep = 0; rep < std::max(1, opts.repetitions); ++rep) {
        double t0 = NowSeconds();
        p = Chase(p, loads);
        ns.push_back((NowSeconds() - t0) / static_cast<double>(loads) * 1e9);
      }
      return Summarize(ns, /*higher_is_better=*/false);
    };
    result->ns = repetitions();
    result->repeated = false;
    if (opts.confirm && !BestConfirmed(result->ns)) {
      RepStats again = repetitions();
      if (again.spread_pct < result->ns.spread_pct) result->ns = again;
      result->repeated = true;
    }
    asm volatile("" : : "r"(p));
    result->loads_per_rep = loads;
  });
  result->working_set_bytes = bytes;
  return ok;
}

}  // namespace rprof
