// The operations of a transformer layer that are not matrix products: softmax and layer norm over
// the rows of an activation matrix, and the residual add. Each reads its input once and writes
// its output once, doing a handful of FLOPs per element in between, so each sits far left on
// the roofline (0.1 to 3 FLOP/B): bandwidth decides their time, which is why, in the
// curriculum's words, GEMM's efficiency dominates a model's run time and these merely have to
// stream.
//
// FLOP convention: the formulas count what the code executes, as hardware counters count it
// (add, sub, mul, div, sqrt, min, max: 1; FMA: 2; conversions, compares, logic: 0), so the model
// and a measured count agree; the loops are written with the Simd operations of
// kernel_support.h so that this holds on every compiler. A math function is thus not "1 FLOP":
// softmax's exp is the 20 FLOPs of ExpNonPositive. Papers that count exp as 1 FLOP would write
// 5*rows*cols for softmax; the difference moves softmax from 0.6 to 3 FLOP/B. Not counted: the
// few dozen operations per row that combine partial vectors and SIMD lanes at the end of each
// max and sum (0.04 % of softmax's FLOPs and 0.2 % of layer norm's at 4096 columns).
//
// The bytes formulas are compulsory traffic: the input read once, the output written once, the
// per-column gamma and beta of layer norm once. A row (16 KiB at the default 4096 columns) stays
// in L1/L2 between the passes softmax and layer norm make over it, so the extra passes cost
// cache bandwidth, not DRAM bandwidth.
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

constexpr float kLayernormEpsilon = 1e-5f;

enum class Op { kSoftmax, kLayernorm, kResidualAdd };

struct OpsState {
  int64_t rows = 0, cols = 0;  // residual-add: rows = n, cols = 1
  AlignedArray<float> x;       // rows*cols, row-major
  AlignedArray<float> r;       // residual-add: the residual, rows*cols
  AlignedArray<float> gamma;   // layernorm: cols
  AlignedArray<float> beta;    // layernorm: cols
  AlignedArray<float> y;       // rows*cols
  WorkerPool pool;
};

OpsState& State(void* state) { return *static_cast<OpsState*>(state); }

// Parts split the rows; residual-add's "rows" are single elements, split in whole cache lines.
int64_t Grain(const OpsState& st) { return st.cols == 1 ? 16 : 1; }

// Parameters: softmax and layernorm (rows, cols, threads), residual-add (n, threads).
template <Op kOp>
void* OpsSetup(const rprof_args* args, rprof_error* err) {
  const bool elementwise = kOp == Op::kResidualAdd;
  const int64_t rows = args->values[0];
  const int64_t cols = elementwise ? 1 : args->values[1];
  const int64_t threads = args->values[elementwise ? 1 : 2];
  const int64_t count = rows * cols;
  std::unique_ptr<OpsState> st(new (std::nothrow) OpsState);
  bool allocated = false;
  if (st) {
    st->rows = rows;
    st->cols = cols;
    st->x = AllocateAligned<float>(count);
    st->y = AllocateAligned<float>(count);
    allocated = st->x && st->y;
    if (kOp == Op::kResidualAdd) {
      st->r = AllocateAligned<float>(count);
      allocated = allocated && st->r;
    }
    if (kOp == Op::kLayernorm) {
      st->gamma = AllocateAligned<float>(cols);
      st->beta = AllocateAligned<float>(cols);
      allocated = allocated && st->gamma && st->beta;
    }
  }
  if (!allocated) {
    SetError(err,
             "cannot allocate %d arrays of %lld floats (%.2f GB in all): out of memory; "
             "choose a smaller size",
             elementwise ? 3 : 2, static_cast<long long>(count),
             (elementwise ? 3 : 2) * 4.0 * static_cast<double>(count) / 1e9);
    return nullptr;
  }
  if (!st->pool.Start(static_cast<int>(threads), err)) return nullptr;
  OpsState& s = *st;
  // Each part writes the rows it will work on (first touch places them on its NUMA node).
  s.pool.Run([&](int part) {
    const RowRange rows_here = SplitRows(rows, part, s.pool.parts(), Grain(s));
    for (int64_t i = rows_here.begin * cols; i < rows_here.end * cols; ++i) {
      const auto index = static_cast<uint64_t>(i);
      if (kOp == Op::kSoftmax) {
        // Attention scores in [-4, 4): spread enough that rows are not uniform.
        s.x[i] = static_cast<float>(4 * UniformSigned(9, index));
      } else if (kOp == Op::kLayernorm) {
        // Mean near 0.5, so subtracting the mean matters.
        s.x[i] = static_cast<float>(0.5 + UniformSigned(10, index));
      } else {
        s.x[i] = static_cast<float>(UniformSigned(11, index));
        s.r[i] = static_cast<float>(UniformSigned(12, index));
      }
      // NaN until a run has written y, so a check before any run fails.
      s.y[i] = std::numeric_limits<float>::quiet_NaN();
    }
  });
  if (kOp == Op::kLayernorm) {
    for (int64_t j = 0; j < cols; ++j) {
      s.gamma[j] = static_cast<float>(1 + 0.5 * UniformSigned(13, static_cast<uint64_t>(j)));
      s.beta[j] = static_cast<float>(0.1 * UniformSigned(14, static_cast<uint64_t>(j)));
    }
  }
  return st.release();
}

void OpsTeardown(void* state) { delete static_cast<OpsState*>(state); }

// Runs row_fn(first_row, end_row) on every part's rows.
template <typename RowFn>
void ForRows(OpsState& st, RowFn row_fn) {
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.rows, part, st.pool.parts(), Grain(st));
    row_fn(rows.begin, rows.end);
  });
}

// Per element: max 1; x - max 1, exp 20, sum 1; times 1/sum 1: 24 FLOPs. Per row: one division.
void Softmax(void* state) {
  OpsState& st = State(state);
  const int64_t cols = st.cols;
  ForRows(st, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t i = row_begin; i < row_end; ++i) {
      const float* x = st.x.get() + i * cols;
      float* y = st.y.get() + i * cols;
      // Subtracting the row's max keeps every exp argument <= 0: no overflow, and the largest
      // term is exactly 1, so the sum is at least 1.
      const float max = RowMax(x, cols);
      const float sum = ExpRow<false>(x, max, 1.0f, y, cols);
      ScaleRow(y, 1.0f / sum, cols);
    }
  });
}

// Two passes for the statistics (the mean, then the sum of squared deviations from it), which
// unlike the one-pass E[x²] - E[x]² does not cancel catastrophically when the mean is large
// beside the spread. Per element: sum 1; (x - mean)² summed 3 (sub, FMA); (x - mean) * rstd *
// gamma + beta 4 (sub, mul, FMA): 8 FLOPs. Per row: the mean's division 1; the variance's
// division, + epsilon, sqrt and 1/ 4: 5.
void Layernorm(void* state) {
  using S = Simd<float>;
  OpsState& st = State(state);
  const int64_t cols = st.cols;
  const float cols_f = static_cast<float>(cols);
  ForRows(st, [&](int64_t row_begin, int64_t row_end) {
    const float* gamma = st.gamma.get();
    const float* beta = st.beta.get();
    for (int64_t i = row_begin; i < row_end; ++i) {
      const float* x = st.x.get() + i * cols;
      float* y = st.y.get() + i * cols;
      const float mean = RowSum(x, cols) / cols_f;
      const float rstd =
          1.0f / std::sqrt(RowSquaredDeviation(x, mean, cols) / cols_f + kLayernormEpsilon);
      const S::V mean_v = S::Set1(mean);
      const S::V rstd_v = S::Set1(rstd);
      int64_t j = 0;
      for (; j + S::kLanes <= cols; j += S::kLanes) {
        const S::V normalised = S::Mul(S::Sub(S::Load(x + j), mean_v), rstd_v);
        S::Store(y + j, S::Fma(normalised, S::Load(gamma + j), S::Load(beta + j)));
      }
      for (; j < cols; ++j) y[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
    }
  });
}

// y = x + r out of place, so every run computes the same y (in place, x would drift from run
// to run). The same 12 bytes per element as the in-place x += r of a transformer block.
void ResidualAdd(void* state) {
  OpsState& st = State(state);
  ForRows(st, [&](int64_t begin, int64_t end) {
    const float* x = st.x.get();
    const float* r = st.r.get();
    float* y = st.y.get();
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = x[i] + r[i];
  });
}

// Rows checked: all when there are at most 64, else 64 pseudo-random ones and the last.
template <typename RowCheck>
bool CheckRows(int64_t rows, RowCheck check_row) {
  const bool all = rows <= 64;
  const int64_t samples = all ? rows : 65;
  for (int64_t sample = 0; sample < samples; ++sample) {
    const int64_t row =
        all ? sample
            : (sample == 64 ? rows - 1
                            : static_cast<int64_t>(Mix64(static_cast<uint64_t>(sample)) %
                                                   static_cast<uint64_t>(rows)));
    if (!check_row(row)) return false;
  }
  return true;
}

bool CheckSoftmaxImpl(const float* x, const float* y, int64_t rows, int64_t cols,
                      rprof_error* err) {
  constexpr long double kUnitRoundoff = std::numeric_limits<float>::epsilon() / 2;
  return CheckRows(rows, [&](int64_t i) {
    const float* xr = x + i * cols;
    const float* yr = y + i * cols;
    long double max = -std::numeric_limits<long double>::infinity();
    for (int64_t j = 0; j < cols; ++j) max = std::max<long double>(max, xr[j]);
    long double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<long double>(xr[j]) - max);
    for (int64_t j = 0; j < cols; ++j) {
      const long double argument = static_cast<long double>(xr[j]) - max;
      const long double reference = std::exp(argument) / sum;
      // Relative: the sum of positive terms (SumTolerance), the exp argument's rounding
      // (|argument| ulps), the exp itself (3e-7, 5 ulps) and the two roundings of 1/sum and the
      // product. Absolute: 1e-37 for arguments below -87, where the kernel's exp stops going
      // down (kernel_support.h).
      const long double tolerance =
          (SumTolerance<float>(cols) + (8 + std::fabs(argument)) * kUnitRoundoff) * reference +
          1e-37L;
      const long double difference = std::fabs(yr[j] - reference);
      if (!(difference <= tolerance)) {  // NaN fails too
        SetElementMismatch(err, "y", i, j, yr[j], reference, difference, tolerance);
        return false;
      }
    }
    return true;
  });
}

bool CheckLayernormImpl(const float* x, const float* gamma, const float* beta, const float* y,
                        int64_t rows, int64_t cols, rprof_error* err) {
  constexpr long double kUnitRoundoff = std::numeric_limits<float>::epsilon() / 2;
  const long double sum_tolerance = SumTolerance<float>(cols);
  return CheckRows(rows, [&](int64_t i) {
    const float* xr = x + i * cols;
    const float* yr = y + i * cols;
    long double sum = 0, abs_sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      sum += xr[j];
      abs_sum += std::fabs(static_cast<long double>(xr[j]));
    }
    const long double mean = sum / cols;
    long double square_sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      square_sum += (xr[j] - mean) * (xr[j] - mean);
    }
    const long double rstd = 1 / std::sqrt(square_sum / cols + kLayernormEpsilon);
    for (int64_t j = 0; j < cols; ++j) {
      const long double normalised = (xr[j] - mean) * rstd * gamma[j];
      const long double reference = normalised + beta[j];
      // The mean's error (sum_tolerance * mean |x|) scaled by rstd*gamma, the relative error of
      // rstd (about half the variance sum's, sum_tolerance) on the normalised value, both
      // doubled for the second-order terms; then the four roundings of the last line.
      const long double tolerance =
          2 * sum_tolerance *
              (std::fabs(normalised) + rstd * std::fabs(gamma[j]) * abs_sum / cols) +
          4 * kUnitRoundoff * (std::fabs(normalised) + std::fabs(beta[j]));
      const long double difference = std::fabs(yr[j] - reference);
      if (!(difference <= tolerance)) {  // NaN fails too
        SetElementMismatch(err, "y", i, j, yr[j], reference, difference, tolerance);
        return false;
      }
    }
    return true;
  });
}

bool CheckResidualAddImpl(const float* x, const float* r, const float* y, int64_t n,
                          rprof_error* err) {
  // One correctly rounded fp32 addition per element: the result is exact whatever the code, so
  // the check compares with ==, every element.
  for (int64_t i = 0; i < n; ++i) {
    const float expected = x[i] + r[i];
    if (!(y[i] == expected)) {
      SetError(err, "y[%lld] = %.9g, expected %.9g", static_cast<long long>(i),
               static_cast<double>(y[i]), static_cast<double>(expected));
      return false;
    }
  }
  return true;
}

int SoftmaxCheck(void* state, rprof_error* err) {
  const OpsState& st = State(state);
  return CheckSoftmaxImpl(st.x.get(), st.y.get(), st.rows, st.cols, err);
}

int LayernormCheck(void* state, rprof_error* err) {
  const OpsState& st = State(state);
  return CheckLayernormImpl(st.x.get(), st.gamma.get(), st.beta.get(), st.y.get(), st.rows, st.cols,
                            err);
}

int ResidualAddCheck(void* state, rprof_error* err) {
  const OpsState& st = State(state);
  return CheckResidualAddImpl(st.x.get(), st.r.get(), st.y.get(), st.rows, err);
}

// 4096 x 4096: 64 MiB per matrix, beyond a 32 MiB L3, so the defaults stream from DRAM.
constexpr rprof_param kRowParams[] = {
    {"rows", "rows of the activation matrix (tokens)", 4096, 1, 1 << 24},
    {"cols", "columns (the hidden dimension); each row is normalised on its own", 4096, 1, 1 << 24},
    kThreadsParam,
};

// 2^24 elements: 64 MiB per array, 192 MiB in all.
constexpr rprof_param kElementParams[] = {
    {"n", "elements of x, r and y", 1 << 24, 1, 2'000'000'000},
    kThreadsParam,
};

constexpr rprof_kernel kKernels[] = {
    // exp counted as its 20 FLOPs (see the top of this file); as 1 FLOP it would be 5 per element.
    {"softmax",
     "row-wise softmax (fp32): max, exp, sum, scale; 24 FLOPs (exp = 20 of them) per 8 bytes",
     RPROF_PRECISION_FP32, kRowParams, 3, "24*rows*cols+rows", "8*rows*cols",
     OpsSetup<Op::kSoftmax>, Softmax, SoftmaxCheck, OpsTeardown},
    {"layernorm",
     "row-wise layer norm (fp32) with gamma and beta: 8 FLOPs per 8 bytes, bandwidth-bound",
     RPROF_PRECISION_FP32, kRowParams, 3, "8*rows*cols+5*rows", "8*rows*cols+8*cols",
     OpsSetup<Op::kLayernorm>, Layernorm, LayernormCheck, OpsTeardown},
    {"residual-add", "residual connection y = x + r (fp32): 1 FLOP per 12 bytes, pure streaming",
     RPROF_PRECISION_FP32, kElementParams, 2, "n", "12*n", OpsSetup<Op::kResidualAdd>, ResidualAdd,
     ResidualAddCheck, OpsTeardown},
};

}  // namespace

std::span<const rprof_kernel> TransformerOpKernels() { return kKernels; }

std::span<const std::byte> TransformerOpResult(void* state) {
  const OpsState& st = State(state);
  return ResultBytes(st.y.get(), st.rows * st.cols);
}

bool CheckSoftmax(const float* x, const float* y, int64_t rows, int64_t cols, rprof_error* err) {
  return CheckSoftmaxImpl(x, y, rows, cols, err);
}

bool CheckLayernorm(const float* x, const float* gamma, const float* beta, const float* y,
                    int64_t rows, int64_t cols, rprof_error* err) {
  return CheckLayernormImpl(x, gamma, beta, y, rows, cols, err);
}

bool CheckResidualAdd(const float* x, const float* r, const float* y, int64_t n, rprof_error* err) {
  return CheckResidualAddImpl(x, r, y, n, err);
}

}  // namespace rprof
