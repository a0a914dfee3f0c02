#include "machine/bandwidth_kernels.h"

#include <immintrin.h>

// Intrinsics are enough here: the loops are memory-bound, GCC keeps FP additions in the order
// written (no -ffast-math), and aligned loads/stores map one to one. The kernels are written once,
// in bandwidth_kernels_body.inc, against the operations below; each ISA includes that body in a
// namespace of its own with its target attribute, so every copy is compiled for its ISA. A step
// moves, as the separate kernels of each ISA this replaced did, eight vectors for load and copy
// (but at most 256 bytes: four for AVX-512 copy) and four for copy_nt and triad; a block
// (512 bytes) is a whole number of steps.

// The operations of one ISA whose intrinsics are P##_load_pd, P##_add_pd, ...: V, kLanes and
// kCopyVectors, Zero, Set1, Load, Store, Stream, Add and Mul, and Leave, which runs LEAVE before
// a kernel returns. Sum (the lanes of a V added up) is each ISA's own.
#define RPROF_VECTOR_OPS(TARGET, VEC, P, LEAVE)                           \
  using V = VEC;                                                          \
  constexpr int kLanes = sizeof(V) / sizeof(double);                      \
  constexpr int kCopyVectors = sizeof(V) * 8 > 256 ? 256 / sizeof(V) : 8; \
  TARGET inline V Zero() { return P##_setzero_pd(); }                     \
  TARGET inline V Set1(double x) { return P##_set1_pd(x); }               \
  TARGET inline V Load(const double* p) { return P##_load_pd(p); }        \
  TARGET inline void Store(double* p, V v) { P##_store_pd(p, v); }        \
  TARGET inline void Stream(double* p, V v) { P##_stream_pd(p, v); }      \
  TARGET inline V Add(V a, V b) { return P##_add_pd(a, b); }              \
  TARGET inline V Mul(V a, V b) { return P##_mul_pd(a, b); }              \
  TARGET inline void Leave() { LEAVE; }

namespace rprof {
namespace {

// ---- SSE2 (x86-64 baseline), 16-byte vectors.
namespace sse {
#define RPROF_TARGET
RPROF_VECTOR_OPS(RPROF_TARGET, __m128d, _mm, (void)0)
inline double Sum(V s) { return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s))); }
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace sse

// ---- AVX2, 32-byte vectors.
namespace avx2 {
#define RPROF_TARGET __attribute__((target("avx2")))
RPROF_VECTOR_OPS(RPROF_TARGET, __m256d, _mm256, _mm256_zeroupper())
RPROF_TARGET inline double Sum(V s) {
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace avx2

// ---- AVX-512, 64-byte vectors.
namespace avx512 {
#define RPROF_TARGET __attribute__((target("avx512f")))
RPROF_VECTOR_OPS(RPROF_TARGET, __m512d, _mm512, _mm256_zeroupper())
RPROF_TARGET inline double Sum(V s) {
  alignas(64) double lanes[kLanes];
  _mm512_store_pd(lanes, s);
  double r = 0;
  for (double v : lanes) r += v;
  return r;
}
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace avx512

}  // namespace

const char* PatternName(BandwidthPattern pattern) {
  switch (pattern) {
    case BandwidthPattern::kLoad: return "load";
    case BandwidthPattern::kCopy: return "copy";
    case BandwidthPattern::kTriad: return "triad";
    case BandwidthPattern::kCopyNt: return "copy_nt";
  }
  return "?";
}

int PatternStreams(BandwidthPattern pattern) {
  switch (pattern) {
    case BandwidthPattern::kLoad: return 1;
    case BandwidthPattern::kCopy: return 2;
    case BandwidthPattern::kTriad: return 3;
    case BandwidthPattern::kCopyNt: return 2;
  }
  return 1;
}

int PatternBytesPerElement(BandwidthPattern pattern) {
  return PatternStreams(pattern) * static_cast<int>(sizeof(double));
}

int PatternWriteAllocateBytesPerElement(BandwidthPattern pattern) {
  switch (pattern) {
    case BandwidthPattern::kCopy:
    case BandwidthPattern::kTriad:
      return static_cast<int>(sizeof(double));  // one array written
    case BandwidthPattern::kLoad:
    case BandwidthPattern::kCopyNt:
      return 0;
  }
  return 0;
}

BandwidthKernelFn FindBandwidthKernel(BandwidthPattern pattern, Isa isa) {
  const int k = static_cast<int>(pattern);
  switch (isa) {
    case Isa::kScalar:
    case Isa::kSse: return sse::kKernels[k];
    case Isa::kAvx2: return avx2::kKernels[k];
    case Isa::kAvx512: return avx512::kKernels[k];
  }
  return nullptr;
}

}  // namespace rprof
