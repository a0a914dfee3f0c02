// How much slower valgrind will run a program than the CPU did, from the instructions its
// native run was sampled on: the code a replay will execute, decoded where the time went.
//
// valgrind's cost per instruction differs by two orders of magnitude between instruction
// classes, and nothing in a native time says which class the time was spent in: integer code
// costs rprofsim about 0.5 ns per instruction (5-12x its native time), a store or a 256-bit load
// about 2-3 ns (the cache simulation), and a fused multiply-add a call of valgrind's own per lane
// to a software FMA (h_generic_calc_MAddF64): 66 ns per fp64 lane, 6.9 per fp32 lane, so that
// an FMA-bound loop runs 1,000-2,000x slower under valgrind. A REP string instruction executes
// once per element: rep movsb, 20 ns per byte (tests/bench/sim_instruction_costs.py measures
// every class on the machine it runs on).
//
// The estimate: each sampled instruction starts a block (it and the instructions after it, up to
// and including the next branch, at most 16), whose valgrind cost is the sum of its
// instructions' costs and whose native cost is a throughput bound: 4 instructions, 2 loads, 1
// store and 2 floating-point operations per cycle at 3.5 GHz. The slowdown of the user code is
// the ratio of the two sums over the samples; time in the kernel (system calls, page faults)
// costs valgrind what it costs natively. The throughput bound is what compute-bound code reaches;
// code that waits for memory or for a dependency chain ran slower natively than the bound, so
// its slowdown is overestimated: 20x for STREAM, which waits on DRAM. Where a PMU counted the
// native run's instructions, they times the cost per instruction of the sampled mix is the
// estimate instead (ns_per_instruction), which no native stall skews.
#ifndef RPROF_COUNTERS_SIM_REPLAY_COST_H_
#define RPROF_COUNTERS_SIM_REPLAY_COST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace rprof {

struct FunctionSamples;

// The sampled code's expected slowdown under valgrind, and what it rests on.
struct ReplaySlowdown {
  double slowdown = 0;        // valgrind seconds per native CPU second, kernel time included
  uint64_t decoded = 0;       // samples whose instructions were decoded
  uint64_t samples = 0;       // samples in all (user and kernel)
  double fma_cost_share = 0;  // share of the expected valgrind time in FMA lanes
  double rep_cost_share = 0;  // ... in REP string instructions (one execution per element)
  // valgrind's nanoseconds per user instruction of the sampled code, for a native run whose
  // instructions a PMU counted: no native throughput to assume then (a loop that waited on DRAM
  // natively costs valgrind per instruction what it would in cache), as long as REP string
  // instructions (one instruction to a PMU, one per element to valgrind) are not its cost.
  double ns_per_instruction = 0;
};

// Fewer decoded samples than this say too little of the code: no estimate.
inline constexpr uint64_t kFewestDecodedSamples = 20;

// The slowdown of the code `samples` were taken on (FunctionSamples::by_code_address, the kernel's
// samples in by_function["[kernel]"]), its modules' code read from their files; none when fewer
// than kFewestDecodedSamples decode (not sampled, stripped of its files, JIT code).
std::optional<ReplaySlowdown> SampledReplaySlowdown(const FunctionSamples& samples);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_REPLAY_COST_H_
