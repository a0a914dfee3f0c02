// What each kernel family file gives builtin_kernels.cc (its table) and the unit tests (the
// checks, callable on data the test controls). Internal to kernels/.
#ifndef RPROF_KERNELS_KERNEL_FAMILIES_H_
#define RPROF_KERNELS_KERNEL_FAMILIES_H_

#include <cstdint>
#include <span>

#include "rprof/kernel.h"

namespace rprof {

// Each family's kernels, in the order `rprof kernels` lists them. The tables are static.
std::span<const rprof_kernel> StreamKernels();  // copy, scale, add, triad
std::span<const rprof_kernel> DotKernels();     // dot, dot-fp32
std::span<const rprof_kernel> MatmulKernels();  // matmul-naive(-fp32), matmul-ikj(-fp32)

// Compares `result` with sum x[i]*y[i] over n elements, summed in long double. True when within
// the rounding tolerance of T; otherwise false with *err naming both values.
bool CheckDot(const double* x, const double* y, int64_t n, double result, rprof_error* err);
bool CheckDot(const float* x, const float* y, int64_t n, float result, rprof_error* err);

// Compares 64 pseudo-randomly chosen entries of the row-major n×n matrix c with the same entries
// of a·b, each a long double dot product. True when all are within the rounding tolerance of T;
// otherwise false with *err naming the first entry that is not.
bool CheckMatmul(const double* a, const double* b, const double* c, int64_t n, rprof_error* err);
bool CheckMatmul(const float* a, const float* b, const float* c, int64_t n, rprof_error* err);

}  // namespace rprof

#endif  // RPROF_KERNELS_KERNEL_FAMILIES_H_
