// Matrix-vector and skinny matrix-matrix products: a layer's weights W (m×k) applied to the
// activations of one token (gemv, gemv-int8) or of a batch of them (matmul-batch). Two claims
// of the curriculum live here, both about bytes rather than multiplications:
//
// - Quantisation: gemv-int8 does gemv's arithmetic on int8 weights with one fp32 scale per row.
//   Every weight is used once per call, so gemv moves 4 bytes per 2 FLOPs (0.5 FLOP/B) and is
//   DRAM-bound at any size beyond the caches; int8 weights are a quarter of those bytes, so at
//   the same bandwidth the same math finishes up to 4× sooner, although widening int8 to fp32
//   costs instructions fp32 weights do not need.
//
// - Inference vs training: matmul-batch applies W to `batch` activation vectors. At batch 1 it is
//   gemv (0.5 FLOP/B); each weight loaded is then used for all `batch` vectors while it sits in
//   registers and cache, so the intensity grows as about batch/2 FLOP/B and the kernel crosses
//   from the bandwidth roof to the compute roof: serving one chat token at a time is
//   memory-bound, a training batch is compute-bound.
//
// All three share one micro-kernel: R rows of W against T activation vectors, vectorised along
// k, R×T independent accumulators, each weight vector loaded once for T FMAs. Same code for
// fp32 and int8 weights, so the comparison measures the weights' bytes, not two different
// programmers.
//
// Inputs: int8 weights q uniform in [-127, 127] with row scales s_i = (64 + i mod 64) / 8192,
// and the fp32 kernels' weights are exactly s_i * q_ij (7 + 7 significant bits, exact in fp32):
// gemv and gemv-int8 compute the same y up to rounding. Activations are uniform in [-1, 1).
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

// Rows of W per micro-kernel call, and activation vectors for matmul-batch: R*T accumulators
// plus T activation vectors plus one weight vector fit the vector registers (AVX2: 8 + 2 + 1 of
// 16; AVX-512: 16 + 4 + 1 of 32), and R*T = 8 independent FMAs are in flight, enough to cover
// FMA latency times FMA pipes on Zen 3 (4 × 2).
constexpr int kRows = 4;
#if defined(__AVX512F__)
constexpr int kBatchTile = 4;
#else
constexpr int kBatchTile = 2;
#endif

enum class Weights { kFp32, kInt8 };

struct GemvState {
  int64_t m = 0, k = 0, batch = 1;
  AlignedArray<float> w;      // fp32 kernels: m*k, row-major
  AlignedArray<int8_t> q;     // gemv-int8: m*k, row-major
  AlignedArray<float> scale;  // gemv-int8: m
  AlignedArray<float> x;      // batch*k: vector t at x + t*k
  AlignedArray<float> y;      // batch*m: vector t's outputs at y + t*m
  WorkerPool pool;
};

GemvState& State(void* state) { return *static_cast<GemvState*>(state); }

int8_t QuantisedWeight(int64_t index) {
  return static_cast<int8_t>(
      static_cast<int64_t>(Mix64(Mix64(3) ^ static_cast<uint64_t>(index)) % 255) - 127);
}
float RowScale(int64_t row) { return static_cast<float>(64 + row % 64) / 8192.0f; }

// Parameters: (m, k, threads) for gemv and gemv-int8, (m, k, batch, threads) for matmul-batch.
template <Weights kWeights, bool kBatched>
void* GemvSetup(const rprof_args* args, rprof_error* err) {
  const int64_t m = args->values[0];
  const int64_t k = args->values[1];
  const int64_t batch = kBatched ? args->values[2] : 1;
  const int64_t threads = args->values[kBatched ? 3 : 2];
  std::unique_ptr<GemvState> st(new (std::nothrow) GemvState);
  bool allocated = false;
  if (st) {
    st->m = m;
    st->k = k;
    st->batch = batch;
    if constexpr (kWeights == Weights::kFp32) {
      st->w = AllocateAligned<float>(m * k);
    } else {
      st->q = AllocateAligned<int8_t>(m * k);
      st->scale = AllocateAligned<float>(m);
    }
    st->x = AllocateAligned<float>(batch * k);
    st->y = AllocateAligned<float>(batch * m);
    allocated = (st->w || (st->q && st->scale)) && st->x && st->y;
  }
  if (!allocated) {
    const double weight_bytes = kWeights == Weights::kFp32 ? 4.0 : 1.0;
    SetError(err,
             "cannot allocate a %lld x %lld weight matrix (%.2f GB): out of memory; choose "
             "smaller m or k",
             static_cast<long long>(m), static_cast<long long>(k), weight_bytes * m * k / 1e9);
    return nullptr;
  }
  if (!st->pool.Start(static_cast<int>(threads), err)) return nullptr;
  // Each part writes the rows it will read, so on a NUMA machine they live on its node.
  GemvState& s = *st;
  s.pool.Run([&](int part) {
    const RowRange rows = SplitRows(m, part, s.pool.parts(), kRows);
    for (int64_t i = rows.begin; i < rows.end; ++i) {
      if constexpr (kWeights == Weights::kFp32) {
        const float row_scale = RowScale(i);
        for (int64_t j = 0; j < k; ++j) s.w[i * k + j] = row_scale * QuantisedWeight(i * k + j);
      } else {
        s.scale[i] = RowScale(i);
        for (int64_t j = 0; j < k; ++j) s.q[i * k + j] = QuantisedWeight(i * k + j);
      }
    }
  });
  for (int64_t i = 0; i < batch * k; ++i) {
    s.x[i] = static_cast<float>(UniformSigned(4, static_cast<uint64_t>(i)));
  }
  // NaN until a run has written y, so a check before any run fails.
  std::fill(s.y.get(), s.y.get() + batch * m, std::numeric_limits<float>::quiet_NaN());
  return st.release();
}

void GemvTeardown(void* state) { delete static_cast<GemvState*>(state); }

inline Simd<float>::V LoadWeights(const float* p) { return Simd<float>::Load(p); }
inline Simd<float>::V LoadWeights(const int8_t* p) { return Simd<float>::LoadInt8(p); }

// out[r*T + t] = sum over j < k of w[r*ldw + j] * x[t*k + j], for kR rows and kT vectors: one
// pass over the kR rows, each weight vector loaded (and, for int8, widened to fp32) once and
// used for kT FMAs. The lanes are summed at the end (three adds, which counters count as 9
// FLOPs with AVX2 and the model does not: 0.1 % at k = 4096), then the k mod lanes tail adds in
// scalar.
template <int kR, int kT, typename Weight>
[[gnu::always_inline]] inline void DotTile(const Weight* w, int64_t ldw, const float* x, int64_t k,
                                           float* out) {
  using S = Simd<float>;
  using V = S::V;
  V acc[kR][kT];
#pragma GCC unroll 4
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int t = 0; t < kT; ++t) acc[r][t] = S::Zero();
  }
  int64_t j = 0;
  for (; j + S::kLanes <= k; j += S::kLanes) {
    V xv[kT];
#pragma GCC unroll 4
    for (int t = 0; t < kT; ++t) xv[t] = S::Load(x + t * k + j);
#pragma GCC unroll 4
    for (int r = 0; r < kR; ++r) {
      const V wv = LoadWeights(w + r * ldw + j);
#pragma GCC unroll 4
      for (int t = 0; t < kT; ++t) acc[r][t] = S::Fma(wv, xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < kR; ++r) {
    for (int t = 0; t < kT; ++t) {
      float sum = S::Sum(acc[r][t]);
      for (int64_t jj = j; jj < k; ++jj) sum += static_cast<float>(w[r * ldw + jj]) * x[t * k + jj];
      out[r * kT + t] = sum;
    }
  }
}

// Rows [row_begin, row_end) of Y = W·X for all vectors; row_begin is a multiple of kRows. Rows
// outer, vectors inner: a block of kRows rows of W (64 KiB at k = 4096) is read from memory
// once and stays in L2 while every tile of vectors passes it, which is the weight reuse a batch
// buys. The last rows (m mod kRows) and vectors (batch mod kT) go through narrower tiles of the
// same code.
template <int kT, typename Weight>
void RowsTimesVectors(const GemvState& st, const Weight* w, int64_t row_begin, int64_t row_end) {
  const int64_t k = st.k;
  const int64_t m = st.m;
  const float* x = st.x.get();
  float* y = st.y.get();
  float out[kRows * kT];
  for (int64_t i = row_begin; i < row_end; i += kRows) {
    const Weight* w_rows = w + i * k;
    if (i + kRows > row_end) {  // the last m mod kRows rows of W
      for (int64_t r = i; r < row_end; ++r) {
        for (int64_t t = 0; t < st.batch; ++t) {
          DotTile<1, 1>(w + r * k, k, x + t * k, k, out);
          y[t * m + r] = out[0];
        }
      }
      break;
    }
    int64_t t0 = 0;
    for (; t0 + kT <= st.batch; t0 += kT) {
      DotTile<kRows, kT>(w_rows, k, x + t0 * k, k, out);
      for (int r = 0; r < kRows; ++r) {
        for (int t = 0; t < kT; ++t) y[(t0 + t) * m + i + r] = out[r * kT + t];
      }
    }
    for (; t0 < st.batch; ++t0) {  // the last batch mod kT vectors
      DotTile<kRows, 1>(w_rows, k, x + t0 * k, k, out);
      for (int r = 0; r < kRows; ++r) y[t0 * m + i + r] = out[r];
    }
  }
}

void GemvFp32(void* state) {
  GemvState& st = State(state);
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.m, part, st.pool.parts(), kRows);
    RowsTimesVectors<1>(st, st.w.get(), rows.begin, rows.end);
  });
}

void MatmulBatch(void* state) {
  GemvState& st = State(state);
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.m, part, st.pool.parts(), kRows);
    if (st.batch == 1) {
      RowsTimesVectors<1>(st, st.w.get(), rows.begin, rows.end);  // exactly gemv
    } else {
      RowsTimesVectors<kBatchTile>(st, st.w.get(), rows.begin, rows.end);
    }
  });
}

// y_i = s_i * (sum_j q_ij x_j): the scale is applied once per row, after the sum, so
// dequantising costs one multiply per row, not one per weight; widening int8 to fp32 is two
// conversion instructions per vector (vpmovsxbd, vcvtdq2ps), not FLOPs on any counter.
void GemvInt8(void* state) {
  GemvState& st = State(state);
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.m, part, st.pool.parts(), kRows);
    RowsTimesVectors<1>(st, st.q.get(), rows.begin, rows.end);
    for (int64_t i = rows.begin; i < rows.end; ++i) st.y[i] *= st.scale[i];
  });
}

// True when every checked output y[t*m + i] is within the rounding tolerance of row i of the
// weights (weight(i, j) gives w_ij exactly, scale(i) the row's factor) times vector t, summed
// in long double; otherwise false with *err naming the first that is not. Checks every output
// when there are at most 4096, else 64 pseudo-random ones and the last.
template <typename WeightFn, typename ScaleFn>
bool CheckProducts(WeightFn weight, ScaleFn scale, const float* x, const float* y, int64_t m,
                   int64_t k, int64_t batch, rprof_error* err) {
  const int64_t outputs = m * batch;
  const bool all = outputs <= 4096;
  const int64_t samples = all ? outputs : 65;
  // One more rounding than a plain sum of k products: the row scale's multiply.
  const long double relative_tolerance = SumTolerance<float>(k + 1);
  for (int64_t sample = 0; sample < samples; ++sample) {
    const int64_t output =
        all ? sample
            : (sample == 64 ? outputs - 1
                            : static_cast<int64_t>(Mix64(static_cast<uint64_t>(sample)) %
                                                   static_cast<uint64_t>(outputs)));
    const int64_t t = output / m;
    const int64_t i = output % m;
    long double reference = 0;
    long double magnitude = 0;  // sum |w*x|: the scale rounding errors are proportional to
    for (int64_t j = 0; j < k; ++j) {
      const long double product = static_cast<long double>(weight(i, j)) * x[t * k + j];
      reference += product;
      magnitude += std::fabs(product);
    }
    reference *= scale(i);
    magnitude *= std::fabs(scale(i));
    const long double difference = std::fabs(y[t * m + i] - reference);
    const long double tolerance = relative_tolerance * magnitude;
    if (!(difference <= tolerance)) {  // NaN fails too
      SetError(err,
               "y[%lld] of vector %lld = %.9g, reference %.9Lg: difference %.3Lg exceeds "
               "tolerance %.3Lg",
               static_cast<long long>(i), static_cast<long long>(t),
               static_cast<double>(y[t * m + i]), reference, difference, tolerance);
      return false;
    }
  }
  return true;
}

bool CheckFp32Impl(const float* w, const float* x, const float* y, int64_t m, int64_t k,
                   int64_t batch, rprof_error* err) {
  return CheckProducts([&](int64_t i, int64_t j) { return w[i * k + j]; },
                       [](int64_t) { return 1.0f; }, x, y, m, k, batch, err);
}

bool CheckInt8Impl(const int8_t* q, const float* scale, const float* x, const float* y, int64_t m,
                   int64_t k, rprof_error* err) {
  return CheckProducts([&](int64_t i, int64_t j) { return static_cast<float>(q[i * k + j]); },
                       [&](int64_t i) { return scale[i]; }, x, y, m, k, 1, err);
}

int GemvFp32Check(void* state, rprof_error* err) {
  const GemvState& st = State(state);
  return CheckFp32Impl(st.w.get(), st.x.get(), st.y.get(), st.m, st.k, st.batch, err);
}

int GemvInt8Check(void* state, rprof_error* err) {
  const GemvState& st = State(state);
  return CheckInt8Impl(st.q.get(), st.scale.get(), st.x.get(), st.y.get(), st.m, st.k, err);
}

// 8192 x 8192: 256 MiB of fp32 weights and 64 MiB of int8 ones, both beyond the largest L3 of
// the machines this was written on (32 MiB), so both kernels stream their weights from DRAM.
constexpr rprof_param kGemvParams[] = {
    {"m", "rows of W: outputs", 8192, 1, 1 << 20},
    {"k", "columns of W: inputs", 8192, 1, 1 << 20},
    kThreadsParam,
};

// 4096 x 4096: 64 MiB of weights, twice a 32 MiB L3, so batch 1 is DRAM-bound.
constexpr rprof_param kBatchParams[] = {
    {"m", "rows of W: outputs per vector", 4096, 1, 1 << 20},
    {"k", "columns of W: inputs per vector", 4096, 1, 1 << 20},
    {"batch", "activation vectors W is applied to (tokens); 1 is a gemv", 1, 1, 65536},
    kThreadsParam,
};

constexpr rprof_kernel kKernels[] = {
    {"gemv", "y = W*x (fp32), W m x k: each weight used once, 2 FLOPs per 4 bytes, memory-bound",
     RPROF_PRECISION_FP32, kGemvParams, 3, "2*m*k", "4*m*k+4*k+4*m",
     GemvSetup<Weights::kFp32, false>, GemvFp32, GemvFp32Check, GemvTeardown},
    // FLOPs: gemv's 2mk plus the m multiplies by the row scales; the int8 -> fp32 conversions are
    // instructions but not FLOPs. Bytes: 1 per weight, the m fp32 scales, x and y.
    {"gemv-int8",
     "y = W*x with int8 W (fp32 scale per row), fp32 x: gemv's math on a quarter of the bytes",
     RPROF_PRECISION_FP32, kGemvParams, 3, "2*m*k+m", "m*k+8*m+4*k",
     GemvSetup<Weights::kInt8, false>, GemvInt8, GemvInt8Check, GemvTeardown},
    {"matmul-batch",
     "Y = W*X (fp32) for a batch of vectors: batch 1 is gemv, a large batch reuses each weight",
     RPROF_PRECISION_FP32, kBatchParams, 4, "2*m*k*batch", "4*m*k+4*k*batch+4*m*batch",
     GemvSetup<Weights::kFp32, true>, MatmulBatch, GemvFp32Check, GemvTeardown},
};

}  // namespace

std::span<const rprof_kernel> GemvKernels() { return kKernels; }

std::span<const std::byte> GemvResult(void* state) {
  const GemvState& st = State(state);
  return ResultBytes(st.y.get(), st.batch * st.m);
}

bool CheckGemv(const float* w, const float* x, const float* y, int64_t m, int64_t k, int64_t batch,
               rprof_error* err) {
  return CheckFp32Impl(w, x, y, m, k, batch, err);
}

bool CheckGemvInt8(const int8_t* q, const float* scale, const float* x, const float* y, int64_t m,
                   int64_t k, rprof_error* err) {
  return CheckInt8Impl(q, scale, x, y, m, k, err);
}

}  // namespace rprof
