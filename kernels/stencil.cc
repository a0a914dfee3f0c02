// One Jacobi sweep of the 2-D 5-point stencil on an n×n fp64 grid: every interior point of out
// becomes 0.2 times the sum of the same point of in and its four neighbours (north, south, east,
// west); the boundary stays as it is. The classic bandwidth-bound kernel of the roofline papers
// (Williams, Waterman and Patterson, CACM 2009): 5 FLOPs per point against 16 compulsory bytes
// (one read of in, one write of out), 0.31 FLOP/B.
//
// Each input value is used by five outputs. With three rows of the grid in cache (96 KiB at
// n = 4096) the rows above and below come from cache and the model's 16 bytes per point is
// what DRAM really moves (plus the write-allocate read of out, which the model does not count,
// as in STREAM); if they do not fit, the measured DRAM bytes rise towards 40 per point. That
// gap is why stencil codes block in space and time.
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

struct StencilState {
  int64_t n = 0;
  AlignedArray<double> in, out;  // n*n each, row-major
  WorkerPool pool;
};

StencilState& State(void* state) { return *static_cast<StencilState*>(state); }

// Parts split the interior rows 1 .. n-2.
RowRange InteriorRows(int64_t n, int part, int parts) {
  const RowRange rows = SplitRows(n - 2, part, parts);
  return {rows.begin + 1, rows.end + 1};
}

void* StencilSetup(const rprof_args* args, rprof_error* err) {
  const int64_t n = args->values[0];
  const int64_t threads = args->values[1];
  std::unique_ptr<StencilState> st(new (std::nothrow) StencilState);
  if (st) {
    st->n = n;
    st->in = AllocateAligned<double>(n * n);
    st->out = AllocateAligned<double>(n * n);
  }
  if (!st || !st->in || !st->out) {
    SetError(err,
             "cannot allocate 2 grids of %lld x %lld doubles (%.2f GB in all): out of memory; "
             "choose a smaller n",
             static_cast<long long>(n), static_cast<long long>(n), 2.0 * 8 * n * n / 1e9);
    return nullptr;
  }
  if (!st->pool.Start(static_cast<int>(threads), err)) return nullptr;
  StencilState& s = *st;
  // Values in [0, 1): a sum of positive terms, so the check's tolerance is relative to the
  // result. The boundary of out is a copy of in's, written here once; the interior is NaN until
  // a run computes it, so a check before any run fails. Each part writes the rows it will
  // compute (first touch), the caller the first and last rows.
  auto init_row = [&s, n](int64_t i) {
    for (int64_t j = 0; j < n; ++j) {
      const double value = Uniform01(8, static_cast<uint64_t>(i * n + j));
      s.in[i * n + j] = value;
      const bool boundary = i == 0 || i == n - 1 || j == 0 || j == n - 1;
      s.out[i * n + j] = boundary ? value : std::numeric_limits<double>::quiet_NaN();
    }
  };
  s.pool.Run([&](int part) {
    const RowRange rows = InteriorRows(n, part, s.pool.parts());
    for (int64_t i = rows.begin; i < rows.end; ++i) init_row(i);
  });
  init_row(0);
  if (n > 1) init_row(n - 1);
  return st.release();
}

void StencilTeardown(void* state) { delete static_cast<StencilState*>(state); }

void Stencil(void* state) {
  StencilState& st = State(state);
  const int64_t n = st.n;
  st.pool.Run([&](int part) {
    const RowRange rows = InteriorRows(n, part, st.pool.parts());
    for (int64_t i = rows.begin; i < rows.end; ++i) {
      const double* north = st.in.get() + (i - 1) * n;
      const double* centre = st.in.get() + i * n;
      const double* south = st.in.get() + (i + 1) * n;
      double* out = st.out.get() + i * n;
      // 4 additions and 1 multiply per point; the sum in this order every time, so repeated
      // runs give the same bits. `omp simd`: out does not overlap in, which the compiler
      // cannot prove.
#pragma omp simd
      for (int64_t j = 1; j < n - 1; ++j) {
        out[j] = 0.2 * (centre[j] + north[j] + south[j] + centre[j + 1] + centre[j - 1]);
      }
    }
  });
}

bool CheckStencilImpl(const double* in, const double* out, int64_t n, rprof_error* err) {
  // Five positive terms summed and scaled: SumTolerance of 6 roundings covers any order.
  const long double relative_tolerance = SumTolerance<double>(6);
  for (int64_t i = 1; i < n - 1; ++i) {
    for (int64_t j = 1; j < n - 1; ++j) {
      const long double sum = static_cast<long double>(in[i * n + j]) + in[(i - 1) * n + j] +
                              in[(i + 1) * n + j] + in[i * n + j + 1] + in[i * n + j - 1];
      const long double reference = sum / 5;
      const long double difference = std::fabs(out[i * n + j] - reference);
      const long double tolerance = relative_tolerance * reference;
      if (!(difference <= tolerance)) {  // NaN fails too
        SetError(err,
                 "out[%lld][%lld] = %.17g, reference %.17Lg: difference %.3Lg exceeds tolerance "
                 "%.3Lg",
                 static_cast<long long>(i), static_cast<long long>(j), out[i * n + j], reference,
                 difference, tolerance);
        return false;
      }
    }
  }
  return true;
}

int StencilCheck(void* state, rprof_error* err) {
  const StencilState& st = State(state);
  return CheckStencilImpl(st.in.get(), st.out.get(), st.n, err);
}

// 4096 x 4096: 128 MiB per grid, beyond any L3 of the machines this was written on.
constexpr rprof_param kParams[] = {
    {"n", "rows and columns of the square grids in and out (the interior is (n-2) x (n-2))", 4096,
     3, 65536},
    kThreadsParam,
};

constexpr rprof_kernel kKernels[] = {
    {"stencil",
     "2-D 5-point Jacobi sweep (fp64), out = 0.2*(c+n+s+e+w): 5 FLOPs per 16 bytes, streaming",
     RPROF_PRECISION_FP64, kParams, 2, "5*(n-2)*(n-2)", "8*n*n+8*(n-2)*(n-2)", StencilSetup,
     Stencil, StencilCheck, StencilTeardown},
};

}  // namespace

std::span<const rprof_kernel> StencilKernels() { return kKernels; }

std::span<const std::byte> StencilResult(void* state) {
  const StencilState& st = State(state);
  return ResultBytes(st.out.get(), st.n * st.n);
}

bool CheckStencil(const double* in, const double* out, int64_t n, rprof_error* err) {
  return CheckStencilImpl(in, out, n, err);
}

}  // namespace rprof
