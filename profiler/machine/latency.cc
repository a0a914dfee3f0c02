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

// A random number in [0, n) from a multiply's high half: no division.
uint64_t RandomBelow(uint64_t n, uint64_t* state) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(NextRandom(state)) * n) >> 64);
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
      std::swap(next[i], next[RandomBelow(i, &state)]);
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

void PointerCycle::Link(char* base, uint64_t lines, int line_bytes) {
  const uint64_t step = static_cast<uint64_t>(line_bytes);
  auto next = [&](uint64_t line) { return reinterpret_cast<char**>(base + line * step); };
  if (base != base_ || line_bytes != line_bytes_ || lines < lines_ || lines_ < 2) {
    state_ = seed_;
    BuildPointerCycle(base, lines, line_bytes, state_);
    NextRandom(&state_);  // growth continues from another number than the build's first
  } else {
    for (uint64_t i = lines_; i < lines; ++i) {
      uint64_t j = RandomBelow(i, &state_);
      *next(i) = *next(j);
      *next(j) = base + i * step;
    }
    // In order: every line once, as a build's last pass writes them (the chase needs the set
    // warm in whatever cache holds it).
    for (uint64_t i = 0; i < lines; ++i) {
      char* volatile* p = next(i);
      *p = *p;
    }
  }
  base_ = base;
  lines_ = lines;
  line_bytes_ = line_bytes;
}

bool MeasureLatency(ThreadTeam& team, HugeBuffer* buffer, const LatencyOptions& opts,
                    LatencyResult* result, Error* err, PointerCycle* cycle) {
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
    PointerCycle own(opts.seed);
    (cycle != nullptr ? cycle : &own)->Link(base, lines, line);

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
