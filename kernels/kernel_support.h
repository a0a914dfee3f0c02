// Helpers shared by the built-in kernel families: aligned arrays, error text, deterministic
// pseudo-random inputs, the rounding-error tolerance the checks use, the worker pool behind the
// `threads` parameter, and the SIMD operations, exp and row operations (max, sum, exp, scale)
// the hand-vectorised kernels are written with. Internal to kernels/.
#ifndef RPROF_KERNELS_KERNEL_SUPPORT_H_
#define RPROF_KERNELS_KERNEL_SUPPORT_H_

#if defined(__x86_64__) || defined(__i386__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 warns about the _mm512_undefined_*() its own AVX-512 intrinsics pass to their masked
// builtins (GCC bug 105593, fixed in 13); the warning points into these headers. It is
// -Wuninitialized where the call is inlined into a loop (RowMax on an AVX-512 Xeon), and
// -Wmaybe-uninitialized elsewhere.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

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

// The message of an fp32 result element outside its tolerance: "y[3][7] = 0.5, reference ...".
inline void SetElementMismatch(rprof_error* err, const char* array, int64_t i, int64_t j,
                               float value, long double reference, long double difference,
                               long double tolerance) {
  SetError(err, "%s[%lld][%lld] = %.9g, reference %.9Lg: difference %.3Lg exceeds tolerance %.3Lg",
           array, static_cast<long long>(i), static_cast<long long>(j), static_cast<double>(value),
           reference, difference, tolerance);
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

// The `count` elements at p as bytes: what the *Result functions of kernel_families.h return.
template <typename T>
std::span<const std::byte> ResultBytes(const T* p, int64_t count) {
  return std::as_bytes(std::span<const T>(p, static_cast<size_t>(count)));
}

// ---- Threads ----

// The `threads` parameter of the kernels that split their work across cores.
inline constexpr rprof_param kThreadsParam = {
    "threads", "threads sharing the work (1: the calling thread alone, no thread started)", 1, 1,
    256};

// Part `part` of `parts` of the rows [0, count): contiguous, in order, every boundary a multiple
// of `grain`, so blocked loops see the same blocks (and produce the same bits) whatever the
// number of parts. Parts past the end are empty.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};
inline RowRange SplitRows(int64_t count, int part, int parts, int64_t grain = 1) {
  const int64_t units = (count + grain - 1) / grain;
  return {std::min(count, units * part / parts * grain),
          std::min(count, units * (part + 1) / parts * grain)};
}

// A fixed set of threads, started once in a kernel's setup and reused by every run(), so a run
// measures the work and not thread creation. The calling thread does part 0 itself; with one
// part no thread is ever started. Threads are not pinned: placement is left to the scheduler
// and to whoever runs rprof (taskset, numactl), as for any program.
//
// Hand-off is a mutex and two condition variables: a few microseconds per run(), nothing beside
// the milliseconds of the kernels that take the parameter at their default sizes.
class WorkerPool {
 public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() { Stop(); }

  // Starts parts - 1 threads. False with *err set when the system refuses one (those already
  // started are stopped again).
  bool Start(int parts, rprof_error* err) {
    parts_ = 1;
    try {
      for (int part = 1; part < parts; ++part) {
        threads_.emplace_back([this, part] { Work(part); });
      }
    } catch (const std::system_error& e) {
      Stop();
      SetError(err, "cannot start %d threads: %s; choose fewer threads", parts - 1, e.what());
      return false;
    }
    parts_ = parts;
    return true;
  }

  int parts() const { return parts_; }

  // Calls fn(part) for every part in [0, parts()), part 0 on the calling thread and each other
  // part on its own thread of the pool, and returns when all have returned. fn must not throw.
  // Only one Run at a time.
  template <typename Fn>
  void Run(const Fn& fn) {
    if (parts_ == 1) {
      fn(0);
      return;
    }
    Dispatch([](const void* f, int part) { (*static_cast<const Fn*>(f))(part); }, &fn);
  }

 private:
  using Call = void (*)(const void* fn, int part);

  void Dispatch(Call call, const void* fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      call_ = call;
      fn_ = fn;
      pending_ = parts_ - 1;
      ++generation_;
    }
    start_.notify_all();
    call(fn, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

  void Work(int part) {
    uint64_t seen = 0;
    for (;;) {
      Call call;
      const void* fn;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        call = call_;
        fn = fn_;
      }
      call(fn, part);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    stopping_ = false;
    parts_ = 1;
  }

  int parts_ = 1;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;  // a new generation, or stopping_
  std::condition_variable done_;   // pending_ reached 0
  uint64_t generation_ = 0;        // one per Dispatch
  int pending_ = 0;                // pool threads still working on this generation
  bool stopping_ = false;
  Call call_ = nullptr;
  const void* fn_ = nullptr;
};

// ---- SIMD ----

// The few vector operations the hand-vectorised kernels (matmul-simd, the gemv family, softmax,
// layer norm, attention) are written with. Writing them out, rather than leaving vectorisation
// to the compiler, fixes both the speed and the FLOP count: every FLOP a formula charges is an
// operation written here, the same on every compiler (a compiler may turn a scalar max into a
// compare and a branch, which counters do not count, or leave a loop scalar).
//
// Ops<T> names: V, kLanes; Zero(); Set1(x); Load(p); Store(p, v) (unaligned); Broadcast(p) (one
// element to every lane); Add, Sub, Mul, Max (1 FLOP per lane); Fma(a, b, c) = a*b + c and
// Fnma(a, b, c) = c - a*b (2 per lane); Sum(v), MaxLanes(v) (horizontal: not counted by any
// formula; a few per row); float only: LoadInt8(p) (kLanes int8 sign-extended, converted to
// float: not FLOPs), TimesPow2(p, shifted) (see ExpNonPositive: an integer add, not a FLOP).
//
// ScalarOps<T>: one lane, for loop tails and as the fallback. Simd<T>: the widest vector ISA this
// build targets: AVX-512F (16 floats / 8 doubles), AVX2 with FMA (8 / 4), else ScalarOps.

inline constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer

template <typename T>
struct ScalarOps {
  using V = T;
  static constexpr int kLanes = 1;
  static V Zero() { return 0; }
  static V Set1(T x) { return x; }
  static V Load(const T* p) { return *p; }
  static void Store(T* p, V v) { *p = v; }
  static V Broadcast(const T* p) { return *p; }
  static V Add(V a, V b) { return a + b; }
  static V Sub(V a, V b) { return a - b; }
  static V Mul(V a, V b) { return a * b; }
  // An FMA when contracted, a multiply and an add when not: 2 FLOPs either way.
  static V Fma(V a, V b, V c) { return a * b + c; }
  static V Fnma(V a, V b, V c) { return c - a * b; }
  static V Max(V a, V b) {
#if defined(__SSE2__)
    // maxss/maxsd by name: std::max may become a compare and a branch, which is not a FLOP.
    if constexpr (sizeof(T) == 4) {
      return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b)));
    } else {
      return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b)));
    }
#else
    return a < b ? b : a;
#endif
  }
  static T Sum(V v) { return v; }
  static T MaxLanes(V v) { return v; }
  static V LoadInt8(const int8_t* p) { return static_cast<T>(*p); }
  static V TimesPow2(V p, V shifted) {
    const int32_t exponent = std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(kRoundMagic);
    return std::bit_cast<float>(std::bit_cast<int32_t>(p) + exponent * (1 << 23));
  }
};

template <typename T>
struct Simd;

#if defined(__AVX512F__)
inline constexpr const char* kSimdIsa = "avx512";
template <>
struct Simd<float> {
  using V = __m512;
  static constexpr int kLanes = 16;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Fnma(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static float Sum(V v) { return _mm512_reduce_add_ps(v); }
  static float MaxLanes(V v) { return _mm512_reduce_max_ps(v); }
  static V LoadInt8(const int8_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static V TimesPow2(V p, V shifted) {
    const __m512i exponent = _mm512_sub_epi32(
        _mm512_castps_si512(shifted), _mm512_set1_epi32(std::bit_cast<int32_t>(kRoundMagic)));
    return _mm512_castsi512_ps(
        _mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(exponent, 23)));
  }
};
template <>
struct Simd<double> {
  using V = __m512d;
  static constexpr int kLanes = 8;
  static V Zero() { return _mm512_setzero_pd(); }
  static V Set1(double x) { return _mm512_set1_pd(x); }
  static V Load(const double* p) { return _mm512_loadu_pd(p); }
  static void Store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static V Broadcast(const double* p) { return _mm512_set1_pd(*p); }
  static V Add(V a, V b) { return _mm512_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V Max(V a, V b) { return _mm512_max_pd(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V Fnma(V a, V b, V c) { return _mm512_fnmadd_pd(a, b, c); }
  static double Sum(V v) { return _mm512_reduce_add_pd(v); }
  static double MaxLanes(V v) { return _mm512_reduce_max_pd(v); }
};
#elif defined(__AVX2__) && defined(__FMA__)
inline constexpr const char* kSimdIsa = "avx2";
template <>
struct Simd<float> {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static float Sum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  static float MaxLanes(V v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
  }
  static V LoadInt8(const int8_t* p) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }
  static V TimesPow2(V p, V shifted) {
    const __m256i exponent = _mm256_sub_epi32(
        _mm256_castps_si256(shifted), _mm256_set1_epi32(std::bit_cast<int32_t>(kRoundMagic)));
    return _mm256_castsi256_ps(
        _mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(exponent, 23)));
  }
};
template <>
struct Simd<double> {
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V Zero() { return _mm256_setzero_pd(); }
  static V Set1(double x) { return _mm256_set1_pd(x); }
  static V Load(const double* p) { return _mm256_loadu_pd(p); }
  static void Store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static V Broadcast(const double* p) { return _mm256_broadcast_sd(p); }
  static V Add(V a, V b) { return _mm256_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V Max(V a, V b) { return _mm256_max_pd(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V Fnma(V a, V b, V c) { return _mm256_fnmadd_pd(a, b, c); }
  static double Sum(V v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  static double MaxLanes(V v) {
    const __m128d s = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(s, _mm_unpackhi_pd(s, s)));
  }
};
#else
inline constexpr const char* kSimdIsa = "scalar";
template <typename T>
struct Simd : ScalarOps<T> {};
#endif

// ---- exp ----

// e^x for x <= 0, the only arguments softmax passes (x - the max of its row), on every lane of
// Ops::V (Simd<float> or ScalarOps<float>). Written out rather than calling expf so that it
// vectorises and so that its work is the same on every machine: 20 FLOPs per lane, which is
// what the softmax and attention formulas charge per exp:
//   max (clamp) 1, x*log2e + magic (FMA) 2, - magic 1, two FMAs for x - n*ln2 4, degree-6
//   Horner 12.
// n = round(x*log2e) comes from adding 1.5*2^23, whose ulp is 1 (so the sum's low mantissa bits
// hold n), and 2^n goes in by an integer add to the exponent field: neither is a FLOP. Relative
// error within 3e-7 (the Taylor remainder r^7/7! for |r| <= ln2/2 is 1.2e-7, plus rounding)
// down to x = -87; below that it returns about e^-87 = 1.6e-38 instead of a smaller number or
// 0, harmless beside the sum of at least 1 every softmax row has.
template <typename Ops>
inline typename Ops::V ExpNonPositive(typename Ops::V x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;     // ln 2 in 10 bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
  x = Ops::Max(x, Ops::Set1(-87.0f));
  const auto shifted = Ops::Fma(x, Ops::Set1(kLog2e), Ops::Set1(kRoundMagic));
  const auto n = Ops::Sub(shifted, Ops::Set1(kRoundMagic));
  auto r = Ops::Fnma(n, Ops::Set1(kLn2Hi), x);
  r = Ops::Fnma(n, Ops::Set1(kLn2Lo), r);  // x - n*ln2, |r| <= ln2/2
  auto p = Ops::Set1(1.0f / 720);
  p = Ops::Fma(p, r, Ops::Set1(1.0f / 120));
  p = Ops::Fma(p, r, Ops::Set1(1.0f / 24));
  p = Ops::Fma(p, r, Ops::Set1(1.0f / 6));
  p = Ops::Fma(p, r, Ops::Set1(0.5f));
  p = Ops::Fma(p, r, Ops::Set1(1.0f));
  p = Ops::Fma(p, r, Ops::Set1(1.0f));  // e^r
  return Ops::TimesPow2(p, shifted);    // e^r * 2^n
}

inline float ExpNonPositive(float x) { return ExpNonPositive<ScalarOps<float>>(x); }

// ---- Row operations of softmax, layer norm and attention ----
//
// Over n contiguous floats, vectorised with Simd<float> and finished in scalar. FLOPs per
// element, exactly: RowMax 1, RowSum 1, RowSquaredDeviation 3 (sub, FMA), ExpRow 22 (sub, exp,
// sum; 23 with kScaled's multiply), ScaleRow 1. Not counted: combining the partial vectors and
// the lanes at the end of each call (a few dozen FLOPs per call, whatever n).

// Independent partial results per reduction: 4 vectors cover the latency of an add or a max (3
// or 4 cycles on current cores) at one per cycle.
inline constexpr int kRowAccumulators = 4;

inline float RowMax(const float* x, int64_t n) {
  using S = Simd<float>;
  using Scalar = ScalarOps<float>;
  constexpr int64_t kStep = kRowAccumulators * S::kLanes;
  S::V acc[kRowAccumulators];
  for (S::V& a : acc) a = S::Set1(-std::numeric_limits<float>::infinity());
  int64_t j = 0;
  for (; j + kStep <= n; j += kStep) {
    for (int u = 0; u < kRowAccumulators; ++u)
      acc[u] = S::Max(S::Load(x + j + u * S::kLanes), acc[u]);
  }
  for (; j + S::kLanes <= n; j += S::kLanes) acc[0] = S::Max(S::Load(x + j), acc[0]);
  float max = S::MaxLanes(S::Max(S::Max(acc[0], acc[1]), S::Max(acc[2], acc[3])));
  for (; j < n; ++j) max = Scalar::Max(x[j], max);
  return max;
}

inline float RowSum(const float* x, int64_t n) {
  using S = Simd<float>;
  constexpr int64_t kStep = kRowAccumulators * S::kLanes;
  S::V acc[kRowAccumulators];
  for (S::V& a : acc) a = S::Zero();
  int64_t j = 0;
  for (; j + kStep <= n; j += kStep) {
    for (int u = 0; u < kRowAccumulators; ++u)
      acc[u] = S::Add(S::Load(x + j + u * S::kLanes), acc[u]);
  }
  for (; j + S::kLanes <= n; j += S::kLanes) acc[0] = S::Add(S::Load(x + j), acc[0]);
  float sum = S::Sum(S::Add(S::Add(acc[0], acc[1]), S::Add(acc[2], acc[3])));
  for (; j < n; ++j) sum += x[j];
  return sum;
}

// sum of (x[j] - mean)².
inline float RowSquaredDeviation(const float* x, float mean, int64_t n) {
  using S = Simd<float>;
  using Scalar = ScalarOps<float>;
  constexpr int64_t kStep = kRowAccumulators * S::kLanes;
  const S::V m = S::Set1(mean);
  S::V acc[kRowAccumulators];
  for (S::V& a : acc) a = S::Zero();
  int64_t j = 0;
  for (; j + kStep <= n; j += kStep) {
    for (int u = 0; u < kRowAccumulators; ++u) {
      const S::V deviation = S::Sub(S::Load(x + j + u * S::kLanes), m);
      acc[u] = S::Fma(deviation, deviation, acc[u]);
    }
  }
  for (; j + S::kLanes <= n; j += S::kLanes) {
    const S::V deviation = S::Sub(S::Load(x + j), m);
    acc[0] = S::Fma(deviation, deviation, acc[0]);
  }
  float sum = S::Sum(S::Add(S::Add(acc[0], acc[1]), S::Add(acc[2], acc[3])));
  for (; j < n; ++j) {
    const float deviation = x[j] - mean;
    sum = Scalar::Fma(deviation, deviation, sum);
  }
  return sum;
}

// y[j] = exp(x[j] - shift), or exp((x[j] - shift) * scale) when kScaled; returns the sum of the
// y[j]. shift must be at least every x[j] (the row's max), so every exp argument is <= 0. y may
// be x. The exps are independent, so one accumulator for the sum does not limit the speed.
template <bool kScaled>
inline float ExpRow(const float* x, float shift, float scale, float* y, int64_t n) {
  using S = Simd<float>;
  using Scalar = ScalarOps<float>;
  const S::V shift_v = S::Set1(shift);
  const S::V scale_v = S::Set1(scale);
  S::V acc = S::Zero();
  int64_t j = 0;
  for (; j + S::kLanes <= n; j += S::kLanes) {
    S::V argument = S::Sub(S::Load(x + j), shift_v);
    if constexpr (kScaled) argument = S::Mul(argument, scale_v);
    const S::V e = ExpNonPositive<S>(argument);
    S::Store(y + j, e);
    acc = S::Add(e, acc);
  }
  float sum = S::Sum(acc);
  for (; j < n; ++j) {
    float argument = x[j] - shift;
    if constexpr (kScaled) argument *= scale;
    y[j] = ExpNonPositive<Scalar>(argument);
    sum += y[j];
  }
  return sum;
}

// y[j] *= factor.
inline void ScaleRow(float* y, float factor, int64_t n) {
  using S = Simd<float>;
  const S::V f = S::Set1(factor);
  int64_t j = 0;
  for (; j + S::kLanes <= n; j += S::kLanes) S::Store(y + j, S::Mul(S::Load(y + j), f));
  for (; j < n; ++j) y[j] *= factor;
}

// The operands of C = A·B shared by the matmul families (naive, ikj, BLAS): three n x n
// row-major matrices, A and B with mixed-sign inputs (entries of C are sums that partly cancel,
// neither trivially zero nor dominated by one term, so a wrong term shows) and C at zero, which
// fails the check until a run has computed it. False with *err when memory runs out.
template <typename T>
bool AllocateMatmulOperands(int64_t n, AlignedArray<T>* a, AlignedArray<T>* b, AlignedArray<T>* c,
                            rprof_error* err) {
  *a = AllocateAligned<T>(n * n);
  *b = AllocateAligned<T>(n * n);
  *c = AllocateAligned<T>(n * n);
  if (!*a || !*b || !*c) {
    SetError(err,
             "cannot allocate 3 matrices of %lld x %lld (%.2f GB in all): out of memory; "
             "choose a smaller n",
             static_cast<long long>(n), static_cast<long long>(n), 3.0 * sizeof(T) * n * n / 1e9);
    return false;
  }
  for (int64_t i = 0; i < n * n; ++i) {
    (*a)[i] = static_cast<T>(UniformSigned(1, static_cast<uint64_t>(i)));
    (*b)[i] = static_cast<T>(UniformSigned(2, static_cast<uint64_t>(i)));
    (*c)[i] = 0;
  }
  return true;
}

}  // namespace rprof

#endif  // RPROF_KERNELS_KERNEL_SUPPORT_H_