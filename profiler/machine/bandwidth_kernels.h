// Streaming kernels for the bandwidth ceilings, one set per vector ISA, and a scalar load. Each
// processes whole 512-byte blocks of fp64 arrays, 64-byte aligned, `passes` times over.
#ifndef RPROF_MACHINE_BANDWIDTH_KERNELS_H_
#define RPROF_MACHINE_BANDWIDTH_KERNELS_H_

#include <cstdint>

#include "machine/isa.h"

namespace rprof {

// The access patterns, as likwid-bench and STREAM name them. Bytes counted are the bytes the
// kernel's instructions load and store; the extra read of a written line that write-allocate
// caches do (read for ownership) is not counted, as in likwid-bench.
enum class BandwidthPattern {
  kLoad,    // s += b[i]: a sum over several vector accumulators; 1 stream, 8 B/element
  kCopy,    // a[i] = b[i]; 2 streams, 16 B/element
  kTriad,   // a[i] = b[i] + s * c[i] (STREAM triad, likwid "stream"); 3 streams, 24 B/element
  kCopyNt,  // a[i] = b[i] with non-temporal stores (no read for ownership); 2 streams
};
const char* PatternName(BandwidthPattern pattern);     // "load", "copy", "triad", "copy_nt"
int PatternStreams(BandwidthPattern pattern);          // arrays touched: 1, 2, 3, 2
int PatternBytesPerElement(BandwidthPattern pattern);  // 8, 16, 24, 16
// The bytes per element a write-allocate cache reads on top of those (the read for ownership of
// each line an ordinary store writes): 0, 8, 8, 0 — non-temporal stores allocate nothing. A
// level beyond L1 moves PatternBytesPerElement + this much per element (the actual traffic).
int PatternWriteAllocateBytesPerElement(BandwidthPattern pattern);

// a: the array written (unused by kLoad), b and c: arrays read; n: elements per array, a multiple
// of kBandwidthBlockElements. Returns a value derived from the data so the loads are not dead.
using BandwidthKernelFn = double (*)(double* a, const double* b, const double* c, uint64_t n,
                                     uint64_t passes);

inline constexpr uint64_t kBandwidthBlockBytes = 512;
inline constexpr uint64_t kBandwidthBlockElements = kBandwidthBlockBytes / sizeof(double);

// The kernel of `pattern` for `isa`, or nullptr. kSse, kAvx2 and kAvx512 have all four; kScalar
// has kLoad only (8-byte loads: the roof of scalar code, see machine_profile.h), nullptr for the
// others. Call only where IsaUsable(flags, isa).
BandwidthKernelFn FindBandwidthKernel(BandwidthPattern pattern, Isa isa);

}  // namespace rprof

#endif  // RPROF_MACHINE_BANDWIDTH_KERNELS_H_
