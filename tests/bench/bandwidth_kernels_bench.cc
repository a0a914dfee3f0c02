// The machine profile's streaming kernels at an L1-sized working set (and an L2-sized one, 256
// KiB), in bytes per cycle (issue 42): what `machine measure` can reach for the L1 ceilings, per
// ISA, held against the load
// ports' limit: two loads a cycle of 64 B with AVX-512 (128 B a cycle), and two (Zen, Intel
// since Haswell) or three (Intel since Golden Cove) up to 32 B. On the Intel Xeon guest
// (2026-12-07): load 122.5 B/cycle with AVX-512, 81.3 with AVX2, 44.9 with SSE. Each benchmark
// is one repetition of MeasureBandwidth, as the profile takes it; bytes_per_cycle divides by
// the one-core clock measured once at start.
//
//   bench_bandwidth_kernels --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "machine/bandwidth.h"
#include "machine/clock.h"
#include "machine/thread_team.h"
#include "machine/topology.h"

namespace rprof {
namespace {

struct Setup {
  std::unique_ptr<ThreadTeam> team;
  BandwidthBuffers buffers;
  double clock_ghz = 0;
};

Setup& Shared() {
  static Setup* setup = [] {
    auto* s = new Setup;
    Error err;
    s->team = ThreadTeam::Start({0}, &err);
    ClockResult clock;
    if (s->team && MeasureScalarClock(*s->team, ClockOptions{}, &clock, &err))
      s->clock_ghz = clock.ghz.best;
    if (!err.message.empty()) std::fprintf(stderr, "bench: %s\n", err.message.c_str());
    return s;
  }();
  return *setup;
}

void BM_Stream(benchmark::State& state, BandwidthPattern pattern, Isa isa, uint64_t bytes) {
  Setup& s = Shared();
  const IsaFlags& flags = ReadTopology().isa;
  if (!s.team || s.clock_ghz <= 0) return state.SkipWithError("no pinned worker or no clock");
  if (!IsaUsable(flags, isa)) return state.SkipWithError("this CPU cannot run the ISA");
  BandwidthOptions o;
  o.pattern = pattern;
  o.isa = isa;
  o.working_set_bytes = bytes;
  o.seconds_per_rep = 0.002;
  o.repetitions = 1;
  double best = 0;
  for (auto _ : state) {
    BandwidthResult r;
    Error err;
    if (!MeasureBandwidth(*s.team, &s.buffers, flags, o, &r, &err))
      return state.SkipWithError(err.message.c_str());
    best = std::max(best, r.gbs.best);
  }
  state.counters["GB/s"] = best;
  state.counters["bytes_per_cycle"] = best / s.clock_ghz;
  state.counters["clock_GHz"] = s.clock_ghz;
}

void Register() {
  for (Isa isa : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512}) {
    for (BandwidthPattern p :
         {BandwidthPattern::kLoad, BandwidthPattern::kCopy, BandwidthPattern::kTriad}) {
      if (isa == Isa::kScalar && p != BandwidthPattern::kLoad) continue;  // load only
      // 16 KiB: half or less of every L1D since 2011; 256 KiB: within every L2 since then, and
      // beyond every L1D.
      for (auto [level, bytes] : {std::pair{"L1/", 16u << 10}, std::pair{"L2/", 256u << 10}}) {
        std::string name = std::string(level) + PatternName(p) + "/" + IsaName(isa);
        benchmark::RegisterBenchmark(name.c_str(), BM_Stream, p, isa, uint64_t{bytes})
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace
}  // namespace rprof

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  rprof::Register();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
