#include "machine/bandwidth_kernels.h"

#include <immintrin.h>

#include <array>

#include "core/closed_list.h"

// Intrinsics are enough for copy and triad: the loops are memory-bound, GCC keeps FP additions
// in the order written (no -ffast-math), and aligned loads/stores map one to one. The load
// kernel's loads are asm (Touch), as nothing uses what they load. The kernels are written once,
// in bandwidth_kernels_body.inc, against the operations below; each ISA includes that body in a
// namespace of its own with its target attribute, so every copy is compiled for its ISA. A step
// moves, as the separate kernels of each ISA this replaced did, eight vectors for load and copy
// (but at most 256 bytes: four for AVX-512 copy) and four for copy_nt and triad; a block
// (512 bytes) is a whole number of steps.

// The operations of one ISA whose intrinsics are P##_load_pd, P##_add_pd, ...: V, kLanes and
// kCopyVectors, Set1, Load, Store, Stream, Add and Mul, Touch (a load into a register and
// nothing else: MOVAPD, the ISA's aligned load instruction, in asm, since a value never used is
// one the compiler drops), and Leave, which runs LEAVE before a kernel returns.
#define RPROF_VECTOR_OPS(TARGET, VEC, P, MOVAPD, LEAVE)                             \
  using V = VEC;                                                                    \
  constexpr int kLanes = sizeof(V) / sizeof(double);                                \
  constexpr int kCopyVectors = sizeof(V) * 8 > 256 ? 256 / sizeof(V) : 8;           \
  TARGET inline V Set1(double x) { return P##_set1_pd(x); }                         \
  TARGET inline V Load(const double* p) { return P##_load_pd(p); }                  \
  TARGET inline void Store(double* p, V v) { P##_store_pd(p, v); }                  \
  TARGET inline void Stream(double* p, V v) { P##_stream_pd(p, v); }                \
  TARGET inline V Add(V a, V b) { return P##_add_pd(a, b); }                        \
  TARGET inline V Mul(V a, V b) { return P##_mul_pd(a, b); }                        \
  TARGET inline void Touch(const double* p) {                                       \
    V r;                                                                            \
    asm volatile(MOVAPD " %1, %0" : "=x"(r) : "m"(*reinterpret_cast<const V*>(p))); \
  }                                                                                 \
  TARGET inline void Leave() { LEAVE; }

namespace rprof {
namespace {

// ---- SSE2 (x86-64 baseline), 16-byte vectors.
namespace sse {
#define RPROF_TARGET
RPROF_VECTOR_OPS(RPROF_TARGET, __m128d, _mm, "movapd", (void)0)
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace sse

// ---- AVX2, 32-byte vectors.
namespace avx2 {
#define RPROF_TARGET __attribute__((target("avx2")))
RPROF_VECTOR_OPS(RPROF_TARGET, __m256d, _mm256, "vmovapd", _mm256_zeroupper())
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace avx2

// ---- AVX-512, 64-byte vectors.
namespace avx512 {
#define RPROF_TARGET __attribute__((target("avx512f")))
RPROF_VECTOR_OPS(RPROF_TARGET, __m512d, _mm512, "vmovapd", _mm256_zeroupper())
#include "machine/bandwidth_kernels_body.inc"
#undef RPROF_TARGET
}  // namespace avx512

// ---- Scalar: the load kernel only, one double (8 bytes) an instruction, the bandwidth scalar
// code can reach (ports that load two 64-byte vectors a cycle load two 8-byte scalars). Each
// load is an addsd with a memory operand, in asm: what compilers emit for `s += b[i]` (one
// micro-fused load+add, so the loop's instructions leave the load ports the limit), and what no
// compiler can widen. In plain C++, eight independent accumulators are just what GCC's SLP
// vectorizer pairs into addpd at -O2 and up, which would measure SSE loads again; with the
// intrinsics it splits each load from its add (movq, addsd), 19 instructions a step.
namespace scalar {
inline void AddFrom(double& s, const double* p) { asm("addsd %1, %0" : "+x"(s) : "m"(*p)); }

// s += b[i] over eight accumulators, eight scalar loads a step.
double LoadKernel(double*, const double* b, const double*, uint64_t n, uint64_t passes) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 8) {
      AddFrom(s0, b + i + 0);
      AddFrom(s1, b + i + 1);
      AddFrom(s2, b + i + 2);
      AddFrom(s3, b + i + 3);
      AddFrom(s4, b + i + 4);
      AddFrom(s5, b + i + 5);
      AddFrom(s6, b + i + 6);
      AddFrom(s7, b + i + 7);
    }
  }
  return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}
}  // namespace scalar

// The closed list of patterns: each one's name, the arrays it touches, and the arrays it writes
// with ordinary stores, whose lines a write-allocate cache reads first (non-temporal stores
// allocate nothing).
struct PatternInfo {
  BandwidthPattern pattern;
  const char* name;
  int streams;
  int allocated_streams;
};

constexpr std::array<PatternInfo, 4> kPatterns = {{
    {BandwidthPattern::kLoad, "load", 1, 0},
    {BandwidthPattern::kCopy, "copy", 2, 1},
    {BandwidthPattern::kTriad, "triad", 3, 1},
    {BandwidthPattern::kCopyNt, "copy_nt", 2, 0},
}};

// nullptr for a value not in the list (a cast from a wider integer).
const PatternInfo* FindPattern(BandwidthPattern pattern) {
  for (const PatternInfo& info : kPatterns)
    if (info.pattern == pattern) return &info;
  return nullptr;
}

}  // namespace

// NameIn's view is of the row's literal (or of "?"), so its data() is a C string.
const char* PatternName(BandwidthPattern pattern) {
  return NameIn<&PatternInfo::pattern>(kPatterns, pattern).data();
}

int PatternStreams(BandwidthPattern pattern) {
  const PatternInfo* info = FindPattern(pattern);
  return info ? info->streams : 1;
}

int PatternBytesPerElement(BandwidthPattern pattern) {
  return PatternStreams(pattern) * static_cast<int>(sizeof(double));
}

int PatternWriteAllocateBytesPerElement(BandwidthPattern pattern) {
  const PatternInfo* info = FindPattern(pattern);
  return info ? info->allocated_streams * static_cast<int>(sizeof(double)) : 0;
}

BandwidthKernelFn FindBandwidthKernel(BandwidthPattern pattern, Isa isa) {
  const int k = static_cast<int>(pattern);
  switch (isa) {
    case Isa::kScalar:
      return pattern == BandwidthPattern::kLoad ? scalar::LoadKernel : nullptr;
    case Isa::kSse:
      return sse::kKernels[k];
    case Isa::kAvx2:
      return avx2::kKernels[k];
    case Isa::kAvx512:
      return avx512::kKernels[k];
  }
  return nullptr;
}

}  // namespace rprof
