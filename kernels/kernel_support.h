// Helpers shared by the built-in kernel families: aligned arrays, error text, deterministic
// pseudo-random inputs and the rounding-error tolerance the checks use. Internal to kernels/.
#ifndef RPROF_KERNELS_KERNEL_SUPPORT_H_
#define RPROF_KERNELS_KERNEL_SUPPORT_H_

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>

#include "rprof/kernel.h"

namespace rprof {

// 64 bytes: one cache line on every x86-64 part and one AVX-512 register, so no vector access
// straddles a line and the first element starts a line.
inline constexpr size_t kArrayAlignment = 64;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using AlignedArray = std::unique_ptr<T[], FreeDeleter>;

// Allocates `count` uninitialised elements aligned to kArrayAlignment; null when memory runs
// out. Touching the pages is left to the caller, so the thread that initialises them places them
// (first touch).
template <typename T>
AlignedArray<T> AllocateAligned(int64_t count) {
  size_t bytes = static_cast<size_t>(count) * sizeof(T);
  // aligned_alloc wants a size that is a multiple of the alignment.
  bytes = (bytes + kArrayAlignment - 1) / kArrayAlignment * kArrayAlignment;
  return AlignedArray<T>(static_cast<T*>(std::aligned_alloc(kArrayAlignment, bytes)));
}

// printf-style text into err (truncated to its buffer).
[[gnu::format(printf, 2, 3)]] inline void SetError(rprof_error* err, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(err->message, sizeof err->message, format, args);
  va_end(args);
}

// SplitMix64's finaliser: a stateless hash, so element i of an input is a function of i alone
// and inputs are identical from run to run and machine to machine.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

// A value in [0, 1) for element `index` of the input named by `seed`.
inline double Uniform01(uint64_t seed, uint64_t index) {
  return static_cast<double>(Mix64(Mix64(seed) ^ index) >> 11) * 0x1p-53;
}

// A value in [-1, 1): mixed signs make partial sums cancel, so a wrong term shows in the result.
inline double UniformSigned(uint64_t seed, uint64_t index) {
  return 2.0 * Uniform01(seed, index) - 1.0;
}

// Tolerance for a sum of n products computed in T, relative to sum |x_i * y_i|.
//
// The worst-case bound, n*u (u = unit roundoff), is reached only when every rounding error has
// the same sign; for fp32 at large n it exceeds 1 and would accept any answer. Rounding errors
// behave like independent zero-mean variables, which gives lambda*sqrt(n)*u with a failure
// probability of about 2n*exp(-lambda^2/2) (Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019);
// lambda = 8 makes that 4e-10 at n = 16384 and 3e-7 at n = 1e7. The bound holds for any
// summation order, so SIMD partial sums and FMA contraction are covered.
template <typename T>
double SumTolerance(int64_t n) {
  constexpr double kLambda = 8.0;
  constexpr double kUnitRoundoff = std::numeric_limits<T>::epsilon() / 2;
  return kLambda * std::sqrt(static_cast<double>(n)) * kUnitRoundoff;
}

}  // namespace rprof

#endif  // RPROF_KERNELS_KERNEL_SUPPORT_H_
