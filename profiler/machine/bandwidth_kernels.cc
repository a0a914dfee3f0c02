#include "machine/bandwidth_kernels.h"

#include <immintrin.h>

namespace rprof {
namespace {

// Intrinsics are enough here: the loops are memory-bound, GCC keeps FP additions in the order
// written (no -ffast-math), and aligned loads/stores map one to one. Eight vectors per step: enough
// independent adds (latency 3-4 x 2 ports) for the load kernel, and a 512-byte block.

// ---- SSE2 (x86-64 baseline), 16-byte vectors, 8 per 128 bytes; a block is 4 steps.
double LoadSse(double*, const double* b, const double*, uint64_t n, uint64_t passes) {
  __m128d s0 = _mm_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 16) {
      s0 = _mm_add_pd(s0, _mm_load_pd(b + i + 0));
      s1 = _mm_add_pd(s1, _mm_load_pd(b + i + 2));
      s2 = _mm_add_pd(s2, _mm_load_pd(b + i + 4));
      s3 = _mm_add_pd(s3, _mm_load_pd(b + i + 6));
      s4 = _mm_add_pd(s4, _mm_load_pd(b + i + 8));
      s5 = _mm_add_pd(s5, _mm_load_pd(b + i + 10));
      s6 = _mm_add_pd(s6, _mm_load_pd(b + i + 12));
      s7 = _mm_add_pd(s7, _mm_load_pd(b + i + 14));
    }
  }
  __m128d s = _mm_add_pd(_mm_add_pd(_mm_add_pd(s0, s1), _mm_add_pd(s2, s3)),
                         _mm_add_pd(_mm_add_pd(s4, s5), _mm_add_pd(s6, s7)));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

double CopySse(double* a, const double* b, const double*, uint64_t n, uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 16) {
      __m128d v0 = _mm_load_pd(b + i + 0), v1 = _mm_load_pd(b + i + 2);
      __m128d v2 = _mm_load_pd(b + i + 4), v3 = _mm_load_pd(b + i + 6);
      __m128d v4 = _mm_load_pd(b + i + 8), v5 = _mm_load_pd(b + i + 10);
      __m128d v6 = _mm_load_pd(b + i + 12), v7 = _mm_load_pd(b + i + 14);
      _mm_store_pd(a + i + 0, v0);
      _mm_store_pd(a + i + 2, v1);
      _mm_store_pd(a + i + 4, v2);
      _mm_store_pd(a + i + 6, v3);
      _mm_store_pd(a + i + 8, v4);
      _mm_store_pd(a + i + 10, v5);
      _mm_store_pd(a + i + 12, v6);
      _mm_store_pd(a + i + 14, v7);
    }
    asm volatile("" ::: "memory");  // each pass really copies (no pass elision)
  }
  return a[0];
}

double CopyNtSse(double* a, const double* b, const double*, uint64_t n, uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 8) {
      __m128d v0 = _mm_load_pd(b + i + 0), v1 = _mm_load_pd(b + i + 2);
      __m128d v2 = _mm_load_pd(b + i + 4), v3 = _mm_load_pd(b + i + 6);
      _mm_stream_pd(a + i + 0, v0);
      _mm_stream_pd(a + i + 2, v1);
      _mm_stream_pd(a + i + 4, v2);
      _mm_stream_pd(a + i + 6, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm_sfence();
  return a[0];
}

double TriadSse(double* a, const double* b, const double* c, uint64_t n, uint64_t passes) {
  const __m128d s = _mm_set1_pd(3.0);
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 8) {
      __m128d v0 = _mm_add_pd(_mm_load_pd(b + i + 0), _mm_mul_pd(s, _mm_load_pd(c + i + 0)));
      __m128d v1 = _mm_add_pd(_mm_load_pd(b + i + 2), _mm_mul_pd(s, _mm_load_pd(c + i + 2)));
      __m128d v2 = _mm_add_pd(_mm_load_pd(b + i + 4), _mm_mul_pd(s, _mm_load_pd(c + i + 4)));
      __m128d v3 = _mm_add_pd(_mm_load_pd(b + i + 6), _mm_mul_pd(s, _mm_load_pd(c + i + 6)));
      _mm_store_pd(a + i + 0, v0);
      _mm_store_pd(a + i + 2, v1);
      _mm_store_pd(a + i + 4, v2);
      _mm_store_pd(a + i + 6, v3);
    }
    asm volatile("" ::: "memory");
  }
  return a[0];
}

// ---- AVX2, 32-byte vectors, 8 per 256 bytes.
#define RPROF_AVX2 __attribute__((target("avx2")))

RPROF_AVX2 double LoadAvx2(double*, const double* b, const double*, uint64_t n, uint64_t passes) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0,
          s7 = s0;
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 32) {
      s0 = _mm256_add_pd(s0, _mm256_load_pd(b + i + 0));
      s1 = _mm256_add_pd(s1, _mm256_load_pd(b + i + 4));
      s2 = _mm256_add_pd(s2, _mm256_load_pd(b + i + 8));
      s3 = _mm256_add_pd(s3, _mm256_load_pd(b + i + 12));
      s4 = _mm256_add_pd(s4, _mm256_load_pd(b + i + 16));
      s5 = _mm256_add_pd(s5, _mm256_load_pd(b + i + 20));
      s6 = _mm256_add_pd(s6, _mm256_load_pd(b + i + 24));
      s7 = _mm256_add_pd(s7, _mm256_load_pd(b + i + 28));
    }
  }
  __m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)),
                            _mm256_add_pd(_mm256_add_pd(s4, s5), _mm256_add_pd(s6, s7)));
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  double r = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  _mm256_zeroupper();
  return r;
}

RPROF_AVX2 double CopyAvx2(double* a, const double* b, const double*, uint64_t n,
                           uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 32) {
      __m256d v0 = _mm256_load_pd(b + i + 0), v1 = _mm256_load_pd(b + i + 4);
      __m256d v2 = _mm256_load_pd(b + i + 8), v3 = _mm256_load_pd(b + i + 12);
      __m256d v4 = _mm256_load_pd(b + i + 16), v5 = _mm256_load_pd(b + i + 20);
      __m256d v6 = _mm256_load_pd(b + i + 24), v7 = _mm256_load_pd(b + i + 28);
      _mm256_store_pd(a + i + 0, v0);
      _mm256_store_pd(a + i + 4, v1);
      _mm256_store_pd(a + i + 8, v2);
      _mm256_store_pd(a + i + 12, v3);
      _mm256_store_pd(a + i + 16, v4);
      _mm256_store_pd(a + i + 20, v5);
      _mm256_store_pd(a + i + 24, v6);
      _mm256_store_pd(a + i + 28, v7);
    }
    asm volatile("" ::: "memory");
  }
  _mm256_zeroupper();
  return a[0];
}

RPROF_AVX2 double CopyNtAvx2(double* a, const double* b, const double*, uint64_t n,
                             uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 16) {
      __m256d v0 = _mm256_load_pd(b + i + 0), v1 = _mm256_load_pd(b + i + 4);
      __m256d v2 = _mm256_load_pd(b + i + 8), v3 = _mm256_load_pd(b + i + 12);
      _mm256_stream_pd(a + i + 0, v0);
      _mm256_stream_pd(a + i + 4, v1);
      _mm256_stream_pd(a + i + 8, v2);
      _mm256_stream_pd(a + i + 12, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm_sfence();
  _mm256_zeroupper();
  return a[0];
}

RPROF_AVX2 double TriadAvx2(double* a, const double* b, const double* c, uint64_t n,
                            uint64_t passes) {
  const __m256d s = _mm256_set1_pd(3.0);
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 16) {
      __m256d v0 = _mm256_add_pd(_mm256_load_pd(b + i + 0),
                                 _mm256_mul_pd(s, _mm256_load_pd(c + i + 0)));
      __m256d v1 = _mm256_add_pd(_mm256_load_pd(b + i + 4),
                                 _mm256_mul_pd(s, _mm256_load_pd(c + i + 4)));
      __m256d v2 = _mm256_add_pd(_mm256_load_pd(b + i + 8),
                                 _mm256_mul_pd(s, _mm256_load_pd(c + i + 8)));
      __m256d v3 = _mm256_add_pd(_mm256_load_pd(b + i + 12),
                                 _mm256_mul_pd(s, _mm256_load_pd(c + i + 12)));
      _mm256_store_pd(a + i + 0, v0);
      _mm256_store_pd(a + i + 4, v1);
      _mm256_store_pd(a + i + 8, v2);
      _mm256_store_pd(a + i + 12, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm256_zeroupper();
  return a[0];
}

// ---- AVX-512, 64-byte vectors, 8 per 512 bytes.
#define RPROF_AVX512 __attribute__((target("avx512f")))

RPROF_AVX512 double LoadAvx512(double*, const double* b, const double*, uint64_t n,
                               uint64_t passes) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0,
          s7 = s0;
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 64) {
      s0 = _mm512_add_pd(s0, _mm512_load_pd(b + i + 0));
      s1 = _mm512_add_pd(s1, _mm512_load_pd(b + i + 8));
      s2 = _mm512_add_pd(s2, _mm512_load_pd(b + i + 16));
      s3 = _mm512_add_pd(s3, _mm512_load_pd(b + i + 24));
      s4 = _mm512_add_pd(s4, _mm512_load_pd(b + i + 32));
      s5 = _mm512_add_pd(s5, _mm512_load_pd(b + i + 40));
      s6 = _mm512_add_pd(s6, _mm512_load_pd(b + i + 48));
      s7 = _mm512_add_pd(s7, _mm512_load_pd(b + i + 56));
    }
  }
  __m512d s = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)),
                            _mm512_add_pd(_mm512_add_pd(s4, s5), _mm512_add_pd(s6, s7)));
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, s);
  _mm256_zeroupper();
  double r = 0;
  for (double v : lanes) r += v;
  return r;
}

RPROF_AVX512 double CopyAvx512(double* a, const double* b, const double*, uint64_t n,
                               uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 32) {
      __m512d v0 = _mm512_load_pd(b + i + 0), v1 = _mm512_load_pd(b + i + 8);
      __m512d v2 = _mm512_load_pd(b + i + 16), v3 = _mm512_load_pd(b + i + 24);
      _mm512_store_pd(a + i + 0, v0);
      _mm512_store_pd(a + i + 8, v1);
      _mm512_store_pd(a + i + 16, v2);
      _mm512_store_pd(a + i + 24, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm256_zeroupper();
  return a[0];
}

RPROF_AVX512 double CopyNtAvx512(double* a, const double* b, const double*, uint64_t n,
                                 uint64_t passes) {
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 32) {
      __m512d v0 = _mm512_load_pd(b + i + 0), v1 = _mm512_load_pd(b + i + 8);
      __m512d v2 = _mm512_load_pd(b + i + 16), v3 = _mm512_load_pd(b + i + 24);
      _mm512_stream_pd(a + i + 0, v0);
      _mm512_stream_pd(a + i + 8, v1);
      _mm512_stream_pd(a + i + 16, v2);
      _mm512_stream_pd(a + i + 24, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm_sfence();
  _mm256_zeroupper();
  return a[0];
}

RPROF_AVX512 double TriadAvx512(double* a, const double* b, const double* c, uint64_t n,
                                uint64_t passes) {
  const __m512d s = _mm512_set1_pd(3.0);
  for (uint64_t p = 0; p < passes; ++p) {
    for (uint64_t i = 0; i < n; i += 32) {
      __m512d v0 = _mm512_add_pd(_mm512_load_pd(b + i + 0),
                                 _mm512_mul_pd(s, _mm512_load_pd(c + i + 0)));
      __m512d v1 = _mm512_add_pd(_mm512_load_pd(b + i + 8),
                                 _mm512_mul_pd(s, _mm512_load_pd(c + i + 8)));
      __m512d v2 = _mm512_add_pd(_mm512_load_pd(b + i + 16),
                                 _mm512_mul_pd(s, _mm512_load_pd(c + i + 16)));
      __m512d v3 = _mm512_add_pd(_mm512_load_pd(b + i + 24),
                                 _mm512_mul_pd(s, _mm512_load_pd(c + i + 24)));
      _mm512_store_pd(a + i + 0, v0);
      _mm512_store_pd(a + i + 8, v1);
      _mm512_store_pd(a + i + 16, v2);
      _mm512_store_pd(a + i + 24, v3);
    }
    asm volatile("" ::: "memory");
  }
  _mm256_zeroupper();
  return a[0];
}

}  // namespace

const char* PatternName(BandwidthPattern pattern) {
  switch (pattern) {
    case BandwidthPattern::kLoad: return "load";
    case BandwidthPattern::kCopy: return "copy";
    case BandwidthPattern::kTriad: return "triad";
    case BandwidthPattern::kCopyNt: return "copy_nt";
  }
  return "?";
}

int PatternStreams(BandwidthPattern pattern) {
  switch (pattern) {
    case BandwidthPattern::kLoad: return 1;
    case BandwidthPattern::kCopy: return 2;
    case BandwidthPattern::kTriad: return 3;
    case BandwidthPattern::kCopyNt: return 2;
  }
  return 1;
}

int PatternBytesPerElement(BandwidthPattern pattern) {
  return PatternStreams(pattern) * static_cast<int>(sizeof(double));
}

BandwidthKernelFn FindBandwidthKernel(BandwidthPattern pattern, Isa isa) {
  switch (isa) {
    case Isa::kScalar:
    case Isa::kSse:
      switch (pattern) {
        case BandwidthPattern::kLoad: return LoadSse;
        case BandwidthPattern::kCopy: return CopySse;
        case BandwidthPattern::kTriad: return TriadSse;
        case BandwidthPattern::kCopyNt: return CopyNtSse;
      }
      break;
    case Isa::kAvx2:
      switch (pattern) {
        case BandwidthPattern::kLoad: return LoadAvx2;
        case BandwidthPattern::kCopy: return CopyAvx2;
        case BandwidthPattern::kTriad: return TriadAvx2;
        case BandwidthPattern::kCopyNt: return CopyNtAvx2;
      }
      break;
    case Isa::kAvx512:
      switch (pattern) {
        case BandwidthPattern::kLoad: return LoadAvx512;
        case BandwidthPattern::kCopy: return CopyAvx512;
        case BandwidthPattern::kTriad: return TriadAvx512;
        case BandwidthPattern::kCopyNt: return CopyNtAvx512;
      }
      break;
  }
  return nullptr;
}

}  // namespace rprof
