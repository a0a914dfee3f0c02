// Compute ceilings: the FLOP rate of register-only kernels (compute_kernels.h) on 1..N pinned
// threads.
#ifndef RPROF_MACHINE_COMPUTE_PEAK_H_
#define RPROF_MACHINE_COMPUTE_PEAK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "machine/compute_kernels.h"
#include "machine/isa.h"
#include "machine/thread_team.h"
#include "machine/topology.h"

namespace rprof {

struct ComputePeakOptions {
  Isa isa = Isa::kAvx2;
  Precision precision = Precision::kFp64;
  FlopOp op = FlopOp::kFma;
  int threads = 1;                // workers 0..threads-1 of the team
  double seconds_per_rep = 0.02;  // each thread's iteration count is calibrated to this
  int repetitions = 5;
  // Iterations per thread and repetition, as an earlier measurement of the same kernel
  // calibrated them (ComputePeakResult::iterations_per_thread); 0: calibrate here. A second
  // round of repetitions need not calibrate again.
  uint64_t iterations = 0;
};

struct ComputePeakResult {
  // GFLOP/s of each repetition = FLOPs of all threads / the slowest thread's time; best = max.
  RepStats gflops;
  std::vector<double> rates;  // each repetition's GFLOP/s, in order
  uint64_t iterations_per_thread = 0;
  uint64_t flops_per_rep = 0;  // all threads together
};

// Measures one compute ceiling. The kernel's iteration count is calibrated once (on all
// `threads` threads, so the calibration sees the same clock), then the threads run it
// `repetitions` times, starting together. FLOPs: an FMA is 2 per lane, an add or a multiply 1.
// Returns false and sets *err when the ISA/op cannot run here (IsaUsable / IsaFmaUsable) or
// threads is outside 1..team.size().
[[nodiscard]] bool MeasureComputePeak(ThreadTeam& team, const IsaFlags& flags,
                                      const ComputePeakOptions& opts, ComputePeakResult* result,
                                      Error* err);

// FMA units of `isa`'s width per core, where the microarchitecture is known for certain (AMD
// family 17h-1Ah, Intel big cores for 256-bit); nullopt elsewhere (AVX-512 on Intel: one or two
// units depending on the SKU). Used only to state the theoretical peak.
std::optional<int> KnownFmaUnits(const Topology& topology, Isa isa);

// FMA units that `gflops` measured on one thread implies at `ghz`: round(gflops / (ghz x lanes
// x 2)), at least 1. For CPUs KnownFmaUnits does not know.
int EstimateFmaUnits(double gflops, double ghz, int lanes);

// Theoretical peak in GFLOP/s: cores x ghz x fma_units x lanes x 2.
double TheoreticalPeakGflops(int cores, double ghz, int fma_units, int lanes);

}  // namespace rprof

#endif  // RPROF_MACHINE_COMPUTE_PEAK_H_
