// A run placed on its machine's roofline: for every memory level whose bytes are known,
// attainable = min(compute peak, AI_level × bandwidth_level); the binding ceiling is the lowest;
// achieved / attainable says how far the run is from its roof. Judged against ceilings of the
// run's own precision and thread count, never all-core ceilings for a one-thread run.
#ifndef RPROF_ROOFLINE_PLACEMENT_H_
#define RPROF_ROOFLINE_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metric.h"
#include "machine/machine_profile.h"

namespace rprof {

struct RunShape {
  std::string precision;  // "fp64", "fp32"; "" places against the best of both
  int threads = 1;
};

// One level's view of the run, for one source of bytes (model, sim, pmu).
struct LevelPlacement {
  std::string level;        // "l1", "l2", "l3", "dram"
  Source source;            // where the run's bytes (and FLOPs) came from
  double ai = 0;            // FLOP/byte
  double bandwidth = 0;     // GB/s, the level's ceiling
  std::string bandwidth_ceiling;  // e.g. "dram_triad"
  double attainable = 0;    // GFLOP/s = min(peak, ai × bandwidth)
  double ridge_ai = 0;      // peak / bandwidth: where the level's roof meets the compute roof
  bool memory_bound = false;  // ai < ridge_ai
};

struct Placement {
  bool placed = false;
  std::string reason;  // why not placed: no FLOPs, no bytes, no matching ceilings
  std::string compute_ceiling;  // e.g. "fp64_avx2_fma"
  double peak = 0;              // GFLOP/s at the run's precision and threads
  std::optional<double> achieved;  // GFLOP/s
  Source achieved_source = Source::kModel;
  std::vector<LevelPlacement> levels;  // every level with bytes, for every source
  // The binding ceiling: the lowest attainable among the preferred source's levels.
  std::string binding;          // "dram bandwidth (dram_triad)", "compute (fp64_avx2_fma)"
  std::string bound;            // the binding ceiling's kind alone: "dram bandwidth", "compute"
  double attainable = 0;
  std::optional<double> percent_of_roof;  // achieved / attainable × 100
  std::string verdict;          // "DRAM-bandwidth-bound at 71 % of its roof"
  // The binding level's bytes are the model's alone (compulsory: each input read once, each
  // output written once), no source measured any: they are a lower bound on the traffic, so the
  // AI is an upper bound and the roof may be lower. The verdict then never claims a compute
  // bound ("compute-side by compulsory AI …") and says the traffic is unknown.
  bool bytes_compulsory_only = false;
  // Where the instruction mix is known (sim, or PMU FLOP events split by width): the compute roof
  // of the ISA the run actually used, as Intel Advisor draws several roofs. Empty otherwise.
  std::string isa_roof_ceiling;  // e.g. "fp64_scalar_fma"
  double isa_roof = 0;           // GFLOP/s
  std::string isa_note;          // "scalar code (100 % of FLOPs): the fp64 scalar roof is …"
};

// Where a run stands on its machine's roofline, or why it cannot be placed.
struct RunPlacement {
  int64_t profile_id = 0;  // 0: no machine profile; `missing` says what to do
  std::string missing;
  Placement placement;
};

// The roof of a memory level at this thread count: its best ceiling over the load, copy and
// triad patterns. Non-temporal stores are left out: they are a way of writing code, not what the
// level delivers to ordinary loads and stores. nullptr when the profile has none.
const Ceiling* BandwidthRoof(const MachineProfile& profile, const std::string& level, int threads);

// Places `metrics` (a run's, whole-run region) against `profile`. Never fails: an unplaceable
// run gets placed = false and the reason.
Placement PlaceRun(const std::vector<Metric>& metrics, const RunShape& shape,
                   const MachineProfile& profile);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_PLACEMENT_H_
