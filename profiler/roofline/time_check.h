// Time checks bytes: a measured source's bytes at a memory level, over the native run's measured
// time (gbs_<level>), are the rate that level must have sustained. Sim replays the program in a
// simulated hierarchy that need not be the machine's (a virtual machine whose sysfs reports the
// host's 480 MiB L3 keeps a 240 MB stream in "L3"), and a PMU may count at a boundary the data
// did not cross: where the time contradicts the level the bytes were counted at, the run is
// placed by the level the time supports, and both the verdict and a trust note say so. A pure
// function of the metrics and the machine profile, as placement is (it is recomputed whenever a
// run is shown). Only measured sources are checked: the model's bytes are compulsory and their
// verdicts already say so.
#ifndef RPROF_ROOFLINE_TIME_CHECK_H_
#define RPROF_ROOFLINE_TIME_CHECK_H_

#include <optional>
#include <string>
#include <vector>

#include "core/metric.h"
#include "machine/machine_profile.h"
#include "roofline/placement.h"

namespace rprof {

// (a) Above a roof: the rate beats the counted level's roof by more than the ceiling's spread
// (and at least this many percent, the native time's own noise): the bytes came from a closer
// level, the nearest one whose roof sustains the rate.
inline constexpr double kTimeAboveRoofMarginPct = 5;
// (b) At a farther roof: the rate lies within [kTimeAtRoofLow, 1 + margin (as in (a))] of a
// farther level's roof: a stream out of a level reaches 80 % to 100 % of that level's best
// measured ceiling (the STREAM ran at 93 % of DRAM's), while landing there by chance
// from a closer level needs a run that uses a small, exact share of that level's roof ...
inline constexpr double kTimeAtRoofLow = 0.8;
// ... so that closer level's roof must be at least 1 / kTimeCountedRoofHigh times the rate (the
// rate at most half the counted level's own roof: otherwise the run sits on both roofs and the
// time cannot tell them apart) ...
inline constexpr double kTimeCountedRoofHigh = 0.5;
// ... and the same source's bytes at the farther level must be a small share of the counted
// level's (counted, not missing): the source claims the data stayed closer than the time allows.
inline constexpr double kTimeFartherBytesShare = 0.1;

// The native time against one level's bytes of a measured source.
struct TimeContradiction {
  enum class Kind {
    kAboveRoof,      // (a): the bytes came from a closer level
    kAtFartherRoof,  // (b): the bytes came from a farther level
  };
  Kind kind = Kind::kAboveRoof;
  Source source = Source::kSim;
  std::string counted_level;  // the level the source counted the bytes at: "l3"
  double bytes = 0;           // the source's bytes at counted_level
  double rate = 0;            // GB/s: those bytes over the native time (gbs_<counted_level>)
  double counted_roof = 0;    // GB/s: the counted level's roof, in the source's convention
  std::string timed_level;    // the level the time supports: "dram"
  std::string timed_ceiling;  // its roof's ceiling: "dram_triad"
  double timed_roof = 0;      // GB/s, in the source's convention
  double timed_bytes = 0;     // (b): the source's bytes at timed_level
  // For the verdict, in parentheses: "sim's L3 bytes at DRAM's rate: the time says they came
  // from DRAM".
  std::string reason;
  // The trust note (kind time_contradicts_bytes): which bytes, which rates and roofs, what the
  // run was placed by, what to do.
  std::string detail;
};

// Whether the native run's time contradicts `source`'s bytes at `level` (rate gbs_<level> of
// `source`, against the BandwidthRoof of each level at `threads`, in ConventionOf(source)), and
// how. `counted_roof`: the ceiling the placement held `level` against (CodeBandwidthRoof: scalar
// code's scalar load roof), nullptr for BandwidthRoof's. nullopt when the time agrees, when
// `source` is not measured, or when the rate, the roofs or (b)'s farther bytes are not known.
// Several farther levels that fit (b): the one whose roof is nearest the rate.
std::optional<TimeContradiction> CheckTimeAgainstBytes(const std::vector<Metric>& metrics,
                                                       Source source, const std::string& level,
                                                       const MachineProfile& profile, int threads,
                                                       const Ceiling* counted_roof = nullptr);

// Checks a placed run's binding level (a bandwidth bound of a measured source) against the time;
// where it is contradicted, places the binding level's bytes against the roof of the level the
// time supports: `bound`, `binding`, `attainable`, `percent_of_roof`, `note` and `verdict` are
// then that roof's (the verdict ends with the contradiction's reason), `binding_level` and
// `binding_source` stay the bytes used, and `time_contradiction` holds the trust note's detail.
// Leaves `p` as it is otherwise.
void PlaceByTime(const std::vector<Metric>& metrics, const MachineProfile& profile, Placement* p);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_TIME_CHECK_H_
