// The size each cache level of a machine is given: the reported geometry (CPUID/sysfs) is the
// prior, and a measured plateau end replaces it only when the measurement is sound and repeated.
// Effective sizes measured on one profile move with the neighbours of a VM, the noise of a
// minute and the sweep's grid (one VM measured L3 2.8, 4, 5.7, 32 and 128 MiB the same day);
// the size the simulator simulates and the lessons read must not. Pure functions of profiles.
#ifndef RPROF_MACHINE_LEVEL_SIZES_H_
#define RPROF_MACHINE_LEVEL_SIZES_H_

#include <cstdint>
#include <string>

#include "machine/machine_profile.h"

namespace rprof {

// LevelSummary::size_rule values: which rule decided LevelSummary::size_bytes.
//   reported            the prior holds: the measurement agrees with it, or is not sound enough
//                       to replace it (size_reason says which condition failed);
//   measured            a sound measurement, repeated (two profiles in a row at least), smaller
//                       than an eighth of the reported size, of a level below the last one,
//                       replaces it;
//   reported_impossible the reported size cannot be (DRAM's latency well inside it: a VM
//                       advertising its host's 480 MiB L3 to 2 vCPUs): a sound measurement
//                       replaces it at once; or a virtual machine's last level is its host's
//                       (more per CPU than any CPU has per core) and the guest's own latency
//                       plateau, repeated, ends far under it: that plateau replaces it;
//   kept                this profile's measurement is not sound (or not yet repeated): the size an
//                       earlier profile established by `measured` or `reported_impossible` stands.
inline constexpr const char* kRuleReported = "reported";
inline constexpr const char* kRuleMeasured = "measured";
inline constexpr const char* kRuleReportedImpossible = "reported_impossible";
inline constexpr const char* kRuleKept = "kept";

// True for the rules whose size is a measurement rather than the reported prior.
bool MeasuredRule(const std::string& rule);

// A level whose latency is at least this fraction of DRAM's has DRAM's latency: it is no cache
// level (one noisy profile stored an "L3" of 128 MiB at 164.5 ns with DRAM at 175.7 ns). A
// level's latency is "clearly below DRAM's" under it.
constexpr double kDramLikeLatency = 0.75;

// Removes from profile->levels every cache level whose latency has DRAM's (>= kDramLikeLatency
// x DRAM's), with a warning: it is DRAM seen through noise, and such a level is not stored.
void DropDramLikeLevels(MachineProfile* profile);

// Decides every cache level's size_bytes, size_rule and size_reason in `now` (its levels as
// MeasureMachine and ReconcileLevelSizes left them: effective_size, size_agreement,
// bandwidth_size, latencies), given `previous`, the newest earlier profile of this machine
// (nullptr: none), stored as `previous_id`. Per level:
//  - sound: the profile is not noisy; the level's latency was measured, is above the level
//    before it and clearly below DRAM's; the bandwidth sweep's plateau ends within an octave of
//    the latency sweep's (the plateau seen in both sweeps); the measured size is not above the
//    reported one by more than half (a cache is never larger than the hardware says);
//  - a sound size more than an eighth of the reported one (or reported 0) agrees with it:
//    reported (or, without a reported size, measured). A latency chase through a cache that
//    does not evict the least recently used line (Zen's L2, an adaptive L3) climbs well before
//    the cache is full: on a Zen 5 VM the 1 MiB L2's plateau ended at 256 or 362 KiB on every
//    quiet profile;
//  - the last cache level, shared with whatever else runs (a VM's neighbours), measured smaller
//    than reported: that is their share of it now (the same VM's 32 MiB L3 measured 2.8, 4, 5.7
//    and 8 MiB in four profiles of one sitting), never its size; only an impossible report
//    gives way;
//  - reported impossible (DRAM's latency from under a quarter of the reported size on) and
//    sound: reported_impossible, the measured size;
//  - the last level of a virtual machine (topology.hypervisor) reported at more than twice the
//    most last-level cache any CPU has per core (12 MiB) for each CPU sharing it, whose latency
//    plateau is sound on the latency side alone, under an eighth of the reported size, and
//    repeated (size_agreement >= 2): reported_impossible, the measured size (the bandwidth
//    sweep runs on into the host's cache there);
//  - a level below the last, sound, under an eighth of the reported size, and size_agreement
//    >= 2: measured;
//  - otherwise: the previous profile's measured size (kept) when it had one for this reported
//    size, else the reported size.
// A measured size the rules did not take, more than an octave from the decided one, becomes a
// level note (a VM's neighbours shrinking its L3 are a real effect: the bandwidth ceilings,
// read on the measured plateau, show it; the level's size does not move).
void DecideLevelSizes(const MachineProfile* previous, int64_t previous_id, MachineProfile* now);

}  // namespace rprof

#endif  // RPROF_MACHINE_LEVEL_SIZES_H_
