// A run placed on its machine's roofline: for every memory level whose bytes are known,
// attainable = min(compute peak, AI_level × bandwidth_level); the binding ceiling is the lowest;
// achieved / attainable says how far the run is from its roof. Each source's bytes are held
// against the ceilings counted the same way (ConventionOf), and a figure above 100 % carries a
// note that says why. Judged against ceilings of the
// run's own precision and thread count, never all-core ceilings for a one-thread run.
#ifndef RPROF_ROOFLINE_PLACEMENT_H_
#define RPROF_ROOFLINE_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metric.h"
#include "core/run.h"
#include "machine/machine_profile.h"

namespace rprof {

// The run's own work, which chooses its roof.
struct RunShape {
  // "fp64", "fp32": that precision's roof; "mixed": a roof of both, weighted by `fp64_share`;
  // "" (not known) places against the best of both.
  std::string precision;
  double fp64_share = 0;       // "mixed" only: the fraction of the FLOPs done in fp64, 0..1
  std::string precision_note;  // how it was found: "fp64 (100 % of FLOPs, sim)"
  int threads = 1;
  std::string threads_note;  // how it was found: "2 threads (CPU time / wall time = 1.96)"
  // The ISA of the build sim replays when it is not the build that was timed: "avx2" for a
  // built-in kernel (the sim runner links an AVX2+FMA build, valgrind cannot run AVX-512, while
  // the timed build is -march=native). "" when sim runs the timed code itself (programs,
  // plugins). Then sim's vector shares do not say how wide the timed code's vectors were.
  std::string sim_build_isa;
  // Sim was asked for this run and gave no counts (its note says why: SourceWasAbsent): no
  // verdict or reason then advises `--counters sim`, which would only be refused again.
  bool sim_absent = false;
  // A rank of a parallel job, which refuses --counters sim: advice names kSimOutsideTheJob.
  bool rank_of_job = false;
  // A Python script's run: a region's work is declared with rprof.region(..., flops=...).
  bool python = false;
};

// What advice to count with sim says instead, for a run sim gave nothing.
inline constexpr const char* kSimGaveNothing =
    "sim was asked for and gave no counts for this run (its note says why)";

// The shape of a stored or just-measured run against `profile`. Precision: the run's declared
// one (kernels); else the measured per-precision split of its FLOPs (flops_dp, flops_sp of the
// first source in CountingSources() that has both): under 1 % of one precision counts as none,
// anything else is "mixed". Threads: a kernel's `threads` parameter, exactly (a count the
// profile lacks leaves the run unplaced, with the command that measures it); a program's
// declared `threads` metric (--threads), else its CPU time / wall time (cpu_time_s / time_s,
// clock) rounded, at least 1, moved to the nearest thread count the profile has compute
// ceilings for. The notes say which, and any move.
RunShape RunShapeOf(const RunRecord& run, const MachineProfile& profile);

// One level's view of the run, for one source of bytes (model, sim, pmu).
struct LevelPlacement {
  std::string level;  // "l1", "l2", "l3", "dram"
  Source source;      // where the run's bytes (and FLOPs) came from
  double ai = 0;      // FLOP/byte
  // How `source` counts bytes (model: compulsory; sim, pmu: actual traffic), and so the
  // convention the level's ceiling is taken in: like with like.
  ByteConvention convention = ByteConvention::kCompulsory;
  double bandwidth = 0;           // GB/s, the level's ceiling, in `convention`
  std::string bandwidth_ceiling;  // e.g. "dram_triad"
  double attainable = 0;          // GFLOP/s = min(peak, ai × bandwidth)
  double ridge_ai = 0;            // peak / bandwidth: where the level's roof meets the compute roof
  bool memory_bound = false;      // ai < ridge_ai
};

struct Placement {
  bool placed = false;
  std::string reason;  // why not placed: no FLOPs, no bytes, no matching ceilings
  // The shape placed against, and how it was found (RunShape's).
  std::string precision;  // "fp64", "fp32", "mixed", "" (best of both)
  std::string precision_note;
  int threads = 1;
  std::string threads_note;
  // e.g. "fp64_avx2_fma"; mixed work: both precisions' ceilings, "fp64_avx2_fma+fp32_avx2_fma",
  // combined as precision_note says.
  std::string compute_ceiling;
  double peak = 0;                 // GFLOP/s at the run's precision and threads
  std::optional<double> achieved;  // GFLOP/s
  Source achieved_source = Source::kModel;
  std::vector<LevelPlacement> levels;  // every level with bytes, for every source
  // The binding ceiling: the lowest attainable among the preferred source's levels.
  std::string binding;  // "dram bandwidth (dram_triad)", "compute (fp64_avx2_fma)"
  std::string bound;    // the binding ceiling's kind alone: "dram bandwidth", "compute"
  // The level whose roof binds (the lowest attainable of the preferred source's levels, also
  // when that roof is the compute roof) and its source: the point a plot emphasises. A run with
  // no FLOPs: the level whose roof its bytes come closest to (placed by bandwidth alone, with no
  // `levels`). "" when not placed.
  std::string binding_level;
  Source binding_source = Source::kModel;
  double attainable = 0;
  std::optional<double> percent_of_roof;  // achieved / attainable × 100
  std::string verdict;                    // "DRAM-bandwidth-bound at 71 % of its roof"
  // The binding level's bytes are the model's alone (compulsory: each input read once, each
  // output written once), no source measured any: they are a lower bound on the traffic, so the
  // AI is an upper bound and the roof may be lower. The verdict then never claims a compute
  // bound ("compute-side by compulsory AI …") and says the traffic is unknown.
  bool bytes_compulsory_only = false;
  // Set whenever percent_of_roof is above 100: why the run could beat its roof, e.g. "the
  // working set (2.4 MB) fits in L3 (6 MiB measured): held against DRAM, its bytes came from a
  // cache". Empty otherwise.
  std::string note;
  // The native run's time contradicts the binding level's measured bytes (roofline/time_check.h):
  // the trust note's detail, which bytes, rates and roofs. Then `bound`, `binding`, `attainable`,
  // `percent_of_roof` and `verdict` are those of the level the time supports, held against with
  // the binding level's bytes (`binding_level` stays the level the bytes were counted at). Empty
  // otherwise.
  std::string time_contradiction;
  // The compute roof is the code's own (roofline/compute_roof.h): where a measured source split
  // the FLOPs by vector width (sim; PMUs with such events), each ISA's share is held against
  // that ISA's ceiling, so scalar code is compute-bound under the scalar roof, never measured
  // against AVX2's. Then `compute_ceiling` and `peak` are that roof, also given here; else these
  // are empty and the widest roof of the precision was assumed (isa_note says so).
  bool isa_measured = false;
  std::string isa_roof_ceiling;  // e.g. "fp64_scalar_fma", "fp64_scalar_fma+fp64_avx2_fma"
  double isa_roof = 0;           // GFLOP/s
  std::string code;              // "scalar code", "mixed code (52 % scalar, 48 % AVX2)"
  // "scalar code (100 % of FLOPs, sim): the fp64 scalar roof is …", or which roof was assumed
  std::string isa_note;
  // The best roof of the run's precision whatever the code: what the widest vectors allow.
  std::string widest_ceiling;
  double widest_roof = 0;  // GFLOP/s
  // Bound by instruction overhead before memory or compute: the measured instructions per
  // FLOP are far above what any compiled loop needs (an interpreter, scalar bookkeeping), so
  // neither roof is what holds the code back. nullopt when not, or not measured (instructions
  // and FLOPs of one measuring source: sim, or a pmu that counts both).
  struct Overhead {
    double instructions_per_flop = 0;
    Source source = Source::kSim;
  };
  std::optional<Overhead> overhead;
};

// Above this many instructions per FLOP a run is overhead-bound: compiled loops need from well
// under 1 (vectors, FMA) to a few (scalar code with its loads, stores and loop control);
// CPython's naive matmul takes about 1,000.
inline constexpr double kOverheadInstructionsPerFlop = 50;

// One marker region of a run, placed as the run is.
struct RegionPlacement {
  std::string region;  // Metric::region
  Placement placement;
};

// Where a run stands on its machine's roofline, or why it cannot be placed.
struct RunPlacement {
  int64_t profile_id = 0;  // 0: no machine profile; `missing` says what to do
  std::string missing;
  // Why the profile placed against is noisy (MachineProfile::noisy_reasons); empty: it is not.
  std::vector<std::string> profile_noisy_reasons;
  Placement placement;
  std::vector<RegionPlacement> regions;  // every marker region, by name; empty without a profile
};

// The convention a source counts bytes in: model compulsory, sim and pmu actual traffic.
ByteConvention ConventionOf(Source source);

// The roof of a memory level at this thread count: its best ceiling over the load, copy and
// triad patterns, compared in `convention` (CeilingValue), where the run's bytes were counted.
// Non-temporal stores are left out: they are a way of writing code, not what the level delivers
// to ordinary loads and stores. The widest vector ISA's ceilings only: the scalar load ceilings
// (IsScalarBandwidthCeiling) are the roof of scalar code, which CodeBandwidthRoof
// (bandwidth_roof.h) chooses. nullptr when the profile has none.
const Ceiling* BandwidthRoof(const MachineProfile& profile, const std::string& level, int threads,
                             ByteConvention convention = ByteConvention::kCompulsory);

// Places `metrics` (a run's, whole-run region) against `profile`. Never fails: an unplaceable
// run gets placed = false and the reason.
Placement PlaceRun(const std::vector<Metric>& metrics, const RunShape& shape,
                   const MachineProfile& profile);

// Places marker region `region` of a run (its metrics: Metric::region == region) as PlaceRun
// places the whole run: its FLOPs and bytes over its own wall time (time_s, the most one thread
// spent inside). The region's declared (model) work places it whatever the run counted. Judged
// against the ceilings of the run's shape, or of the threads that ran the region (its `threads`
// metric) when more. A marker region with no FLOPs counted (none, or only a declared 0: a
// measured 0 from sim or pmu is data movement, placed by its bandwidth) is not placed, its
// reason "no FLOPs counted: …" with how to declare them (rprof_region_declare, or
// rprof.region(…, flops=...) in Python). A hot function whose time_s is absent (too few samples,
// sampled_time.h) is not placed, its reason that note's first words ("12 samples: too few for a
// rate"). Never fails, as PlaceRun.
Placement PlaceRegion(const std::vector<Metric>& metrics, const std::string& region,
                      const RunShape& shape, const MachineProfile& profile);

// The bound as tables print it (history, run_summary.bound_text, the labs): `bound` ("l3
// bandwidth", "compute"), except that a side found on the model's compulsory bytes alone says
// so and never reads as a measured bound: "≥ compute side (model bytes only)", "dram bandwidth
// (model bytes only)". "" for "" (not placed).
std::string BoundText(const std::string& bound, bool bytes_compulsory_only);
// The same for a placement, led by its instruction overhead when it has one:
// "overhead (1040 instructions/FLOP), l1 bandwidth".
std::string BoundText(const Placement& p);

// The names of the run's marker regions and hot functions (every non-empty Metric::region but
// hot functions' lines), sorted.
std::vector<std::string> RegionNames(const std::vector<Metric>& metrics);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_PLACEMENT_H_
