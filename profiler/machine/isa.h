// The vector instruction sets the measurement kernels come in, and which of them may run here.
// Every kernel is compiled for its ISA with a per-function target attribute, so the library
// itself runs on any x86-64 and picks the kernels at run time from IsaFlags.
#ifndef RPROF_MACHINE_ISA_H_
#define RPROF_MACHINE_ISA_H_

#include <string>
#include <vector>

#include "machine/topology.h"

namespace rprof {

enum class Isa { kScalar, kSse, kAvx2, kAvx512 };
enum class Precision { kFp64, kFp32 };

// "scalar", "sse", "avx2", "avx512" / "fp64", "fp32".
const char* IsaName(Isa isa);
const char* PrecisionName(Precision precision);
bool ParseIsa(const std::string& name, Isa* isa);

// Vector width in bytes: 8 for scalar (one fp64; fp32 scalar code still uses one lane), 16, 32, 64.
int IsaVectorBytes(Isa isa);
// Lanes of `precision` per instruction: scalar 1, sse 2/4, avx2 4/8, avx512 8/16.
int IsaLanes(Isa isa, Precision precision);

// Whether plain (non-FMA) kernels of `isa` may run: scalar and sse need SSE2 (every x86-64),
// avx2 needs AVX2 with OS support, avx512 needs AVX-512F with OS support.
bool IsaUsable(const IsaFlags& flags, Isa isa);
// Whether FMA kernels of `isa` may run: IsaUsable plus FMA3 (scalar and sse FMA are the VEX
// forms, vfmadd231sd / vfmadd231pd xmm).
bool IsaFmaUsable(const IsaFlags& flags, Isa isa);

// The usable ISAs, narrowest first.
std::vector<Isa> UsableIsas(const IsaFlags& flags);
// The widest usable vector ISA (kSse at least on x86-64).
Isa WidestIsa(const IsaFlags& flags);

}  // namespace rprof

#endif  // RPROF_MACHINE_ISA_H_
