// Whether a machine profile can be trusted: the rules that mark it noisy (load, spreads,
// contradictions no real machine shows), and level sizes kept consistent across the profiles of
// one machine. Pure functions of profiles, so tests check them on made-up ones.
#ifndef RPROF_MACHINE_PROFILE_TRUST_H_
#define RPROF_MACHINE_PROFILE_TRUST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "machine/machine_profile.h"

namespace rprof {

// A repetition spread above this (percent) is large: the ceiling is measured again, once.
constexpr double kLargeSpreadPct = 10;
// Other processes using this many CPUs on average during a measurement make it noisy.
constexpr double kNoisyCompetingCpus = 0.25;

// The FMA ceiling of the same ISA, precision and threads as `c`, or nullptr.
const Ceiling* FmaCounterpart(const MachineProfile& profile, const Ceiling& c);

// True for a compute ceiling no real machine reaches: mul+add (two instructions for 2 FLOPs)
// above the FMA of its ISA, precision and threads (one instruction for 2 FLOPs) by more than
// kMulAddTiePct (a tie is real where adds have pipes of their own). It is noise, never a roof:
// placement skips it.
constexpr double kMulAddTiePct = 5;
bool ImplausibleCeiling(const MachineProfile& profile, const Ceiling& c);

// The contradictions in `profile` no real machine shows, one sentence each: a mul+add ceiling
// above its FMA (ImplausibleCeiling), a level (profile.levels, l1 first) whose latency is not
// above the level before it. Also among ProfileNoiseReasons; `machine measure` warns of them.
std::vector<std::string> ProfileContradictions(const MachineProfile& profile);

// Why `profile` is noisy, one reason each; empty when nothing says so:
//  - under load: other processes used `competing_cpus` (>= kNoisyCompetingCpus) CPUs on average
//    during the measurement (< 0: unknown; then a load average before measuring of at least
//    half the measuring threads, and 1, counts instead);
//  - large spreads: more than a quarter of the ceilings above kLargeSpreadPct;
//  - ProfileContradictions.
std::vector<std::string> ProfileNoiseReasons(const MachineProfile& profile, double competing_cpus);

// Sets the contradictions ProfileNoiseReasons finds in `profile` as level notes (the level
// whose latency is not above the one before) — what `machine show` prints beside the ladder.
void NoteLevelContradictions(MachineProfile* profile);

// Keeps `now`'s level sizes consistent with `previous` (the newest earlier profile of the same
// machine, stored as `previous_id`). For each cache level both measured: a new effective size
// within `resolution` (a factor, e.g. 1.41 for a sweep of 2 points an octave) of the previous
// one keeps the previous size, and size_agreement = previous's + 1; a size further off is
// stored as measured with size_agreement 1, a note and a warning, and, when at least two
// profiles had agreed on the previous size, a noisy reason. Levels without a previous
// counterpart get size_agreement 1.
void ReconcileLevelSizes(const MachineProfile& previous, int64_t previous_id, double resolution,
                         MachineProfile* now);

}  // namespace rprof

#endif  // RPROF_MACHINE_PROFILE_TRUST_H_
