// From a measured curve (working set -> GB/s or ns) to the levels of the memory hierarchy: find
// the plateaus, name them L1, L2, ... and DRAM, and give each the size up to which it holds.
// Sizes reported by sysfs only guide the naming; they are never where a level's value is read
// (a VM here reports a 480 MiB L3 whose bandwidth and latency are DRAM's from 16-32 MB on).
//
// Deterministic: the same curve gives the same levels.
#ifndef RPROF_MACHINE_HIERARCHY_H_
#define RPROF_MACHINE_HIERARCHY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

struct CurvePoint {
  uint64_t working_set_bytes = 0;
  double value = 0;  // GB/s or ns; > 0
};

struct HierarchyOptions {
  // true for rates (GB/s: faster levels are higher), false for latencies (ns).
  bool higher_is_better = true;
  // A point further than this fraction from its plateau's median is a knee point rather than part
  // of the plateau. Neighbouring levels differ by 1.5x or more in bandwidth and 2x or more in
  // latency; noise on a quiet machine is a few percent.
  double tolerance = 0.25;
  // Capacity sysfs reports for each data/unified cache level, as the measuring threads see it
  // together (AggregateCacheBytes), L1 first; may be empty. Sets how many levels to expect.
  std::vector<uint64_t> reported_sizes;
  // Whether the sweep went far enough to reach memory: then the last plateau is DRAM. When it
  // is false, the last plateau is DRAM only if there are more plateaus than reported caches.
  bool reached_memory = true;
};

struct DetectedLevel {
  std::string name;            // "l1", "l2", "l3", "l4", "dram"
  int cache_level = 0;         // 1, 2, ...; 0 for DRAM
  uint64_t reported_size = 0;  // from HierarchyOptions::reported_sizes; 0 for DRAM or unknown
  // Working sets of the first and last measured point on the plateau.
  uint64_t first_size = 0;
  uint64_t last_size = 0;
  // The level's effective capacity: the largest measured working set still on the plateau (the
  // true capacity lies between it and the next measured size). 0 for DRAM.
  uint64_t effective_size = 0;
  double median = 0;       // median value of the plateau's points
  double best = 0;         // max (rates) or min (latencies) of the plateau's points
  uint64_t best_size = 0;  // where `best` was measured
  int points = 0;          // measured points on the plateau
};

// Finds the levels in `curve` (any order; sorted by working set inside). Needs at least 2 points
// with positive values; returns false and sets *err otherwise.
//
// Method: in log space, the curve is split into at most (reported caches + 1) plateaus, in order,
// by exact dynamic programming: the split minimises the sum over plateau points of |value -
// plateau median|, plus log(1 + tolerance) for every point left out between two plateaus (a knee
// point), plus a fixed cost per plateau, so that a point further than `tolerance` from its
// plateau is a knee, one disturbed point inside a plateau stays in it (the median ignores it), and
// a flat stretch is never cut in two. The first and last points always belong to a plateau; a
// plateau inside the sweep has at least two points. A plateau's leading points that beat (all but
// a fifth of) its later points by more than a quarter of the tolerance (the tail of the knee
// before it), and its trailing points worse than its earlier points by as much (the start of the
// next knee), are left out, so they inflate neither `best` nor `effective_size`. Names: the first
// plateau is L1, the last DRAM (as above), and with fewer plateaus than reported caches those
// between go to the cache levels whose reported size is nearest their effective size, in order.
[[nodiscard]] bool DetectHierarchy(const std::vector<CurvePoint>& curve,
                                   const HierarchyOptions& opts, std::vector<DetectedLevel>* levels,
                                   Error* err);

// Human-readable size: "48 KiB", "1.25 MiB", "32 MiB", "2 GiB".
std::string FormatBytes(uint64_t bytes);

}  // namespace rprof

#endif  // RPROF_MACHINE_HIERARCHY_H_
