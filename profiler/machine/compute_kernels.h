// Register-only floating-point kernels for the compute ceilings: every iteration issues a block
// of independent arithmetic instructions (12 accumulators; 24 for AVX-512, which has 32 vector
// registers), enough to cover latency x ports on every x86 core we know (FMA latency 4 x 2 ports
// needs 8). No memory is touched, so the only limit is the FP pipes and the clock.
#ifndef RPROF_MACHINE_COMPUTE_KERNELS_H_
#define RPROF_MACHINE_COMPUTE_KERNELS_H_

#include <cstdint>

#include "machine/isa.h"

namespace rprof {

// kFma: a = a + b*c as one fused instruction (2 FLOPs per lane).
// kMulAdd: independent multiplies and adds, half each, no FMA (1 FLOP per lane each); the classic
//   "no FMA" roofline ceiling, and what likwid-bench's peakflops kernels without _fma run.
// kAdd: adds only (1 FLOP per lane); on CPUs with separate add and multiply pipes (AMD Zen) it is
//   half of kMulAdd.
enum class FlopOp { kFma, kMulAdd, kAdd };
const char* FlopOpName(FlopOp op);  // "fma", "mul_add", "add"

struct ComputeKernel {
  Isa isa;
  Precision precision;
  FlopOp op;
  void (*run)(uint64_t iterations);  // executes `iterations` blocks; touches no memory
  int instructions_per_iteration;    // arithmetic instructions in one block
};

// The kernel for the combination, or nullptr if none exists. It may only be called when
// IsaUsable (IsaFmaUsable for kFma) holds for the CPU.
const ComputeKernel* FindComputeKernel(Isa isa, Precision precision, FlopOp op);

// FLOPs one iteration of `k` executes: instructions x lanes x (2 for FMA, else 1).
uint64_t FlopsPerIteration(const ComputeKernel& k);

}  // namespace rprof

#endif  // RPROF_MACHINE_COMPUTE_KERNELS_H_
