#include "machine/clock.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "machine/compute_kernels.h"

namespace rprof {
namespace {

constexpr int kChainPerIteration = 10;  // imuls per loop iteration of ImulChain

// Runs iterations x 10 dependent imuls. The loop counter is a separate dependency chain.
void ImulChain(uint64_t iterations) {
  uint64_t x = 1, m = 1;
  asm volatile(
      ".p2align 4\n\t"
      "1:\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "imul %[m], %[x]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [x] "+r"(x), [n] "+r"(iterations)
      : [m] "r"(m)
      : "cc");
}

// The mixed kernels: per iteration a chain of 5 dependent imuls (15 cycles) and 12 independent
// FMAs of the ISA's width (6 cycles on two FMA units, 12 on one): the chain stays the critical
// path while the vector units are busy 40-80 % of the time, enough for the heavy-instruction
// frequency licence.
constexpr int kMixedChain = 5;

#define RPROF_MIX_FMA(i) "vfmadd231pd %[b], %[b], %[a" #i "]\n\t"
#define RPROF_MIX_BODY                                                                  \
  "imul %[m], %[x]\n\t" RPROF_MIX_FMA(0) RPROF_MIX_FMA(1)                               \
      RPROF_MIX_FMA(2) "imul %[m], %[x]\n\t" RPROF_MIX_FMA(3) RPROF_MIX_FMA(4)          \
          RPROF_MIX_FMA(5) "imul %[m], %[x]\n\t" RPROF_MIX_FMA(6) RPROF_MIX_FMA(7)      \
              RPROF_MIX_FMA(8) "imul %[m], %[x]\n\t" RPROF_MIX_FMA(9) RPROF_MIX_FMA(10) \
                  RPROF_MIX_FMA(11) "imul %[m], %[x]\n\t"
#define RPROF_MIX_OUT(c)                                                                          \
  [a0] c(a0), [a1] c(a1), [a2] c(a2), [a3] c(a3), [a4] c(a4), [a5] c(a5), [a6] c(a6), [a7] c(a7), \
      [a8] c(a8), [a9] c(a9), [a10] c(a10), [a11] c(a11), [x] "+r"(x)
#define RPROF_MIXED(NAME, ATTR, T, V, C, END)                                                  \
  ATTR void NAME(uint64_t iterations) {                                                        \
    T a0 = V, a1 = V, a2 = V, a3 = V, a4 = V, a5 = V, a6 = V, a7 = V, a8 = V, a9 = V, a10 = V, \
      a11 = V;                                                                                 \
    const T b = V;                                                                             \
    uint64_t x = 1;                                                                            \
    const uint64_t m = 1;                                                                      \
    for (uint64_t i = 0; i < iterations; ++i) {                                                \
      asm volatile(RPROF_MIX_BODY : RPROF_MIX_OUT("+" C) : [b] C(b), [m] "r"(m) : "cc");       \
    }                                                                                          \
    END;                                                                                       \
  }

RPROF_MIXED(MixedAvx512, __attribute__((target("avx512f"))), __m512d, _mm512_set1_pd(1.0), "v",
            _mm256_zeroupper())
RPROF_MIXED(MixedAvx2, __attribute__((target("avx2,fma"))), __m256d, _mm256_set1_pd(1.0), "x",
            _mm256_zeroupper())
RPROF_MIXED(MixedSse, __attribute__((target("fma"))), __m128d, _mm_set1_pd(1.0), "x", (void)0)

// Seconds of `iterations` of `fn` on worker 0, best of the repetitions, as GHz.
template <typename Fn>
RepStats ChainGhz(Fn fn, uint64_t iterations, double cycles_per_iteration, int repetitions,
                  double* seconds) {
  std::vector<double> ghz;
  for (int r = 0; r < std::max(1, repetitions); ++r) {
    double t0 = NowSeconds();
    fn(iterations);
    double s = NowSeconds() - t0;
    *seconds = s;
    ghz.push_back(cycles_per_iteration * static_cast<double>(iterations) / s * 1e-9);
  }
  return Summarize(ghz, /*higher_is_better=*/true);
}

// Iterations of `fn` that take about `target` seconds.
template <typename Fn>
uint64_t Calibrate(Fn fn, double target) {
  uint64_t iterations = 1000;
  for (;;) {
    double t0 = NowSeconds();
    fn(iterations);
    double s = NowSeconds() - t0;
    if (s >= target / 8) return std::max<uint64_t>(1, iterations * (target / s));
    iterations *= s < target / 64 ? 8 : 2;
  }
}

}  // namespace

bool MeasureScalarClock(ThreadTeam& team, const ClockOptions& opts, ClockResult* result,
                        Error* err) {
  if (team.size() < 1) {
    Fail(err, ErrorKind::kEnvironment, "no measurement thread");
    return false;
  }
  team.Run(1, [&](int) {
    // A short spin first, so that a CPU coming out of a sleep state has ramped its clock.
    ImulChain(Calibrate(ImulChain, 0.005));
    uint64_t iterations = Calibrate(ImulChain, opts.seconds_per_rep);
    double s = 0;
    result->ghz = ChainGhz(ImulChain, iterations, kImulLatencyCycles * kChainPerIteration,
                           opts.repetitions, &s);
  });
  return true;
}

bool MeasureVectorClock(ThreadTeam& team, const IsaFlags& flags, int threads,
                        const ClockOptions& opts, ClockResult* result, Error* err) {
  if (threads < 1 || threads > team.size()) {
    Fail(err, ErrorKind::kUsage, "threads must be 1.." + std::to_string(team.size()));
    return false;
  }
  void (*mixed)(uint64_t) = nullptr;
  const ComputeKernel* load = nullptr;
  if (flags.avx512f) {
    mixed = MixedAvx512;
    load = FindComputeKernel(Isa::kAvx512, Precision::kFp64, FlopOp::kFma);
  } else if (flags.avx2 && flags.fma) {
    mixed = MixedAvx2;
    load = FindComputeKernel(Isa::kAvx2, Precision::kFp64, FlopOp::kFma);
  } else if (flags.fma) {
    mixed = MixedSse;
    load = FindComputeKernel(Isa::kSse, Precision::kFp64, FlopOp::kFma);
  } else {
    Fail(err, ErrorKind::kEnvironment, "the CPU has no FMA instructions: no vector-load clock");
    return false;
  }
  std::atomic<bool> stop{false};
  team.Run(threads, [&](int i) {
    if (i != 0) {
      // The background load: the widest FMA kernel in short bursts until worker 0 is done.
      while (!stop.load(std::memory_order_relaxed)) load->run(2000);
      return;
    }
    mixed(Calibrate(mixed, 0.01));  // let the clock settle under the load (licence changes)
    uint64_t iterations = Calibrate(mixed, opts.seconds_per_rep);
    double s = 0;
    result->ghz =
        ChainGhz(mixed, iterations, kImulLatencyCycles * kMixedChain, opts.repetitions, &s);
    stop.store(true, std::memory_order_relaxed);
  });
  return true;
}

}  // namespace rprof
