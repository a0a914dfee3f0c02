// Dot product s = sum x[i]*y[i]: two streamed inputs, one FMA's worth of work per element pair.
// 2 FLOPs per 16 bytes in fp64 and per 8 bytes in fp32, so fp32 has twice the arithmetic
// intensity: at a bandwidth roof it finishes in half the time, not because its FLOPs are cheaper.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

template <typename T>
struct DotState {
  int64_t n = 0;
  AlignedArray<T> x, y;
  // NaN until the first run, so a check before any run fails.
  T result = std::numeric_limits<T>::quiet_NaN();
};

template <typename T>
DotState<T>& State(void* state) {
  return *static_cast<DotState<T>*>(state);
}

template <typename T>
void* DotSetup(const rprof_args* args, rprof_error* err) {
  const int64_t n = args->values[0];
  std::unique_ptr<DotState<T>> st(new (std::nothrow) DotState<T>);
  if (st) {
    st->n = n;
    st->x = AllocateAligned<T>(n);
    st->y = AllocateAligned<T>(n);
  }
  if (!st || !st->x || !st->y) {
    SetError(err,
             "cannot allocate 2 arrays of %lld elements (%.2f GB in all): out of memory; "
             "choose a smaller n",
             static_cast<long long>(n), 2.0 * sizeof(T) * n / 1e9);
    return nullptr;
  }
  // Inputs in [0, 1): all products are non-negative, so the sum does not cancel and the check's
  // tolerance, relative to sum |x*y|, is relative to the result itself; a dropped or repeated
  // term shows.
  T* x = st->x.get();
  T* y = st->y.get();
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(Uniform01(1, static_cast<uint64_t>(i)));
    y[i] = static_cast<T>(Uniform01(2, static_cast<uint64_t>(i)));
  }
  return st.release();
}

template <typename T>
void DotTeardown(void* state) {
  delete static_cast<DotState<T>*>(state);
}

// Elements per partial sum; see DotRun. Each block costs one horizontal add of the SIMD lanes
// (a few FLOPs per 8192 the model counts); the error grows with the block size.
// 1024 measured as fast as 4096.
constexpr int64_t kBlock = 4096;

template <typename T>
void DotRun(void* state) {
  DotState<T>& st = State<T>(state);
  const T* x = st.x.get();
  const T* y = st.y.get();
  // Summed in blocks: a running fp32 sum of positive terms stops taking them in accurately once
  // it is large beside them (at 2^24 times a term, adding the term changes nothing). Measured
  // with one running sum per lane, 2e7 products came out 0.3 % low with SSE's 4 lanes, 1.6 times
  // the check's tolerance, and the error grows with n. Per-block sums stay small, and the n/4096
  // block sums added to the total are each large beside its rounding step: 2e8 products then
  // come out within 1e-6. Same loads and no measurable cost in time.
  T total = 0;
  for (int64_t start = 0; start < st.n; start += kBlock) {
    const int64_t end = std::min(st.n, start + kBlock);
    T block = 0;
    // Without -ffast-math the compiler must keep the additions in source order: one chain, each
    // add waiting for the previous. The reduction clause allows one partial sum per SIMD lane,
    // added together at the end: a different rounding, not a worse one (the check's bound holds
    // for any order), and the same on every run.
#pragma omp simd reduction(+ : block)
    for (int64_t i = start; i < end; ++i) block += x[i] * y[i];
    total += block;
  }
  st.result = total;
}

template <typename T>
bool CheckDotImpl(const T* x, const T* y, int64_t n, T result, rprof_error* err) {
  long double reference = 0;
  long double magnitude = 0;  // sum |x*y|: the scale rounding errors are proportional to
  for (int64_t i = 0; i < n; ++i) {
    const long double product = static_cast<long double>(x[i]) * y[i];
    reference += product;
    magnitude += std::fabs(product);
  }
  const long double difference = std::fabs(result - reference);
  const long double tolerance = SumTolerance<T>(n) * magnitude;
  if (difference <= tolerance) return true;  // false for NaN too
  SetError(err, "result %.9Lg, reference %.9Lg: difference %.3Lg exceeds tolerance %.3Lg",
           static_cast<long double>(result), reference, difference, tolerance);
  return false;
}

template <typename T>
int DotCheck(void* state, rprof_error* err) {
  const DotState<T>& st = State<T>(state);
  return CheckDotImpl(st.x.get(), st.y.get(), st.n, st.result, err);
}

constexpr rprof_param kParams[] = {
    {"n", "elements in each of the two input vectors", 10'000'000, 1, 2'000'000'000},
};

constexpr rprof_kernel kKernels[] = {
    {"dot", "dot product s = sum x[i]*y[i] (fp64): a reduction, 2 FLOPs per 16 bytes",
     RPROF_PRECISION_FP64, kParams, 1, "2*n", "16*n", DotSetup<double>, DotRun<double>,
     DotCheck<double>, DotTeardown<double>},
    {"dot-fp32", "dot product s = sum x[i]*y[i] (fp32): 2 FLOPs per 8 bytes, twice dot's intensity",
     RPROF_PRECISION_FP32, kParams, 1, "2*n", "8*n", DotSetup<float>, DotRun<float>,
     DotCheck<float>, DotTeardown<float>},
};

}  // namespace

std::span<const rprof_kernel> DotKernels() { return kKernels; }

bool CheckDot(const double* x, const double* y, int64_t n, double result, rprof_error* err) {
  return CheckDotImpl(x, y, n, result, err);
}

bool CheckDot(const float* x, const float* y, int64_t n, float result, rprof_error* err) {
  return CheckDotImpl(x, y, n, result, err);
}

}  // namespace rprof
