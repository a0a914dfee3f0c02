// `rprof machine measure`: runs every measurement of this folder and fills a MachineProfile.
#ifndef RPROF_MACHINE_MACHINE_MEASURE_H_
#define RPROF_MACHINE_MACHINE_MEASURE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.h"
#include "machine/machine_profile.h"

namespace rprof {

struct MachineMeasureOptions {
  // "quick": 2 points per octave (1 for the all-threads bandwidth sweep), short repetitions,
  // the non-load patterns only on the plateaus the load sweep found, sweeps capped at 512 MiB or
  // 2x the reported last-level cache, whichever is larger.
  // "full": 4 points per octave (2 for the all-threads bandwidth sweep), every pattern over the
  // whole sweep, longer repetitions.
  std::string mode = "quick";
  // N of the all-threads ceilings; 0: one per physical core this process may run on. Must be
  // 1..the CPUs this process may run on (MeasureMachine fails otherwise).
  int threads = 0;
  // Called before each measurement with what is about to run ("compute fp64 avx2 fma, 2
  // threads") and the fraction of the work done, 0..1. May be empty. Called on the caller's thread.
  std::function<void(const std::string& what, double fraction)> progress;
  // Polled between measurements; when it becomes true MeasureMachine returns false with *err
  // "interrupted" and `out` must be discarded. May be null.
  const std::atomic<bool>* cancel = nullptr;
  // Before measuring, waits at most this long (seconds) for other processes (a build that just
  // ended) to use under kNoisyCompetingCpus (profile_trust.h) over half a second; progress and a
  // warning say how long it waited. 0: measures at once.
  double settle_max_s = 30;

  // For tests and experiments; the CLI leaves them alone.
  bool measure_compute = true;
  bool measure_bandwidth = true;
  bool measure_latency = true;
  double time_scale = 1.0;             // multiplies every repetition's duration
  uint64_t max_working_set_bytes = 0;  // 0: 4x the last-level cache, capped as described below
};

// Measures this machine into *out (cleared first):
//  - topology and fingerprint; once the options are checked, waits for the machine to quiet
//    down (settle_max_s), then the 1-minute load average before starting;
//  - clock: scalar (one core, imul chain) and vector (all N threads on the widest FMA);
//  - compute ceilings: fp64/fp32 x every usable ISA x fma/mul_add/add x 1 and N threads, in two
//    rounds over the whole set (half the repetitions each, so each ceiling's repetitions are
//    seconds apart); an N-thread ceiling under 0.6 x N x its 1-thread value is measured again,
//    twice at most, and a warning says when it stays there;
//  - every sweep stops early once DRAM's plateau is established: its last three points within
//    10 % of each other, past 4x the reported last-level cache and 128 MiB;
//  - bandwidth: for 1 and N threads, a load sweep from 16 KiB per thread to 4x the last-level
//    cache (at least 256 MiB; at most a third of MemAvailable, and in quick mode 512 MiB or 2x the
//    last-level cache — a warning says when a cap applies), levels found on it (hierarchy.h), and
//    per level the load, copy and triad ceilings (the best point on the level's plateau; for
//    DRAM, the best of its three largest working sets at twice the last-level cache or more),
//    plus copy_nt for DRAM; all with the widest vector ISA, and where that is AVX-512, copy and
//    triad in the caches with AVX2 too at the ceiling's point (the faster kept, with its ISA);
//  - latency: pointer chase over the same range, levels found on it;
//  - every compute ceiling, bandwidth ceiling point and latency point whose repetitions spread
//    more than kLargeSpreadPct is measured once more, and the steadier set kept (a warning
//    counts them);
//  - levels: reported vs effective size, latency, 1-thread load bandwidth; a level whose
//    latency is not above the level before it gets a note;
//  - warnings: load average, CPU time other processes used meanwhile, repetition spreads,
//    capped working sets, a bandwidth curve without a DRAM level (so no dram ceilings for that
//    thread count), sysfs sizes the measurement contradicts, ProfileContradictions;
//  - noisy_reasons: ProfileNoiseReasons, with the CPUs other processes used meanwhile.
// Level sizes are not reconciled with earlier profiles here (ReconcileLevelSizes does that).
// Returns false with *err set when options are invalid (mode, threads: kUsage), memory cannot be
// mapped (kEnvironment), or the measurement was cancelled ("interrupted", kTargetFailed); *out is
// then incomplete.
[[nodiscard]] bool MeasureMachine(const MachineMeasureOptions& opts, MachineProfile* out,
                                  Error* err);

// The resolution of a mode's working-set sweeps, as a factor: one grid step (2^(1/points an
// octave)). Effective sizes closer than this are the same size measured twice.
double SizeResolution(const std::string& mode);

}  // namespace rprof

#endif  // RPROF_MACHINE_MACHINE_MEASURE_H_
