#include "machine/compute_kernels.h"

#include <immintrin.h>

#include <array>

#include "core/closed_list.h"

// The kernels are inline asm on register operands: the compiler allocates the registers and
// cannot vectorise, reassociate or drop the arithmetic (plain C would be auto-vectorised for the
// scalar case and folded for the add case). AT&T order: "vfmadd231pd b, c, a" is a += c * b.
// Constants are 1.0: the values stay finite and never become denormal, whatever the count.

#define RPROF_FMA3(ins, i) ins " %[b], %[c], %[a" #i "]\n\t"
#define RPROF_ADD3(ins, i) ins " %[c], %[a" #i "], %[a" #i "]\n\t"
#define RPROF_MUL3(ins, i) ins " %[b], %[a" #i "], %[a" #i "]\n\t"
#define RPROF_ADD2(ins, i) ins " %[c], %[a" #i "]\n\t"
#define RPROF_MUL2(ins, i) ins " %[b], %[a" #i "]\n\t"

// One accumulator list per macro, laid out by hand: clang-format 14 lays these continuation
// lines out differently on each pass.
// clang-format off
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
// clang-format on

// A kernel of 12 (or 24) independent instructions per iteration. ATTR: the target attribute
// (empty for the x86-64 baseline), T: operand type, V: its 1.0, C: "x" (xmm0-15) or "v"
// (xmm/ymm/zmm0-31, AVX-512 only), BODY: the asm text, END: code after the loop.
#define RPROF_KERNEL(N, NAME, ATTR, T, V, C, BODY, END) \
  ATTR void NAME(uint64_t iterations) {                 \
    RPROF_DECL##N(T, V);                                \
    const T b = V;                                      \
    const T c = V;                                      \
    for (uint64_t i = 0; i < iterations; ++i) {         \
      RPROF_BLOCK##N(BODY, C)                           \
    }                                                   \
    END;                                                \
  }
// An asm statement takes at most 30 operands and "+" counts twice, so 24 accumulators are two
// statements of 12 in the same iteration (the registers stay allocated across both).
#define RPROF_BLOCK12(BODY, C) asm volatile(BODY : RPROF_OUT12("+" C) : [b] C(b), [c] C(c));
#define RPROF_BLOCK24(BODY, C)                                  \
  asm volatile(BODY : RPROF_OUT12("+" C) : [b] C(b), [c] C(c)); \
  asm volatile(BODY : RPROF_OUT12B("+" C) : [b] C(b), [c] C(c));

#define RPROF_BASE
#define RPROF_T_FMA __attribute__((target("fma")))
#define RPROF_T_AVX2 __attribute__((target("avx2")))
#define RPROF_T_AVX2_FMA __attribute__((target("avx2,fma")))
#define RPROF_T_AVX512 __attribute__((target("avx512f")))

// The six kernels of one ISA, NAME##F64Fma ... NAME##F32Add: fma, mul_add and add for fp64 and
// fp32. FMA_ATTR: the target attribute of the FMA kernels, ATTR: of the others; T64, T32: operand
// types and V64, V32 their 1.0; FORM: 2 (legacy SSE, "addpd c, a") or 3 (VEX and EVEX,
// "vaddpd c, a, a") operands, VEX its mnemonic prefix ("" or "v"); S64, S32: the mnemonic
// suffixes ("sd" and "ss" scalar, "pd" and "ps" packed). The FMA forms are always VEX or EVEX.
#define RPROF_ISA_KERNELS(N, NAME, FMA_ATTR, ATTR, T64, V64, T32, V32, C, FORM, VEX, S64, S32, \
                          END)                                                                 \
  RPROF_OPS(N, NAME##F64, FMA_ATTR, ATTR, T64, V64, C, FORM, VEX, S64, END)                    \
  RPROF_OPS(N, NAME##F32, FMA_ATTR, ATTR, T32, V32, C, FORM, VEX, S32, END)
#define RPROF_OPS(N, NAME, FMA_ATTR, ATTR, T, V, C, FORM, VEX, SFX, END)                         \
  RPROF_KERNEL(N, NAME##Fma, FMA_ATTR, T, V, C, RPROF_SAME12(RPROF_FMA3, "vfmadd231" SFX), END)  \
  RPROF_KERNEL(N, NAME##MulAdd, ATTR, T, V, C,                                                   \
               RPROF_MIX12(RPROF_MUL##FORM, VEX "mul" SFX, RPROF_ADD##FORM, VEX "add" SFX), END) \
  RPROF_KERNEL(N, NAME##Add, ATTR, T, V, C, RPROF_SAME12(RPROF_ADD##FORM, VEX "add" SFX), END)

// The table rows of one ISA's six kernels, N instructions an iteration. Not clang-formatted: it
// splits the last braced row over three lines.
// clang-format off
#define RPROF_ISA_ROWS(ISA, NAME, N)                                                          \
  {ISA, P::kFp64, O::kFma, NAME##F64Fma, N}, {ISA, P::kFp64, O::kMulAdd, NAME##F64MulAdd, N}, \
  {ISA, P::kFp64, O::kAdd, NAME##F64Add, N}, {ISA, P::kFp32, O::kFma, NAME##F32Fma, N},       \
  {ISA, P::kFp32, O::kMulAdd, NAME##F32MulAdd, N}, {ISA, P::kFp32, O::kAdd, NAME##F32Add, N}
// clang-format on

namespace rprof {
namespace {

// Scalar: one lane of an xmm register.
RPROF_ISA_KERNELS(12, Scalar, RPROF_T_FMA, RPROF_BASE, double, 1.0, float, 1.0f, "x", 2, "", "sd",
                  "ss", (void)0)
// SSE: 128-bit.
RPROF_ISA_KERNELS(12, Sse, RPROF_T_FMA, RPROF_BASE, __m128d, _mm_set1_pd(1.0), __m128,
                  _mm_set1_ps(1.0f), "x", 2, "", "pd", "ps", (void)0)
// AVX2: 256-bit, 12 of the 16 ymm registers.
RPROF_ISA_KERNELS(12, Avx2, RPROF_T_AVX2_FMA, RPROF_T_AVX2, __m256d, _mm256_set1_pd(1.0), __m256,
                  _mm256_set1_ps(1.0f), "x", 3, "v", "pd", "ps", _mm256_zeroupper())
// AVX-512: 512-bit, 24 of the 32 zmm registers.
RPROF_ISA_KERNELS(24, Avx512, RPROF_T_AVX512, RPROF_T_AVX512, __m512d, _mm512_set1_pd(1.0), __m512,
                  _mm512_set1_ps(1.0f), "v", 3, "v", "pd", "ps", _mm256_zeroupper())

using P = Precision;
using O = FlopOp;

const ComputeKernel kKernels[] = {
    RPROF_ISA_ROWS(Isa::kScalar, Scalar, 12),
    RPROF_ISA_ROWS(Isa::kSse, Sse, 12),
    RPROF_ISA_ROWS(Isa::kAvx2, Avx2, 12),
    RPROF_ISA_ROWS(Isa::kAvx512, Avx512, 24),
};

struct FlopOpInfo {
  FlopOp op;
  const char* name;
};

constexpr std::array<FlopOpInfo, 3> kFlopOps = {{
    {FlopOp::kFma, "fma"},
    {FlopOp::kMulAdd, "mul_add"},
    {FlopOp::kAdd, "add"},
}};

}  // namespace

// NameIn's view is of the row's literal (or of "?"), so its data() is a C string.
const char* FlopOpName(FlopOp op) { return NameIn<&FlopOpInfo::op>(kFlopOps, op).data(); }

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
