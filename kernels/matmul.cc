// Dense matrix multiply C = A·B, n×n, row-major, in two loop orders that do the same 2n³ FLOPs
// on the same data and differ only in how they walk memory.
//
// The bytes formula, 3n² elements, is the compulsory traffic: A and B read once, C written once.
// Its intensity, 2n³ / (3n²·size), grows with n, so on paper matmul is compute-bound for all but
// tiny n. Whether a loop order comes near that depends on reuse in cache: the naive order reads
// far more than 3n² elements from memory at large n, and the measured bytes beside the model
// show by how much.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <span>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

template <typename T>
struct MatmulState {
  int64_t n = 0;
  AlignedArray<T> a, b, c;  // n*n each, row-major
};

template <typename T>
MatmulState<T>& State(void* state) {
  return *static_cast<MatmulState<T>*>(state);
}

template <typename T>
void* MatmulSetup(const rprof_args* args, rprof_error* err) {
  const int64_t n = args->values[0];
  std::unique_ptr<MatmulState<T>> st(new (std::nothrow) MatmulState<T>);
  if (!st) {
    SetError(err, "out of memory");
    return nullptr;
  }
  st->n = n;
  if (!AllocateMatmulOperands(n, &st->a, &st->b, &st->c, err)) return nullptr;
  return st.release();
}

template <typename T>
void MatmulTeardown(void* state) {
  delete static_cast<MatmulState<T>*>(state);
}

// ijk: each C[i][j] is a dot product of row i of A with column j of B. Walking down a column of
// B jumps n*sizeof(T) bytes per step, so every access touches a new cache line and uses one
// element of it; at power-of-two n those lines also map to the same few cache sets and evict
// each other. The reduction over k is one dependent chain the compiler may not reorder, so it
// does not vectorise either.
template <typename T>
void MatmulNaive(void* state) {
  MatmulState<T>& st = State<T>(state);
  const int64_t n = st.n;
  const T* a = st.a.get();
  const T* b = st.b.get();
  T* c = st.c.get();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
  }
}

// ikj: the same sums, accumulated in place: row i of C += A[i][k] * row k of B. The inner loop
// runs along rows of B and C at unit stride, so every byte of every line fetched is used and the
// prefetcher sees a plain stream; its iterations are independent, so it vectorises; and row i of
// C stays in cache for the whole k loop. Each C[i][j] still adds its terms in k order, so the
// result equals the naive one up to FMA contraction.
template <typename T>
void MatmulIkj(void* state) {
  MatmulState<T>& st = State<T>(state);
  const int64_t n = st.n;
  const T* a = st.a.get();
  const T* b = st.b.get();
  T* c = st.c.get();
  std::fill(c, c + n * n, T{0});  // accumulating in place: start from zero on every run
  for (int64_t i = 0; i < n; ++i) {
    T* c_row = c + i * n;
    for (int64_t k = 0; k < n; ++k) {
      const T a_ik = a[i * n + k];
      const T* b_row = b + k * n;
      // States that c_row and b_row do not overlap, which the compiler cannot prove.
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}

template <typename T>
bool CheckMatmulImpl(const T* a, const T* b, const T* c, int64_t n, rprof_error* err) {
  constexpr int kSamples = 64;
  const long double relative_tolerance = SumTolerance<T>(n);
  for (int sample = 0; sample < kSamples; ++sample) {
    const int64_t i = static_cast<int64_t>(Mix64(2 * sample) % static_cast<uint64_t>(n));
    const int64_t j = static_cast<int64_t>(Mix64(2 * sample + 1) % static_cast<uint64_t>(n));
    long double reference = 0;
    long double magnitude = 0;  // sum |a*b|: the scale rounding errors are proportional to;
                                // |C[i][j]| itself may be near zero after cancellation
    for (int64_t k = 0; k < n; ++k) {
      const long double product = static_cast<long double>(a[i * n + k]) * b[k * n + j];
      reference += product;
      magnitude += std::fabs(product);
    }
    const long double difference = std::fabs(c[i * n + j] - reference);
    const long double tolerance = relative_tolerance * magnitude;
    if (!(difference <= tolerance)) {  // NaN fails too
      SetError(err,
               "C[%lld][%lld] = %.9Lg, reference %.9Lg: difference %.3Lg exceeds tolerance "
               "%.3Lg",
               static_cast<long long>(i), static_cast<long long>(j),
               static_cast<long double>(c[i * n + j]), reference, difference, tolerance);
      return false;
    }
  }
  return true;
}

template <typename T>
int MatmulCheck(void* state, rprof_error* err) {
  const MatmulState<T>& st = State<T>(state);
  return CheckMatmulImpl(st.a.get(), st.b.get(), st.c.get(), st.n, err);
}

constexpr rprof_param kParams[] = {
    {"n", "rows and columns of the square matrices A, B and C", 512, 1, 16384},
};

constexpr rprof_kernel kKernels[] = {
    {"matmul-naive",
     "C = A*B (fp64), ijk order: B read down columns at stride n, one element per cache line",
     RPROF_PRECISION_FP64, kParams, 1, "2*n*n*n", "3*n*n*8", MatmulSetup<double>,
     MatmulNaive<double>, MatmulCheck<double>, MatmulTeardown<double>},
    {"matmul-naive-fp32",
     "C = A*B (fp32), ijk order: B read down columns at stride n, one element per cache line",
     RPROF_PRECISION_FP32, kParams, 1, "2*n*n*n", "3*n*n*4", MatmulSetup<float>, MatmulNaive<float>,
     MatmulCheck<float>, MatmulTeardown<float>},
    {"matmul-ikj",
     "C = A*B (fp64), ikj order: unit-stride rows of B and C, vectorised; same FLOPs as naive",
     RPROF_PRECISION_FP64, kParams, 1, "2*n*n*n", "3*n*n*8", MatmulSetup<double>, MatmulIkj<double>,
     MatmulCheck<double>, MatmulTeardown<double>},
    {"matmul-ikj-fp32",
     "C = A*B (fp32), ikj order: unit-stride rows of B and C, vectorised; same FLOPs as naive",
     RPROF_PRECISION_FP32, kParams, 1, "2*n*n*n", "3*n*n*4", MatmulSetup<float>, MatmulIkj<float>,
     MatmulCheck<float>, MatmulTeardown<float>},
};

}  // namespace

std::span<const rprof_kernel> MatmulKernels() { return kKernels; }

bool CheckMatmul(const double* a, const double* b, const double* c, int64_t n, rprof_error* err) {
  return CheckMatmulImpl(a, b, c, n, err);
}

bool CheckMatmul(const float* a, const float* b, const float* c, int64_t n, rprof_error* err) {
  return CheckMatmulImpl(a, b, c, n, err);
}

}  // namespace rprof
