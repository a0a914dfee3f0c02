// What each kernel family file gives builtin_kernels.cc (its table) and the unit tests (the
// checks, callable on data the test controls). Internal to kernels/.
#ifndef RPROF_KERNELS_KERNEL_FAMILIES_H_
#define RPROF_KERNELS_KERNEL_FAMILIES_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "rprof/kernel.h"

namespace rprof {

// Each family's kernels, in the order `rprof kernels` lists them. The tables are static.
std::span<const rprof_kernel> StreamKernels();  // copy, scale, add, triad
std::span<const rprof_kernel> DotKernels();     // dot, dot-fp32
std::span<const rprof_kernel> MatmulKernels();  // matmul-naive(-fp32), matmul-ikj(-fp32)
// The curriculum's kernels (issue 8), in this order after the ones above.
std::span<const rprof_kernel> MatmulFastKernels();  // matmul-tiled(-fp32), matmul-simd(-fp32)
// matmul-blas(-fp32): defined only when OpenBLAS was found (matmul_blas.cc, RPROF_HAVE_OPENBLAS).
std::span<const rprof_kernel> MatmulBlasKernels();
std::span<const rprof_kernel> GemvKernels();           // gemv, gemv-int8, matmul-batch
std::span<const rprof_kernel> TransformerOpKernels();  // softmax, layernorm, residual-add
std::span<const rprof_kernel> AttentionKernels();      // attention-naive, attention-tiled
std::span<const rprof_kernel> StencilKernels();        // stencil

// Compares `result` with sum x[i]*y[i] over n elements, summed in long double. True when within
// the rounding tolerance of T; otherwise false with *err naming both values.
bool CheckDot(const double* x, const double* y, int64_t n, double result, rprof_error* err);
bool CheckDot(const float* x, const float* y, int64_t n, float result, rprof_error* err);

// Compares 64 pseudo-randomly chosen entries of the row-major n×n matrix c with the same entries
// of a·b, each a long double dot product. True when all are within the rounding tolerance of T;
// otherwise false with *err naming the first entry that is not.
bool CheckMatmul(const double* a, const double* b, const double* c, int64_t n, rprof_error* err);
bool CheckMatmul(const float* a, const float* b, const float* c, int64_t n, rprof_error* err);

// The curriculum kernels' checks, on data the caller controls. Each returns true when the
// result is within the rounding tolerance of a long double reference (exactly equal for
// residual-add), otherwise false with *err naming the first element that is not. Large results
// are sampled: 64 pseudo-random rows (or outputs) and the last.
//
// y (batch×m: vector t's outputs at y + t*m) against W (m×k) times x (batch×k).
bool CheckGemv(const float* w, const float* x, const float* y, int64_t m, int64_t k, int64_t batch,
               rprof_error* err);
// y (m) against scale[i] * (row i of the int8 q (m×k) times x (k)).
bool CheckGemvInt8(const int8_t* q, const float* scale, const float* x, const float* y, int64_t m,
                   int64_t k, rprof_error* err);
// y against the row-wise softmax of x, both rows×cols.
bool CheckSoftmax(const float* x, const float* y, int64_t rows, int64_t cols, rprof_error* err);
// y against the row-wise layer norm of x (epsilon 1e-5) scaled by gamma, shifted by beta (cols).
bool CheckLayernorm(const float* x, const float* gamma, const float* beta, const float* y,
                    int64_t rows, int64_t cols, rprof_error* err);
// y == x + r, every element.
bool CheckResidualAdd(const float* x, const float* r, const float* y, int64_t n, rprof_error* err);
// o against softmax(q·kᵀ/√d)·v, all seq×d.
bool CheckAttention(const float* q, const float* k, const float* v, const float* o, int64_t seq,
                    int64_t d, rprof_error* err);
// The interior of out (n×n) against 0.2 * (the 5-point sum of in); every interior point.
bool CheckStencil(const double* in, const double* out, int64_t n, rprof_error* err);

// The result array of `state`, made by the setup of one of the family's kernels, as bytes (fp32
// or fp64 as the kernel's precision says): the output of the last run(), for the tests that
// compare runs with different thread counts. Valid until teardown. (matmul-blas has none: what
// OpenBLAS does with threads is OpenBLAS's business; its check covers it.)
std::span<const std::byte> MatmulFastResult(const rprof_kernel& kernel, void* state);  // C
std::span<const std::byte> GemvResult(void* state);                                    // y
std::span<const std::byte> TransformerOpResult(void* state);                           // y
std::span<const std::byte> AttentionResult(void* state);                               // O
std::span<const std::byte> StencilResult(void* state);                                 // out

}  // namespace rprof

#endif  // RPROF_KERNELS_KERNEL_FAMILIES_H_
