#include "machine/bandwidth.h"

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace rprof {
namespace {

constexpr uint64_t kPage = 4096;
// Arrays up to this size are streamed whole, `passes` times a repetition; larger ones a slice
// a repetition.
constexpr uint64_t kWholePassArrayBytes = 8ull << 20;

struct Slice {
  uint64_t elements = 0;      // per array
  uint64_t array_bytes = 0;   // per array
  uint64_t offsets[3] = {};   // byte offset of array k in the worker's buffer
  uint64_t buffer_bytes = 0;  // what the worker's buffer must hold
};

// Arrays of one worker: array k starts k pages-rounded arrays plus k x 192 bytes in, so the arrays
// do not sit at the same offset modulo 4 KiB (that would make loads wait on unrelated stores, "4K
// aliasing", on Intel cores).
Slice Layout(BandwidthPattern pattern, int threads, uint64_t working_set_bytes) {
  Slice s;
  int streams = PatternStreams(pattern);
  uint64_t per_array =
      working_set_bytes / static_cast<uint64_t>(threads) / static_cast<uint64_t>(streams);
  per_array = std::max<uint64_t>(kBandwidthBlockBytes,
                                 per_array / kBandwidthBlockBytes * kBandwidthBlockBytes);
  s.array_bytes = per_array;
  s.elements = per_array / sizeof(double);
  uint64_t stride = (per_array + kPage - 1) / kPage * kPage;
  for (int k = 0; k < streams; ++k) s.offsets[k] = k * stride + k * 192;
  s.buffer_bytes = streams * stride + streams * 192 + kPage;
  return s;
}

// Writes back and evicts [p, p + bytes) from every cache level. CLFLUSHOPT (Skylake and Zen on)
// runs at about a streaming pass; plain CLFLUSH, ordered after every line, is several times
// slower, and is what older CPUs get.
__attribute__((target("clflushopt"))) void FlushLinesOpt(char* p, uint64_t bytes) {
  for (uint64_t i = 0; i < bytes; i += 64) _mm_clflushopt(p + i);
  _mm_sfence();
}
// cpuid leaf 7, EBX bit 23; asked directly because clang 14's __builtin_cpu_supports does not
// know "clflushopt". Asked once: cpuid is slow, and in a VM it traps to the hypervisor.
bool HasClflushopt() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_CLFLUSHOPT) != 0;
  }();
  return has;
}
void FlushLines(char* p, uint64_t bytes) {
  if (HasClflushopt()) return FlushLinesOpt(p, bytes);
  for (uint64_t i = 0; i < bytes; i += 64) _mm_clflush(p + i);
  _mm_mfence();
}

}  // namespace

bool BandwidthBuffers::Reserve(ThreadTeam& team, int threads, uint64_t bytes_per_thread,
                               Error* err) {
  if (static_cast<int>(buffers_.size()) < team.size()) buffers_.resize(team.size());
  if (shared_) {
    // Worker 0 maps and touches the whole buffer; the workers' slices follow one another.
    slice_bytes_ = (bytes_per_thread + kPage - 1) / kPage * kPage;
    const uint64_t total = slice_bytes_ * static_cast<uint64_t>(threads);
    if (buffers_[0].size() >= total) return true;
    Error e;
    bool ok = true;
    team.Run(1, [&](int) {
      HugeBuffer& b = buffers_[0];
      // Room for every worker's slice at the 1-thread sweep's largest size: N slices of a
      // working set hold its bytes plus at most five pages each (each of up to three arrays
      // rounded up to a page, the spare page, the slice rounded up to a page).
      const uint64_t room = growth_limit_ + static_cast<uint64_t>(team.size()) * 6 * kPage;
      if (b.data() == nullptr)
        ok = b.Allocate(total, std::max(total, room), &e) || b.Allocate(total, &e);
      if (ok) ok = b.Ensure(total, &e);
    });
    if (!ok) Fail(err, e.kind, "bandwidth buffers: " + e.message);
    return ok;
  }
  bool need = false;
  for (int t = 0; t < threads; ++t) need |= buffers_[t].size() < bytes_per_thread;
  if (!need) return true;
  std::atomic<int> failures{0};
  Error first_error;
  team.Run(threads, [&](int t) {
    if (buffers_[t].size() >= bytes_per_thread) return;
    Error e;
    HugeBuffer& b = buffers_[t];
    if (b.data() == nullptr) {
      // The first mapping reserves room for the whole sweep; later sizes grow into it.
      if (!b.Allocate(bytes_per_thread, growth_limit_, &e) && !b.Allocate(bytes_per_thread, &e)) {
        if (failures.fetch_add(1) == 0) first_error = e;
        return;
      }
    }
    if (!b.Ensure(bytes_per_thread, &e)) {
      if (failures.fetch_add(1) == 0) first_error = e;
    }
  });
  if (failures.load() > 0) {
    Fail(err, first_error.kind, "bandwidth buffers: " + first_error.message);
    return false;
  }
  return true;
}

uint64_t BandwidthBytesPerThread(BandwidthPattern pattern, int threads,
                                 uint64_t working_set_bytes) {
  return Layout(pattern, threads, working_set_bytes).buffer_bytes;
}

bool MeasureBandwidth(ThreadTeam& team, BandwidthBuffers* buffers, const IsaFlags& flags,
                      const BandwidthOptions& opts, BandwidthResult* result, Error* err) {
  if (!IsaUsable(flags, opts.isa)) {
    Fail(err, ErrorKind::kEnvironment,
         std::string("the CPU or the OS does not support ") + IsaName(opts.isa));
    return false;
  }
  BandwidthKernelFn kernel = FindBandwidthKernel(opts.pattern, opts.isa);
  if (kernel == nullptr) {
    Fail(err, ErrorKind::kEnvironment,
         std::string("no ") + PatternName(opts.pattern) + " kernel for " + IsaName(opts.isa));
    return false;
  }
  if (opts.threads < 1 || opts.threads > team.size()) {
    Fail(err, ErrorKind::kUsage, "threads must be 1.." + std::to_string(team.size()));
    return false;
  }
  const int n = opts.threads;
  Slice slice = Layout(opts.pattern, n, opts.working_set_bytes);
  if (!buffers->Reserve(team, n, slice.buffer_bytes, err)) return false;

  std::vector<double> seconds(n, 0.0);
  double sink = 0;
  // Runs `passes` passes over elements [first, first + count) of every thread's arrays; returns
  // the slowest thread's seconds.
  auto run = [&](uint64_t first, uint64_t count, uint64_t passes) {
    team.Run(n, [&](int t) {
      char* base = buffers->data(t);
      const int streams = PatternStreams(opts.pattern);
      double* a = reinterpret_cast<double*>(base + slice.offsets[0]) + first;
      const double* b =
          reinterpret_cast<const double*>(base + slice.offsets[streams > 1 ? 1 : 0]) + first;
      const double* c =
          reinterpret_cast<const double*>(base + slice.offsets[streams > 2 ? 2 : 0]) + first;
      team.Sync();
      double t0 = NowSeconds();
      double v = kernel(a, b, c, count, passes);
      seconds[t] = NowSeconds() - t0;
      if (t == 0) sink += v;
    });
    return *std::max_element(seconds.begin(), seconds.end());
  };
  auto blocks = [](double elements) {
    uint64_t e = static_cast<uint64_t>(std::max(0.0, elements));
    return std::max(kBandwidthBlockElements, e / kBandwidthBlockElements * kBandwidthBlockElements);
  };

  const double target = std::max(1e-4, opts.seconds_per_rep);
  const int repetitions = std::max(1, opts.repetitions);
  const uint64_t elements = slice.elements;
  uint64_t passes = 1, chunk = elements;
  uint64_t timed_from = 0;  // chunks that start before this element are streamed, not timed
  if (slice.array_bytes <= kWholePassArrayBytes) {
    // Warm the slices into whatever cache holds them, then calibrate the pass count.
    double t = run(0, elements, 1);
    t = run(0, elements, 1);
    while (t < target / 8) {
      passes *= t < target / 64 ? 8 : 2;
      t = run(0, elements, passes);
    }
    passes = std::max<uint64_t>(1, static_cast<uint64_t>(passes * (target / t)));
  } else {
    // Far larger than a repetition can stream: each repetition streams the next slice of the
    // arrays, round-robin, so repetitions stay short (a few ms: on a shared machine some escape
    // the other processes' time slices) and a huge working set costs no full passes. One warm-up
    // pass first, up to 512 MiB a thread, so that a set a big cache can hold starts warm.
    //
    // Before it, the arrays are flushed from the caches: what the repetitions read must depend
    // on this working set only. Unflushed, the start of the buffers, which every smaller
    // working set before it had streamed again and again, stayed in a last-level cache that
    // keeps reused lines through a scan (a VM's share of a 480 MiB L3), and the chunks timed
    // there gave the L3 bandwidth for every working set up to 512 MiB: no DRAM on the curve.
    team.Run(n, [&](int t) {
      for (int k = 0; k < PatternStreams(opts.pattern); ++k) {
        FlushLines(buffers->data(t) + slice.offsets[k], slice.array_bytes);
      }
    });
    if (slice.array_bytes * PatternStreams(opts.pattern) <= (512ull << 20)) run(0, elements, 1);
    chunk = std::min(elements, blocks((1 << 20) / sizeof(double)));
    for (int i = 0; i < 2; ++i) {
      double t = run(elements - chunk, chunk, 1);
      chunk = std::min(elements, blocks(static_cast<double>(chunk) * target / t));
    }
    // The repetitions time chunks of the second half of the arrays only, round-robin; when they
    // wrap, the first half is streamed untimed. So every timed chunk was last read a whole
    // working set before, as in a steady stream, and none is among the first lines of the
    // warm-up pass, which a cache that resists scans keeps (that L3, after one pass over
    // 256 MiB, still served its first 64 MiB at L3 speed).
    if (chunk <= elements / 2) {
      timed_from = elements / 2 / kBandwidthBlockElements * kBandwidthBlockElements;
    }
  }

  const uint64_t bytes =
      chunk * PatternBytesPerElement(opts.pattern) * passes * static_cast<uint64_t>(n);
  std::vector<double> rates;
  uint64_t first = timed_from;
  for (int rep = 0; rep < repetitions; ++rep) {
    if (first + chunk > elements) {
      if (timed_from > 0) run(0, timed_from, 1);
      first = timed_from;
    }
    double s = run(first, chunk, passes);
    if (chunk < elements) first += chunk;
    rates.push_back(static_cast<double>(bytes) / s * 1e-9);
  }
  asm volatile("" : : "r"(sink));
  result->gbs = Summarize(rates, /*higher_is_better=*/true);
  result->working_set_bytes = slice.array_bytes * PatternStreams(opts.pattern) * n;
  result->bytes_per_rep = bytes;
  result->passes = chunk < elements ? 0 : passes;
  result->chunk_bytes = chunk * sizeof(double);
  return true;
}

std::vector<uint64_t> GeometricSizes(uint64_t from, uint64_t to, int steps_per_octave) {
  std::vector<uint64_t> sizes;
  if (from == 0 || to < from || steps_per_octave < 1) return sizes;
  double octaves = std::log2(static_cast<double>(to) / static_cast<double>(from));
  int steps = static_cast<int>(std::lround(octaves * steps_per_octave));
  for (int i = 0; i <= steps; ++i) {
    double v = static_cast<double>(from) * std::exp2(static_cast<double>(i) / steps_per_octave);
    uint64_t kib = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(v / 1024.0)));
    if (sizes.empty() || kib * 1024 != sizes.back()) sizes.push_back(kib * 1024);
  }
  return sizes;
}

}  // namespace rprof
