#include "machine/compute_kernels.h"

#include <immintrin.h>

// The kernels are inline asm on register operands: the compiler allocates the registers and
// cannot vectorise, reassociate or drop the arithmetic (plain C would be auto-vectorised for the
// scalar case and folded for the add case). AT&T order: "vfmadd231pd b, c, a" is a += c * b.
// Constants are 1.0: the values stay finite and never become denormal, whatever the count.

#define RPROF_FMA3(ins, i) ins " %[b], %[c], %[a" #i "]\n\t"
#define RPROF_ADD3(ins, i) ins " %[c], %[a" #i "], %[a" #i "]\n\t"
#define RPROF_MUL3(ins, i) ins " %[b], %[a" #i "], %[a" #i "]\n\t"
#define RPROF_ADD2(ins, i) ins " %[c], %[a" #i "]\n\t"
#define RPROF_MUL2(ins, i) ins " %[b], %[a" #i "]\n\t"

#define RPROF_SAME12(F, ins)                                                                   \
  F(ins, 0) F(ins, 1) F(ins, 2) F(ins, 3) F(ins, 4) F(ins, 5) F(ins, 6) F(ins, 7) F(ins, 8) \
      F(ins, 9) F(ins, 10) F(ins, 11)
// Multiplies on even accumulators, adds on odd ones, interleaved.
#define RPROF_MIX12(M, mul, A, add)                                                            \
  M(mul, 0) A(add, 1) M(mul, 2) A(add, 3) M(mul, 4) A(add, 5) M(mul, 6) A(add, 7) M(mul, 8)  \
      A(add, 9) M(mul, 10) A(add, 11)

#define RPROF_OUT12(c)                                                                         \
  [a0] c(a0), [a1] c(a1), [a2] c(a2), [a3] c(a3), [a4] c(a4), [a5] c(a5), [a6] c(a6),        \
      [a7] c(a7), [a8] c(a8), [a9] c(a9), [a10] c(a10), [a11] c(a11)
// The second bank of 12 accumulators of the AVX-512 kernels, under the same operand names.
#define RPROF_OUT12B(c)                                                                        \
  [a0] c(a12), [a1] c(a13), [a2] c(a14), [a3] c(a15), [a4] c(a16), [a5] c(a17), [a6] c(a18),  \
      [a7] c(a19), [a8] c(a20), [a9] c(a21), [a10] c(a22), [a11] c(a23)
#define RPROF_DECL12(T, v) T a0 = v, a1 = v, a2 = v, a3 = v, a4 = v, a5 = v, a6 = v, a7 = v, \
                                a8 = v, a9 = v, a10 = v, a11 = v
#define RPROF_DECL24(T, v)                                                                   \
  RPROF_DECL12(T, v);                                                                        \
  T a12 = v, a13 = v, a14 = v, a15 = v, a16 = v, a17 = v, a18 = v, a19 = v, a20 = v, a21 = v, \
    a22 = v, a23 = v

// A kernel of 12 (or 24) independent instructions per iteration. ATTR: the target attribute
// (empty for the x86-64 baseline), T: operand type, V: its 1.0, C: "x" (xmm0-15) or "v"
// (xmm/ymm/zmm0-31, AVX-512 only), BODY: the asm text, END: code after the loop.
#define RPROF_KERNEL(N, NAME, ATTR, T, V, C, BODY, END)                      \
  ATTR void NAME(uint64_t iterations) {                                      \
    RPROF_DECL##N(T, V);                                                     \
    const T b = V;                                                           \
    const T c = V;                                                           \
    for (uint64_t i = 0; i < iterations; ++i) {                              \
      RPROF_BLOCK##N(BODY, C)                                                \
    }                                                                        \
    END;                                                                     \
  }
// An asm statement takes at most 30 operands and "+" counts twice, so 24 accumulators are two
// statements of 12 in the same iteration (the registers stay allocated across both).
#define RPROF_BLOCK12(BODY, C) asm volatile(BODY : RPROF_OUT12("+" C) : [b] C(b), [c] C(c));
#define RPROF_BLOCK24(BODY, C)                                              \
  asm volatile(BODY : RPROF_OUT12("+" C) : [b] C(b), [c] C(c));             \
  asm volatile(BODY : RPROF_OUT12B("+" C) : [b] C(b), [c] C(c));

#define RPROF_BASE
#define RPROF_T_FMA __attribute__((target("fma")))
#define RPROF_T_AVX2 __attribute__((target("avx2")))
#define RPROF_T_AVX2_FMA __attribute__((target("avx2,fma")))
#define RPROF_T_AVX512 __attribute__((target("avx512f")))

namespace rprof {
namespace {

// Scalar: one lane of an xmm register.
RPROF_KERNEL(12, ScalarF64Fma, RPROF_T_FMA, double, 1.0, "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231sd"), (void)0)
RPROF_KERNEL(12, ScalarF64MulAdd, RPROF_BASE, double, 1.0, "x",
             RPROF_MIX12(RPROF_MUL2, "mulsd", RPROF_ADD2, "addsd"), (void)0)
RPROF_KERNEL(12, ScalarF64Add, RPROF_BASE, double, 1.0, "x",
             RPROF_SAME12(RPROF_ADD2, "addsd"), (void)0)
RPROF_KERNEL(12, ScalarF32Fma, RPROF_T_FMA, float, 1.0f, "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231ss"), (void)0)
RPROF_KERNEL(12, ScalarF32MulAdd, RPROF_BASE, float, 1.0f, "x",
             RPROF_MIX12(RPROF_MUL2, "mulss", RPROF_ADD2, "addss"), (void)0)
RPROF_KERNEL(12, ScalarF32Add, RPROF_BASE, float, 1.0f, "x",
             RPROF_SAME12(RPROF_ADD2, "addss"), (void)0)

// SSE: 128-bit. The FMA forms are VEX-encoded (they need FMA3), the others legacy SSE2.
RPROF_KERNEL(12, SseF64Fma, RPROF_T_FMA, __m128d, _mm_set1_pd(1.0), "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231pd"), (void)0)
RPROF_KERNEL(12, SseF64MulAdd, RPROF_BASE, __m128d, _mm_set1_pd(1.0), "x",
             RPROF_MIX12(RPROF_MUL2, "mulpd", RPROF_ADD2, "addpd"), (void)0)
RPROF_KERNEL(12, SseF64Add, RPROF_BASE, __m128d, _mm_set1_pd(1.0), "x",
             RPROF_SAME12(RPROF_ADD2, "addpd"), (void)0)
RPROF_KERNEL(12, SseF32Fma, RPROF_T_FMA, __m128, _mm_set1_ps(1.0f), "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231ps"), (void)0)
RPROF_KERNEL(12, SseF32MulAdd, RPROF_BASE, __m128, _mm_set1_ps(1.0f), "x",
             RPROF_MIX12(RPROF_MUL2, "mulps", RPROF_ADD2, "addps"), (void)0)
RPROF_KERNEL(12, SseF32Add, RPROF_BASE, __m128, _mm_set1_ps(1.0f), "x",
             RPROF_SAME12(RPROF_ADD2, "addps"), (void)0)

// AVX2: 256-bit, 12 of the 16 ymm registers.
RPROF_KERNEL(12, Avx2F64Fma, RPROF_T_AVX2_FMA, __m256d, _mm256_set1_pd(1.0), "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231pd"), _mm256_zeroupper())
RPROF_KERNEL(12, Avx2F64MulAdd, RPROF_T_AVX2, __m256d, _mm256_set1_pd(1.0), "x",
             RPROF_MIX12(RPROF_MUL3, "vmulpd", RPROF_ADD3, "vaddpd"), _mm256_zeroupper())
RPROF_KERNEL(12, Avx2F64Add, RPROF_T_AVX2, __m256d, _mm256_set1_pd(1.0), "x",
             RPROF_SAME12(RPROF_ADD3, "vaddpd"), _mm256_zeroupper())
RPROF_KERNEL(12, Avx2F32Fma, RPROF_T_AVX2_FMA, __m256, _mm256_set1_ps(1.0f), "x",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231ps"), _mm256_zeroupper())
RPROF_KERNEL(12, Avx2F32MulAdd, RPROF_T_AVX2, __m256, _mm256_set1_ps(1.0f), "x",
             RPROF_MIX12(RPROF_MUL3, "vmulps", RPROF_ADD3, "vaddps"), _mm256_zeroupper())
RPROF_KERNEL(12, Avx2F32Add, RPROF_T_AVX2, __m256, _mm256_set1_ps(1.0f), "x",
             RPROF_SAME12(RPROF_ADD3, "vaddps"), _mm256_zeroupper())

// AVX-512: 512-bit, 24 of the 32 zmm registers.
RPROF_KERNEL(24, Avx512F64Fma, RPROF_T_AVX512, __m512d, _mm512_set1_pd(1.0), "v",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231pd"), _mm256_zeroupper())
RPROF_KERNEL(24, Avx512F64MulAdd, RPROF_T_AVX512, __m512d, _mm512_set1_pd(1.0), "v",
             RPROF_MIX12(RPROF_MUL3, "vmulpd", RPROF_ADD3, "vaddpd"), _mm256_zeroupper())
RPROF_KERNEL(24, Avx512F64Add, RPROF_T_AVX512, __m512d, _mm512_set1_pd(1.0), "v",
             RPROF_SAME12(RPROF_ADD3, "vaddpd"), _mm256_zeroupper())
RPROF_KERNEL(24, Avx512F32Fma, RPROF_T_AVX512, __m512, _mm512_set1_ps(1.0f), "v",
             RPROF_SAME12(RPROF_FMA3, "vfmadd231ps"), _mm256_zeroupper())
RPROF_KERNEL(24, Avx512F32MulAdd, RPROF_T_AVX512, __m512, _mm512_set1_ps(1.0f), "v",
             RPROF_MIX12(RPROF_MUL3, "vmulps", RPROF_ADD3, "vaddps"), _mm256_zeroupper())
RPROF_KERNEL(24, Avx512F32Add, RPROF_T_AVX512, __m512, _mm512_set1_ps(1.0f), "v",
             RPROF_SAME12(RPROF_ADD3, "vaddps"), _mm256_zeroupper())

using P = Precision;
using O = FlopOp;

const ComputeKernel kKernels[] = {
    {Isa::kScalar, P::kFp64, O::kFma, ScalarF64Fma, 12},
    {Isa::kScalar, P::kFp64, O::kMulAdd, ScalarF64MulAdd, 12},
    {Isa::kScalar, P::kFp64, O::kAdd, ScalarF64Add, 12},
    {Isa::kScalar, P::kFp32, O::kFma, ScalarF32Fma, 12},
    {Isa::kScalar, P::kFp32, O::kMulAdd, ScalarF32MulAdd, 12},
    {Isa::kScalar, P::kFp32, O::kAdd, ScalarF32Add, 12},
    {Isa::kSse, P::kFp64, O::kFma, SseF64Fma, 12},
    {Isa::kSse, P::kFp64, O::kMulAdd, SseF64MulAdd, 12},
    {Isa::kSse, P::kFp64, O::kAdd, SseF64Add, 12},
    {Isa::kSse, P::kFp32, O::kFma, SseF32Fma, 12},
    {Isa::kSse, P::kFp32, O::kMulAdd, SseF32MulAdd, 12},
    {Isa::kSse, P::kFp32, O::kAdd, SseF32Add, 12},
    {Isa::kAvx2, P::kFp64, O::kFma, Avx2F64Fma, 12},
    {Isa::kAvx2, P::kFp64, O::kMulAdd, Avx2F64MulAdd, 12},
    {Isa::kAvx2, P::kFp64, O::kAdd, Avx2F64Add, 12},
    {Isa::kAvx2, P::kFp32, O::kFma, Avx2F32Fma, 12},
    {Isa::kAvx2, P::kFp32, O::kMulAdd, Avx2F32MulAdd, 12},
    {Isa::kAvx2, P::kFp32, O::kAdd, Avx2F32Add, 12},
    {Isa::kAvx512, P::kFp64, O::kFma, Avx512F64Fma, 24},
    {Isa::kAvx512, P::kFp64, O::kMulAdd, Avx512F64MulAdd, 24},
    {Isa::kAvx512, P::kFp64, O::kAdd, Avx512F64Add, 24},
    {Isa::kAvx512, P::kFp32, O::kFma, Avx512F32Fma, 24},
    {Isa::kAvx512, P::kFp32, O::kMulAdd, Avx512F32MulAdd, 24},
    {Isa::kAvx512, P::kFp32, O::kAdd, Avx512F32Add, 24},
};

}  // namespace

const char* FlopOpName(FlopOp op) {
  switch (op) {
    case FlopOp::kFma: return "fma";
    case FlopOp::kMulAdd: return "mul_add";
    case FlopOp::kAdd: return "add";
  }
  return "?";
}

const ComputeKernel* FindComputeKernel(Isa isa, Precision precision, FlopOp op) {
  for (const ComputeKernel& k : kKernels) {
    if (k.isa == isa && k.precision == precision && k.op == op) return &k;
  }
  return nullptr;
}

uint64_t FlopsPerIteration(const ComputeKernel& k) {
  uint64_t per_instruction = IsaLanes(k.isa, k.precision) * (k.op == FlopOp::kFma ? 2 : 1);
  return per_instruction * static_cast<uint64_t>(k.instructions_per_iteration);
}

}  // namespace rprof
