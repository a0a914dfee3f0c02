#include "machine/compute_peak.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rprof {
namespace {

// Runs `iterations` on `threads` workers, all starting after one barrier; returns the slowest
// worker's seconds.
double TimedRun(ThreadTeam& team, int threads, const ComputeKernel& k, uint64_t iterations) {
  std::vector<double> seconds(threads, 0.0);
  team.Run(threads, [&](int i) {
    team.Sync();
    double t0 = NowSeconds();
    k.run(iterations);
    seconds[i] = NowSeconds() - t0;
  });
  return *std::max_element(seconds.begin(), seconds.end());
}

}  // namespace

bool MeasureComputePeak(ThreadTeam& team, const IsaFlags& flags, const ComputePeakOptions& opts,
                        ComputePeakResult* result, Error* err) {
  const ComputeKernel* k = FindComputeKernel(opts.isa, opts.precision, opts.op);
  bool usable =
      opts.op == FlopOp::kFma ? IsaFmaUsable(flags, opts.isa) : IsaUsable(flags, opts.isa);
  if (k == nullptr || !usable) {
    Fail(err, ErrorKind::kEnvironment,
         std::string("no ") + IsaName(opts.isa) + " " + FlopOpName(opts.op) +
             " kernel can run on this CPU");
    return false;
  }
  if (opts.threads < 1 || opts.threads > team.size()) {
    Fail(err, ErrorKind::kUsage, "threads must be 1.." + std::to_string(team.size()));
    return false;
  }
  // Calibrate: grow until a run takes a measurable time, then scale to the target. The first
  // runs also wake the wide units up (AVX-512 on Intel starts at reduced throughput).
  uint64_t iterations = opts.iterations;
  if (iterations == 0) {
    iterations = 1024;
    double target = std::max(1e-3, opts.seconds_per_rep);
    double t = TimedRun(team, opts.threads, *k, iterations);
    while (t < target / 8) {
      iterations *= t < target / 64 ? 8 : 2;
      t = TimedRun(team, opts.threads, *k, iterations);
    }
    iterations = std::max<uint64_t>(1, static_cast<uint64_t>(iterations * (target / t)));
  } else {
    TimedRun(team, opts.threads, *k, iterations / 8 + 1);  // wakes the wide units up
  }

  uint64_t flops = FlopsPerIteration(*k) * iterations * static_cast<uint64_t>(opts.threads);
  std::vector<double> rates;
  for (int rep = 0; rep < std::max(1, opts.repetitions); ++rep) {
    double s = TimedRun(team, opts.threads, *k, iterations);
    rates.push_back(static_cast<double>(flops) / s * 1e-9);
  }
  result->rates = rates;
  result->gflops = Summarize(rates, /*higher_is_better=*/true);
  result->iterations_per_thread = iterations;
  result->flops_per_rep = flops;
  return true;
}

std::optional<int> KnownFmaUnits(const Topology& t, Isa isa) {
  if (t.vendor == "AuthenticAMD" || t.vendor == "HygonGenuine") {
    // Zen 1 (17h, models < 30h) splits 256-bit ops over two 128-bit FMA pipes: one 256-bit FMA
    // per cycle. Zen 2 and later: two 256-bit FMA pipes. Zen 4 runs 512-bit ops over both
    // (one 512-bit FMA per cycle); Zen 5 (1Ah) has 512-bit pipes on desktop and server parts but
    // not on all mobile ones, so AVX-512 on 1Ah is left to measurement.
    bool zen1 = t.family == 0x17 && t.model < 0x30;
    switch (isa) {
      case Isa::kScalar:
      case Isa::kSse:
        return 2;
      case Isa::kAvx2:
        return zen1 ? 1 : 2;
      case Isa::kAvx512:
        if (t.family == 0x19) return 1;
        return std::nullopt;
    }
  }
  if (t.vendor == "GenuineIntel" && t.family == 6) {
    // Every Intel big core since Haswell has two FMA ports up to 256 bits. 512-bit: one or two
    // depending on the SKU, so measured.
    if (isa != Isa::kAvx512) return 2;
  }
  return std::nullopt;
}

int EstimateFmaUnits(double gflops, double ghz, int lanes) {
  if (ghz <= 0 || lanes <= 0) return 1;
  return std::max(1, static_cast<int>(std::lround(gflops / (ghz * lanes * 2))));
}

double TheoreticalPeakGflops(int cores, double ghz, int fma_units, int lanes) {
  return cores * ghz * fma_units * lanes * 2.0;
}

}  // namespace rprof
