// Dense matrix multiply C = A·B, n×n, row-major, the two steps after matmul-ikj on the way to
// BLAS. Same inputs as matmul.cc (so CheckMatmul applies and every C agrees with matmul-naive's),
// same 2n³ FLOPs, same 3n² compulsory elements: what changes is how often each element is
// fetched from each level of the memory hierarchy, which the model's compulsory bytes cannot
// show and the measured bytes beside them do.
//
// matmul-tiled: cache blocking. ikj over panels of b rows of B, so a panel is reused from cache by
// every row of C instead of B streaming in whole from memory once per row of C; each element of
// C is kept in a register across 4 consecutive rows of the panel. The compiler vectorises the
// inner loop; no intrinsics, no copies.
//
// matmul-simd: blocking for every level plus registers, as GotoBLAS and BLIS do (Goto and van de
// Geijn, ACM TOMS 34(3), 2008; Van Zee and van de Geijn, ACM TOMS 41(3), 2015). A kc×nc block of
// B is copied ("packed") into panels that the micro-kernel reads at unit stride, and an mc×kc
// block of A likewise; the micro-kernel keeps an MR×NR tile of C in vector registers through the
// whole kc loop, so each FMA needs only its share of one broadcast of A and one vector load of
// B, and never touches C. The blocks are sized for Zen 3 (32 KiB L1d, 512 KiB L2, the figures
// BLIS uses for it): a kc×NR micro-panel of B stays in L1, the mc×kc block of A in L2, the
// kc×nc block of B in L3. The AVX-512 shapes compile and follow the same rules but have not
// been tuned on an AVX-512 machine.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

// ---- Micro-tile and cache blocks ----

// MR×NR: the tile of C held in registers, MR rows of kNv vectors. It takes MR*kNv accumulators,
// kNv registers for the row of B and one for the broadcast of A: 12 + 2 + 1 of AVX2's 16 ymm
// registers, 24 + 2 + 1 of AVX-512's 32 zmm. Each step of the kc loop does MR*kNv FMAs for kNv
// loads and MR broadcasts, enough independent FMAs (12) to cover the FMA latency (4 cycles) on
// both FMA pipes (2 per cycle) of Zen 3.
template <typename T>
struct Tile {
  static constexpr int kLanes = Simd<T>::kLanes;
#if defined(__AVX512F__)
  static constexpr int kMr = 12;
  static constexpr int kNv = 2;
#elif defined(__AVX2__) && defined(__FMA__)
  static constexpr int kMr = 6;
  static constexpr int kNv = 2;
#else
  static constexpr int kMr = 4;  // scalar fallback: 16 accumulators
  static constexpr int kNv = 4;
#endif
  static constexpr int kNr = kNv * kLanes;
  // kc×NR of B (16 KiB in fp32 and fp64 with AVX2) in L1; mc×kc of A (144 KiB) in L2.
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = (sizeof(T) == 4 ? 144 : 72) / kMr * kMr;
  static constexpr int64_t kNc = 4096 / kNr * kNr;
};

template <typename T>
struct MatmulFastState {
  int64_t n = 0;
  int64_t block = 0;        // matmul-tiled's b
  AlignedArray<T> a, b, c;  // n*n each, row-major
  // matmul-simd: one packed block of A and one of B per part, so the parts never wait for each
  // other. Each part thus packs its own copy of B: n² copies per part against 2n³/parts FLOPs.
  std::vector<AlignedArray<T>> packed_a, packed_b;
  WorkerPool pool;
};

template <typename T>
MatmulFastState<T>& State(void* state) {
  return *static_cast<MatmulFastState<T>*>(state);
}

enum class Variant { kTiled, kSimd };

template <typename T, Variant kVariant>
void* MatmulFastSetup(const rprof_args* args, rprof_error* err) {
  // Parameters: tiled (n, b, threads), simd (n, threads).
  const int64_t n = args->values[0];
  const int64_t threads = args->values[kVariant == Variant::kTiled ? 2 : 1];
  std::unique_ptr<MatmulFastState<T>> st(new (std::nothrow) MatmulFastState<T>);
  bool allocated = false;
  if (st) {
    st->n = n;
    st->block = kVariant == Variant::kTiled ? std::min(args->values[1], n) : 0;
    st->a = AllocateAligned<T>(n * n);
    st->b = AllocateAligned<T>(n * n);
    st->c = AllocateAligned<T>(n * n);
    allocated = st->a && st->b && st->c;
    if (kVariant == Variant::kSimd) {
      using S = Tile<T>;
      const int64_t nc = (std::min(n, S::kNc) + S::kNr - 1) / S::kNr * S::kNr;
      for (int64_t part = 0; part < threads && allocated; ++part) {
        st->packed_a.push_back(AllocateAligned<T>(S::kMc * S::kKc));
        st->packed_b.push_back(AllocateAligned<T>(S::kKc * nc));
        allocated = st->packed_a.back() && st->packed_b.back();
      }
    }
  }
  if (!allocated) {
    SetError(err,
             "cannot allocate 3 matrices of %lld x %lld (%.2f GB in all): out of memory; "
             "choose a smaller n",
             static_cast<long long>(n), static_cast<long long>(n), 3.0 * sizeof(T) * n * n / 1e9);
    return nullptr;
  }
  if (!st->pool.Start(static_cast<int>(threads), err)) return nullptr;
  // The inputs of matmul.cc (seeds 1 and 2): mixed signs, so entries of C partly cancel and a
  // wrong term shows. C starts at zero, which fails the check until a run has computed it.
  for (int64_t i = 0; i < n * n; ++i) {
    st->a[i] = static_cast<T>(UniformSigned(1, static_cast<uint64_t>(i)));
    st->b[i] = static_cast<T>(UniformSigned(2, static_cast<uint64_t>(i)));
    st->c[i] = 0;
  }
  return st.release();
}

template <typename T>
void MatmulFastTeardown(void* state) {
  delete static_cast<MatmulFastState<T>*>(state);
}

// ---- matmul-tiled ----

// Rows [row_begin, row_end) of C, one panel of b rows of B at a time: the panel (b×n, 256 KiB at
// b = 64, n = 1024 in fp32) stays in L2 while every row of C takes its b multiply-adds from it,
// so B is read from memory once per call instead of once per row of C as in ikj. In exchange C
// is swept n/b times, one row (4 KiB) at a time from L2/L3.
//
// Blocking alone does not speed ikj up at n = 1024 on a 32 MiB L3, where ikj's B already comes
// from L3: there the inner loop is bound by loading and storing its element of C for every FMA.
// So the inner loop takes 4 rows of the panel at once and keeps each element of C in a register
// across their 4 FMAs: one load and one store of C per 4 FMAs. The terms of each C[i][j] are
// still added in k order, so the result equals matmul-ikj's up to FMA contraction, whatever b
// and the thread count.
template <typename T>
void TiledRows(MatmulFastState<T>& st, int64_t row_begin, int64_t row_end) {
  const int64_t n = st.n;
  const int64_t bs = st.block;
  const T* a = st.a.get();
  const T* b = st.b.get();
  T* c = st.c.get();
  std::fill(c + row_begin * n, c + row_end * n, T{0});  // accumulating in place: start from zero
  for (int64_t k0 = 0; k0 < n; k0 += bs) {
    const int64_t k1 = std::min(k0 + bs, n);
    for (int64_t i = row_begin; i < row_end; ++i) {
      T* __restrict c_row = c + i * n;
      const T* a_row = a + i * n;
      int64_t k = k0;
      for (; k + 4 <= k1; k += 4) {
        const T a0 = a_row[k], a1 = a_row[k + 1], a2 = a_row[k + 2], a3 = a_row[k + 3];
        const T* __restrict b0 = b + k * n;
        const T* __restrict b1 = b0 + n;
        const T* __restrict b2 = b1 + n;
        const T* __restrict b3 = b2 + n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) {
          T sum = c_row[j];
          sum += a0 * b0[j];
          sum += a1 * b1[j];
          sum += a2 * b2[j];
          sum += a3 * b3[j];
          c_row[j] = sum;
        }
      }
      for (; k < k1; ++k) {  // the last b mod 4 rows of the panel
        const T a_ik = a_row[k];
        const T* __restrict b_row = b + k * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
      }
    }
  }
}

template <typename T>
void MatmulTiled(void* state) {
  MatmulFastState<T>& st = State<T>(state);
  const int parts = st.pool.parts();
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.n, part, parts);
    TiledRows(st, rows.begin, rows.end);
  });
}

// ---- matmul-simd ----

// Copies the kc×nc block of B at b (row stride ldb) into panels of NR columns: panel after panel,
// each kc rows of NR contiguous elements, columns past nc zero. The micro-kernel then reads B at
// unit stride, and a panel's rows are never a power-of-two stride apart in the cache.
template <typename T>
void PackB(int64_t kc, int64_t nc, const T* b, int64_t ldb, T* out) {
  constexpr int kNr = Tile<T>::kNr;
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t width = std::min<int64_t>(kNr, nc - j0);
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = b + p * ldb + j0;
      for (int64_t j = 0; j < width; ++j) out[j] = src[j];
      for (int64_t j = width; j < kNr; ++j) out[j] = 0;
      out += kNr;
    }
  }
}

// Copies the mc×kc block of A at a (row stride lda) into panels of MR rows, each kc columns of
// MR contiguous elements (column p of the panel is what one step of the micro-kernel
// broadcasts), rows past mc zero.
template <typename T>
void PackA(int64_t mc, int64_t kc, const T* a, int64_t lda, T* out) {
  constexpr int kMr = Tile<T>::kMr;
  for (int64_t i0 = 0; i0 < mc; i0 += kMr) {
    const int64_t height = std::min<int64_t>(kMr, mc - i0);
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t r = 0; r < height; ++r) out[r] = a[(i0 + r) * lda + p];
      for (int64_t r = height; r < kMr; ++r) out[r] = 0;
      out += kMr;
    }
  }
}

// The MR×NR tile at c (row stride ldc) = its old value (accumulate) or 0, plus the product of a
// packed MR×kc panel of A and a packed kc×NR panel of B. The tile lives in registers for the whole
// loop: the compiler fully unrolls the constant-bound loops over r and v, so acc is MR*kNv
// named registers. Starting from C's old value instead of adding it at the end keeps the FLOPs
// at exactly 2 per multiply-add.
template <typename T>
[[gnu::always_inline]] inline void MicroKernel(int64_t kc, const T* __restrict ap,
                                               const T* __restrict bp, T* c, int64_t ldc,
                                               bool accumulate) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int kMr = Tile<T>::kMr;
  constexpr int kNv = Tile<T>::kNv;
  constexpr int kLanes = Tile<T>::kLanes;
  V acc[kMr][kNv];
#pragma GCC unroll 16
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) {
      acc[r][v] = accumulate ? S::Load(c + r * ldc + v * kLanes) : S::Zero();
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    V b[kNv];
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) b[v] = S::Load(bp + v * kLanes);
#pragma GCC unroll 16
    for (int r = 0; r < kMr; ++r) {
      const V a = S::Broadcast(ap + r);
#pragma GCC unroll 4
      for (int v = 0; v < kNv; ++v) acc[r][v] = S::Fma(a, b[v], acc[r][v]);
    }
    ap += kMr;
    bp += kNv * kLanes;
  }
#pragma GCC unroll 16
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) S::Store(c + r * ldc + v * kLanes, acc[r][v]);
  }
}

// A tile cut by the edge of C (mr < MR rows or nr < NR columns): the full micro-kernel on a copy
// in a local tile, then the valid part copied back. The padded rows and columns multiply the
// zeros packing put there: FLOPs the hardware executes and the model does not count (at most
// (MR-1)/n + (NR-1)/n of the total, 1 % at n = 1000 with AVX2).
template <typename T>
void EdgeKernel(int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc, int64_t mr, int64_t nr,
                bool accumulate) {
  constexpr int kMr = Tile<T>::kMr;
  constexpr int kNr = Tile<T>::kNr;
  alignas(kArrayAlignment) T tile[kMr * kNr] = {};
  if (accumulate) {
    for (int64_t r = 0; r < mr; ++r) {
      for (int64_t j = 0; j < nr; ++j) tile[r * kNr + j] = c[r * ldc + j];
    }
  }
  MicroKernel(kc, ap, bp, tile, kNr, accumulate);
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t j = 0; j < nr; ++j) c[r * ldc + j] = tile[r * kNr + j];
  }
}

// Rows [row_begin, row_end) of C = A·B. Loop order and blocking as in BLIS: jc (nc columns of B:
// L3), pc (kc: the depth every block shares), ic (mc rows of A: L2), jr (one NR panel of B: L1),
// ir (one MR panel of A).
template <typename T>
void GemmRows(MatmulFastState<T>& st, int part, int64_t row_begin, int64_t row_end) {
  using S = Tile<T>;
  const int64_t n = st.n;
  const T* a = st.a.get();
  const T* b = st.b.get();
  T* c = st.c.get();
  T* packed_a = st.packed_a[part].get();
  T* packed_b = st.packed_b[part].get();
  for (int64_t jc = 0; jc < n; jc += S::kNc) {
    const int64_t nc = std::min(S::kNc, n - jc);
    for (int64_t pc = 0; pc < n; pc += S::kKc) {
      const int64_t kc = std::min(S::kKc, n - pc);
      const bool accumulate = pc > 0;
      PackB(kc, nc, b + pc * n + jc, n, packed_b);
      for (int64_t ic = row_begin; ic < row_end; ic += S::kMc) {
        const int64_t mc = std::min(S::kMc, row_end - ic);
        PackA(mc, kc, a + ic * n + pc, n, packed_a);
        for (int64_t jr = 0; jr < nc; jr += S::kNr) {
          const int64_t nr = std::min<int64_t>(S::kNr, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += S::kMr) {
            const int64_t mr = std::min<int64_t>(S::kMr, mc - ir);
            const T* ap = packed_a + ir * kc;
            const T* bp = packed_b + jr * kc;
            T* ct = c + (ic + ir) * n + jc + jr;
            if (mr == S::kMr && nr == S::kNr) {
              MicroKernel(kc, ap, bp, ct, n, accumulate);
            } else {
              EdgeKernel(kc, ap, bp, ct, n, mr, nr, accumulate);
            }
          }
        }
      }
    }
  }
}

template <typename T>
void MatmulSimd(void* state) {
  MatmulFastState<T>& st = State<T>(state);
  const int parts = st.pool.parts();
  st.pool.Run([&](int part) {
    // Whole micro-panels per part: every part packs and computes the same tiles it would alone.
    const RowRange rows = SplitRows(st.n, part, parts, Tile<T>::kMr);
    if (rows.begin < rows.end) GemmRows(st, part, rows.begin, rows.end);
  });
}

template <typename T>
int MatmulFastCheck(void* state, rprof_error* err) {
  const MatmulFastState<T>& st = State<T>(state);
  return CheckMatmul(st.a.get(), st.b.get(), st.c.get(), st.n, err);
}

constexpr rprof_param kTiledParams[] = {
    {"n", "rows and columns of the square matrices A, B and C", 1024, 1, 16384},
    {"b", "rows of B per panel: a b x n panel of B stays in cache while all rows of C use it", 64,
     1, 16384},
    kThreadsParam,
};

constexpr rprof_param kSimdParams[] = {
    {"n", "rows and columns of the square matrices A, B and C", 1024, 1, 16384},
    kThreadsParam,
};

constexpr rprof_kernel kKernels[] = {
    {"matmul-tiled",
     "C = A*B (fp64), ikj over panels of b rows of B, each reused from cache by every row of C",
     RPROF_PRECISION_FP64, kTiledParams, 3, "2*n*n*n", "3*n*n*8",
     MatmulFastSetup<double, Variant::kTiled>, MatmulTiled<double>, MatmulFastCheck<double>,
     MatmulFastTeardown<double>},
    {"matmul-tiled-fp32",
     "C = A*B (fp32), ikj over panels of b rows of B, each reused from cache by every row of C",
     RPROF_PRECISION_FP32, kTiledParams, 3, "2*n*n*n", "3*n*n*4",
     MatmulFastSetup<float, Variant::kTiled>, MatmulTiled<float>, MatmulFastCheck<float>,
     MatmulFastTeardown<float>},
    {"matmul-simd",
     "C = A*B (fp64), BLAS-style: packed blocks for L1/L2/L3, a tile of C in vector registers",
     RPROF_PRECISION_FP64, kSimdParams, 2, "2*n*n*n", "3*n*n*8",
     MatmulFastSetup<double, Variant::kSimd>, MatmulSimd<double>, MatmulFastCheck<double>,
     MatmulFastTeardown<double>},
    {"matmul-simd-fp32",
     "C = A*B (fp32), BLAS-style: packed blocks for L1/L2/L3, a tile of C in vector registers",
     RPROF_PRECISION_FP32, kSimdParams, 2, "2*n*n*n", "3*n*n*4",
     MatmulFastSetup<float, Variant::kSimd>, MatmulSimd<float>, MatmulFastCheck<float>,
     MatmulFastTeardown<float>},
};

}  // namespace

std::span<const rprof_kernel> MatmulFastKernels() { return kKernels; }

std::span<const std::byte> MatmulFastResult(const rprof_kernel& kernel, void* state) {
  if (kernel.precision == RPROF_PRECISION_FP32) {
    const MatmulFastState<float>& st = State<float>(state);
    return ResultBytes(st.c.get(), st.n * st.n);
  }
  const MatmulFastState<double>& st = State<double>(state);
  return ResultBytes(st.c.get(), st.n * st.n);
}

}  // namespace rprof
