// The measured machine profile: ceilings positive and ordered (L1 >= L2 >= L3 >= DRAM for a
// pattern, AVX-512 >= AVX2 >= SSE >= scalar for an operation), latency growing with the working
// set; plus the exact parts (FLOP and byte counting, the pointer cycle, the option checks).
//
// Not a timing test: one quick measurement at 0.3x the usual repetition length (a few seconds on a
// 2-core machine). Orderings are checked with a 0.9x allowance for noise; when one fails on a
// machine the profile itself reports as busy, the test is skipped with the profile's warnings
// rather than failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "machine/bandwidth.h"
#include "machine/bandwidth_kernels.h"
#include "machine/compute_kernels.h"
#include "machine/compute_peak.h"
#include "machine/isa.h"
#include "machine/latency.h"
#include "machine/machine_measure.h"
#include "machine/machine_profile.h"
#include "machine/profile_trust.h"
#include "machine/thread_team.h"

namespace rprof {
namespace {

constexpr double kNoise = 0.9;  // a faster rung must reach at least 0.9x the slower one

class MachineCeilingsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    MachineMeasureOptions o;
    o.mode = "quick";
    o.time_scale = 0.3;
    // Other tests measure in parallel: waiting for them would only spend this test's timeout
    // (a busy machine is reported, and the orderings skipped, as before).
    o.settle_max_s = 0;
    profile_ = new MachineProfile;
    ok_ = MeasureMachine(o, profile_, &error_);
  }
  static void TearDownTestSuite() {
    delete profile_;
    profile_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(ok_) << error_.message; }

  // Whether the profile says other work competed with the measurement.
  static bool Busy() {
    for (const std::string& w : profile_->warnings) {
      if (w.find("other processes") != std::string::npos ||
          w.find("load average") != std::string::npos || w.find("steal") != std::string::npos) {
        return true;
      }
    }
    return false;
  }
  static std::string Warnings() {
    std::string all;
    for (const std::string& w : profile_->warnings) all += "\n  " + w;
    return all;
  }
  // Fails with `problems`, or skips when the machine was busy.
  static void Report(const std::vector<std::string>& problems) {
    if (problems.empty()) return;
    std::string text;
    for (const std::string& p : problems) text += "\n  " + p;
    if (Busy()) {
      GTEST_SKIP() << "machine busy while measuring; orderings not checked:" << text
                   << "\nprofile warnings:" << Warnings();
    }
    ADD_FAILURE() << text << "\nprofile warnings:" << Warnings();
  }

  static MachineProfile* profile_;
  static bool ok_;
  static Error error_;
};

MachineProfile* MachineCeilingsTest::profile_ = nullptr;
bool MachineCeilingsTest::ok_ = false;
Error MachineCeilingsTest::error_;

const Ceiling* FindCeiling(const MachineProfile& p, const std::string& name, int threads) {
  for (const Ceiling& c : p.ceilings) {
    if (c.name == name && c.threads == threads) return &c;
  }
  return nullptr;
}

// Whatever the timing, the profile is consistent with its own rules: every contradiction in
// it (a mul+add above its FMA, a latency not above the level before) is both a warning and a
// noisy reason; large spreads whose best no other repetition reproduced, on more than a quarter
// of the ceilings, make it noisy.
TEST_F(MachineCeilingsTest, NoiseRulesHoldOnTheMeasuredProfile) {
  const MachineProfile& p = *profile_;
  auto has = [](const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  for (const std::string& contradiction : ProfileContradictions(p)) {
    EXPECT_TRUE(has(p.warnings, contradiction)) << contradiction;
    EXPECT_TRUE(has(p.noisy_reasons, contradiction)) << contradiction;
  }
  int large = 0;
  for (const Ceiling& c : p.ceilings) large += c.spread_pct > kLargeSpreadPct && !c.best_confirmed;
  if (4 * large > static_cast<int>(p.ceilings.size())) {
    EXPECT_TRUE(p.noisy()) << Warnings();
  }
  EXPECT_EQ(p.noisy(), !p.noisy_reasons.empty());
  for (const LevelSummary& l : p.levels) EXPECT_EQ(l.size_agreement, 0) << "not reconciled here";
}

TEST_F(MachineCeilingsTest, CeilingsArePositiveAndWellFormed) {
  const MachineProfile& p = *profile_;
  EXPECT_EQ(p.mode, "quick");
  EXPECT_EQ(p.fingerprint, Fingerprint(p.topology));
  EXPECT_GE(p.threads, 1);
  EXPECT_GT(p.clock_ghz_scalar, 0.3);
  EXPECT_LT(p.clock_ghz_scalar, 7.0);
  ASSERT_FALSE(p.ceilings.empty());
  std::set<std::pair<std::string, int>> seen;
  for (const Ceiling& c : p.ceilings) {
    SCOPED_TRACE(c.name + " x" + std::to_string(c.threads));
    EXPECT_TRUE(seen.insert({c.name, c.threads}).second) << "duplicate ceiling";
    EXPECT_GT(c.value, 0);
    EXPECT_GE(c.spread_pct, 0);
    EXPECT_GT(c.repetitions, 0);
    EXPECT_TRUE(c.threads == 1 || c.threads == p.threads);
    if (c.kind == "compute") {
      EXPECT_EQ(c.unit, "GFLOP/s");
      EXPECT_EQ(c.level, "");
      EXPECT_EQ(c.name, c.precision + "_" + c.isa + "_" + c.pattern);
      EXPECT_EQ(c.working_set_bytes, 0u);
    } else {
      EXPECT_EQ(c.kind, "bandwidth");
      EXPECT_EQ(c.unit, "GB/s");
      EXPECT_GT(c.working_set_bytes, 0u);
      if (IsScalarBandwidthCeiling(c)) {
        // 8-byte loads, in the caches only: at DRAM the widths meet.
        EXPECT_EQ(c.name, c.level + "_load_scalar");
        EXPECT_EQ(c.pattern, "load");
        EXPECT_NE(c.level, "dram");
        EXPECT_NE(FindCeiling(p, c.level + "_load", c.threads), nullptr);
      } else {
        EXPECT_EQ(c.name, c.level + "_" + c.pattern);
        // The widest ISA's, or where that is AVX-512, AVX2's copy or triad through a cache,
        // when the narrower vectors streamed it faster (32-byte ones through an Intel L2).
        const std::string widest = IsaName(WidestIsa(p.topology.isa));
        if (c.isa != widest) {
          EXPECT_EQ(widest, "avx512");
          EXPECT_EQ(c.isa, "avx2");
          EXPECT_TRUE(c.pattern == "copy" || c.pattern == "triad") << c.pattern;
          EXPECT_NE(c.level, "dram");
        }
      }
    }
  }
  // What every x86-64 machine must have.
  EXPECT_NE(FindCeiling(p, "fp64_scalar_add", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "fp64_sse_add", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "l1_load", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "l1_load_scalar", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "l1_load_scalar", p.threads), nullptr);
  EXPECT_EQ(FindCeiling(p, "dram_load_scalar", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "dram_load", 1), nullptr);
  EXPECT_NE(FindCeiling(p, "dram_copy_nt", 1), nullptr);
  if (p.topology.isa.avx2 && p.topology.isa.fma) {
    EXPECT_NE(FindCeiling(p, "fp64_avx2_fma", p.threads), nullptr);
  }
  if (!p.topology.isa.avx512f) {
    EXPECT_EQ(FindCeiling(p, "fp64_avx512_fma", 1), nullptr);
  }
}

TEST_F(MachineCeilingsTest, BandwidthFallsFromL1ToDram) {
  const MachineProfile& p = *profile_;
  // Rungs present per (pattern, threads), in hierarchy order.
  std::map<std::pair<std::string, int>, std::vector<const Ceiling*>> ladders;
  for (const Ceiling& c : p.ceilings) {
    if (c.kind == "bandwidth") ladders[{c.pattern + " " + c.isa, c.threads}].push_back(&c);
  }
  auto rank = [](const std::string& level) {
    return level == "dram" ? 100 : std::atoi(level.c_str() + 1);
  };
  std::vector<std::string> problems;
  for (auto& [key, rungs] : ladders) {
    std::sort(rungs.begin(), rungs.end(),
              [&](const Ceiling* a, const Ceiling* b) { return rank(a->level) < rank(b->level); });
    for (size_t k = 0; k + 1 < rungs.size(); ++k) {
      if (rungs[k]->value < kNoise * rungs[k + 1]->value) {
        problems.push_back(rungs[k]->name + " " + std::to_string(rungs[k]->value) + " < 0.9 x " +
                           rungs[k + 1]->name + " " + std::to_string(rungs[k + 1]->value) + " (" +
                           std::to_string(key.second) + " threads)");
      }
    }
  }
  // L1 is far above DRAM on any machine (10x and more on one core).
  const Ceiling* l1 = FindCeiling(p, "l1_load", 1);
  const Ceiling* dram = FindCeiling(p, "dram_load", 1);
  ASSERT_NE(l1, nullptr);
  ASSERT_NE(dram, nullptr);
  if (l1->value < 2 * dram->value) problems.push_back("l1_load is not 2x dram_load");
  Report(problems);
}

TEST_F(MachineCeilingsTest, ComputeGrowsWithVectorWidth) {
  const MachineProfile& p = *profile_;
  std::vector<std::string> problems;
  const Isa order[] = {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512};
  int compared = 0;
  for (int threads : {1, p.threads}) {
    for (const char* precision : {"fp64", "fp32"}) {
      for (const char* op : {"fma", "mul_add", "add"}) {
        const Ceiling* narrower = nullptr;
        for (Isa isa : order) {
          const Ceiling* c =
              FindCeiling(p, std::string(precision) + "_" + IsaName(isa) + "_" + op, threads);
          if (c == nullptr) continue;
          if (narrower != nullptr) {
            ++compared;
            if (c->value < kNoise * narrower->value) {
              problems.push_back(c->name + " " + std::to_string(c->value) + " < 0.9 x " +
                                 narrower->name + " " + std::to_string(narrower->value) + " (" +
                                 std::to_string(threads) + " threads)");
            }
          }
          narrower = c;
        }
      }
    }
  }
  EXPECT_GT(compared, 0);
  // FMA does two FLOPs per lane: it beats plain adds of the same width.
  const Ceiling* fma = FindCeiling(p, "fp64_sse_fma", 1);
  const Ceiling* add = FindCeiling(p, "fp64_sse_add", 1);
  if (fma != nullptr && add != nullptr && fma->value < 1.2 * add->value) {
    problems.push_back("fp64_sse_fma is not above fp64_sse_add");
  }
  Report(problems);
}

TEST_F(MachineCeilingsTest, LatencyGrowsWithTheWorkingSet) {
  const std::vector<LatencyPoint>& lat = profile_->latency;
  ASSERT_GE(lat.size(), 4u);
  for (size_t i = 1; i < lat.size(); ++i) {
    EXPECT_GT(lat[i].working_set_bytes, lat[i - 1].working_set_bytes);
  }
  EXPECT_EQ(lat.front().working_set_bytes, 16u * 1024);
  std::vector<uint64_t> reported;
  for (const CacheLevel& c : DataCaches(profile_->topology)) reported.push_back(c.size_bytes);
  if (!reported.empty()) {
    // 4x the last-level cache unless a cap applied (and then a warning says so).
    bool capped = false;
    for (const std::string& w : profile_->warnings) capped |= w.find("capped") != std::string::npos;
    if (!capped) {
      EXPECT_GE(lat.back().working_set_bytes, 4 * reported.back() * 99 / 100);
    }
  }
  std::vector<std::string> problems;
  double small = std::max(lat[0].ns, lat[1].ns);
  double large = std::min(lat[lat.size() - 1].ns, lat[lat.size() - 2].ns);
  if (!(large > 5 * small)) {
    problems.push_back("latency at the largest working sets (" + std::to_string(large) +
                       " ns) is not 5x that at 16 KiB (" + std::to_string(small) + " ns)");
  }
  Report(problems);
}

TEST_F(MachineCeilingsTest, LevelsRunFromL1ToDram) {
  const std::vector<LevelSummary>& levels = profile_->levels;
  ASSERT_GE(levels.size(), 2u);
  EXPECT_EQ(levels.front().level, "l1");
  EXPECT_EQ(levels.back().level, "dram");
  EXPECT_EQ(levels.back().effective_size, 0u);
  for (const LevelSummary& l : levels) {
    SCOPED_TRACE(l.level);
    if (l.level != "dram") {
      EXPECT_GT(l.effective_size, 0u);
    }
    EXPECT_GE(l.latency_ns, 0);
    EXPECT_GE(l.bandwidth_gbs, 0);
  }
  EXPECT_GT(levels.front().latency_ns, 0);
  EXPECT_GT(levels.front().bandwidth_gbs, 0);
}

TEST(MachineMeasureTest, RejectsBadOptions) {
  MachineProfile p;
  Error err;
  MachineMeasureOptions o;
  o.threads = 100000;
  EXPECT_FALSE(MeasureMachine(o, &p, &err));
  EXPECT_NE(err.message.find("threads must be 1.."), std::string::npos) << err.message;
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  o.threads = -1;
  EXPECT_FALSE(MeasureMachine(o, &p, &err));
  o = MachineMeasureOptions();
  o.mode = "fast";
  EXPECT_FALSE(MeasureMachine(o, &p, &err));
  EXPECT_NE(err.message.find("quick or full"), std::string::npos) << err.message;
}

TEST(MachineMeasureTest, CancelReturnsInterrupted) {
  std::atomic<bool> cancel{true};
  MachineMeasureOptions o;
  o.cancel = &cancel;
  MachineProfile p;
  Error err;
  EXPECT_FALSE(MeasureMachine(o, &p, &err));
  EXPECT_EQ(err.message, "interrupted");
  EXPECT_TRUE(p.ceilings.empty());
}

TEST(MachineMeasureTest, CancelDuringTheMeasurementStopsIt) {
  std::atomic<bool> cancel{false};
  MachineMeasureOptions o;
  o.cancel = &cancel;
  o.time_scale = 0.2;
  int calls = 0;
  o.progress = [&](const std::string&, double fraction) {
    EXPECT_GE(fraction, 0);
    EXPECT_LE(fraction, 1);
    if (++calls == 3) cancel = true;  // a few measurements in
  };
  MachineProfile p;
  Error err;
  EXPECT_FALSE(MeasureMachine(o, &p, &err));
  EXPECT_EQ(err.message, "interrupted");
  EXPECT_EQ(calls, 3);
}

// ---- The exact parts.

TEST(ComputeKernelsTest, FlopCounting) {
  // FMA = 2 FLOPs per lane; 12 instructions a block, 24 for AVX-512.
  EXPECT_EQ(FlopsPerIteration(*FindComputeKernel(Isa::kAvx2, Precision::kFp64, FlopOp::kFma)),
            12u * 4 * 2);
  EXPECT_EQ(FlopsPerIteration(*FindComputeKernel(Isa::kAvx2, Precision::kFp32, FlopOp::kAdd)),
            12u * 8);
  EXPECT_EQ(FlopsPerIteration(*FindComputeKernel(Isa::kScalar, Precision::kFp64, FlopOp::kMulAdd)),
            12u);
  EXPECT_EQ(FlopsPerIteration(*FindComputeKernel(Isa::kSse, Precision::kFp32, FlopOp::kFma)),
            12u * 4 * 2);
  EXPECT_EQ(FlopsPerIteration(*FindComputeKernel(Isa::kAvx512, Precision::kFp64, FlopOp::kFma)),
            24u * 8 * 2);
  for (Isa isa : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512}) {
    for (Precision pr : {Precision::kFp64, Precision::kFp32}) {
      for (FlopOp op : {FlopOp::kFma, FlopOp::kMulAdd, FlopOp::kAdd}) {
        EXPECT_NE(FindComputeKernel(isa, pr, op), nullptr);
      }
    }
  }
}

TEST(ComputeKernelsTest, EveryUsableKernelRunsAndRefusesTheOthers) {
  Topology t = ReadTopology();
  Error err;
  auto team = ThreadTeam::Start({t.cpu_order.front()}, &err);
  ASSERT_NE(team, nullptr) << err.message;
  for (Isa isa : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512}) {
    for (FlopOp op : {FlopOp::kFma, FlopOp::kMulAdd, FlopOp::kAdd}) {
      ComputePeakOptions o;
      o.isa = isa;
      o.op = op;
      o.seconds_per_rep = 0.002;
      o.repetitions = 2;
      ComputePeakResult r;
      bool usable = op == FlopOp::kFma ? IsaFmaUsable(t.isa, isa) : IsaUsable(t.isa, isa);
      EXPECT_EQ(MeasureComputePeak(*team, t.isa, o, &r, &err), usable)
          << IsaName(isa) << err.message;
      if (usable) {
        EXPECT_GT(r.gflops.best, 0);
        EXPECT_EQ(r.flops_per_rep, FlopsPerIteration(*FindComputeKernel(isa, o.precision, op)) *
                                       r.iterations_per_thread);
      }
    }
  }
  ComputePeakOptions o;
  o.isa = Isa::kSse;
  o.op = FlopOp::kAdd;
  o.threads = 2;  // the team has one worker
  ComputePeakResult r;
  EXPECT_FALSE(MeasureComputePeak(*team, t.isa, o, &r, &err));
}

TEST(BandwidthTest, CountsExplicitLoadsAndStoresOnly) {
  EXPECT_EQ(PatternBytesPerElement(BandwidthPattern::kLoad), 8);
  EXPECT_EQ(PatternBytesPerElement(BandwidthPattern::kCopy), 16);
  EXPECT_EQ(PatternBytesPerElement(BandwidthPattern::kTriad), 24);
  EXPECT_EQ(PatternBytesPerElement(BandwidthPattern::kCopyNt), 16);
  Topology t = ReadTopology();
  Error err;
  auto team = ThreadTeam::Start({t.cpu_order.front()}, &err);
  ASSERT_NE(team, nullptr) << err.message;
  BandwidthBuffers buffers;
  for (BandwidthPattern pattern : {BandwidthPattern::kLoad, BandwidthPattern::kCopy,
                                   BandwidthPattern::kTriad, BandwidthPattern::kCopyNt}) {
    BandwidthOptions o;
    o.pattern = pattern;
    o.isa = WidestIsa(t.isa);
    o.working_set_bytes = 96 * 1024;
    o.seconds_per_rep = 0.002;
    o.repetitions = 2;
    BandwidthResult r;
    ASSERT_TRUE(MeasureBandwidth(*team, &buffers, t.isa, o, &r, &err)) << err.message;
    // Arrays of whole 512-byte blocks, all the pattern's arrays counted in the working set.
    uint64_t array = 96 * 1024 / PatternStreams(pattern) / 512 * 512;
    EXPECT_EQ(r.working_set_bytes, array * PatternStreams(pattern));
    EXPECT_EQ(r.bytes_per_rep, r.working_set_bytes * r.passes);
    EXPECT_EQ(r.chunk_bytes, array);
    EXPECT_GT(r.gbs.best, 0);
  }
  // Scalar: the load kernel only (8-byte loads), no other pattern.
  {
    BandwidthOptions o;
    o.isa = Isa::kScalar;
    o.working_set_bytes = 16 * 1024;
    o.seconds_per_rep = 0.002;
    o.repetitions = 2;
    BandwidthResult r;
    ASSERT_TRUE(MeasureBandwidth(*team, &buffers, t.isa, o, &r, &err)) << err.message;
    EXPECT_EQ(r.bytes_per_rep, r.working_set_bytes * r.passes);
    EXPECT_GT(r.gbs.best, 0);
    o.pattern = BandwidthPattern::kCopy;
    EXPECT_FALSE(MeasureBandwidth(*team, &buffers, t.isa, o, &r, &err));
    EXPECT_EQ(FindBandwidthKernel(BandwidthPattern::kTriad, Isa::kScalar), nullptr);
  }
  // Arrays over 8 MiB: each repetition streams one chunk of every array, round-robin.
  BandwidthOptions o;
  o.pattern = BandwidthPattern::kTriad;
  o.isa = WidestIsa(t.isa);
  o.working_set_bytes = 3 * (24 << 20);
  o.seconds_per_rep = 0.001;
  o.repetitions = 3;
  BandwidthResult r;
  ASSERT_TRUE(MeasureBandwidth(*team, &buffers, t.isa, o, &r, &err)) << err.message;
  EXPECT_EQ(r.working_set_bytes, 3u * (24 << 20));
  EXPECT_EQ(r.passes, 0u);
  EXPECT_GT(r.chunk_bytes, 0u);
  EXPECT_LE(r.chunk_bytes, 24u << 20);
  EXPECT_EQ(r.chunk_bytes % 512, 0u);
  EXPECT_EQ(r.bytes_per_rep, 3 * r.chunk_bytes);  // 24 bytes an element over 3 arrays
  EXPECT_GT(r.gbs.best, 0);
}

// One memory node: the workers' slices follow one another in worker 0's buffer, which the
// 1-thread sweep mapped, and no other worker maps memory of its own.
TEST(BandwidthTest, SharedBuffersLayTheWorkersSlicesInOneBuffer) {
  Topology t = ReadTopology();
  Error err;
  // Two workers, on two CPUs where there are two.
  std::vector<int> cpus{t.cpu_order.front(), t.cpu_order.back()};
  auto team = ThreadTeam::Start(cpus, &err);
  ASSERT_NE(team, nullptr) << err.message;
  BandwidthBuffers buffers;
  buffers.set_shared(true);
  ASSERT_TRUE(buffers.Reserve(*team, 1, 3 * 4096 + 10, &err)) << err.message;
  char* first = buffers.data(0);
  ASSERT_NE(first, nullptr);
  const uint64_t mapped = buffers.size(0);
  EXPECT_GE(mapped, 4u * 4096);
  ASSERT_TRUE(buffers.Reserve(*team, 2, mapped / 2 - 4096, &err)) << err.message;
  EXPECT_EQ(buffers.data(0), first) << "a slice that fits was mapped again";
  EXPECT_EQ(buffers.size(0), mapped);
  EXPECT_EQ(buffers.size(1), 0u) << "worker 1 mapped memory of its own";
  EXPECT_EQ(buffers.data(1) - buffers.data(0), static_cast<long>(mapped / 2 - 4096));
  EXPECT_EQ((buffers.data(1) - buffers.data(0)) % 4096, 0);
  // Both workers stream their slices of it.
  BandwidthOptions o;
  o.pattern = BandwidthPattern::kTriad;
  o.isa = WidestIsa(t.isa);
  o.threads = 2;
  o.working_set_bytes = 2 * (48 << 20);
  o.seconds_per_rep = 0.001;
  o.repetitions = 2;
  BandwidthResult r;
  ASSERT_TRUE(MeasureBandwidth(*team, &buffers, t.isa, o, &r, &err)) << err.message;
  EXPECT_GT(r.gbs.best, 0);
  EXPECT_GE(buffers.size(0), BandwidthBytesPerThread(o.pattern, 2, o.working_set_bytes) * 2);
  EXPECT_EQ(buffers.size(1), 0u);
}

TEST(BandwidthTest, GeometricSizes) {
  std::vector<uint64_t> s = GeometricSizes(16 * 1024, 128 * 1024, 2);
  // 16 KiB x 2^(i/2), rounded to KiB: 22.6 -> 23, 45.3 -> 45, 90.5 -> 91.
  EXPECT_EQ(s, (std::vector<uint64_t>{16384, 23552, 32768, 46080, 65536, 93184, 131072}));
  EXPECT_EQ(GeometricSizes(16 * 1024, 16 * 1024, 4), (std::vector<uint64_t>{16384}));
  EXPECT_TRUE(GeometricSizes(0, 1024, 2).empty());
  EXPECT_TRUE(GeometricSizes(2048, 1024, 2).empty());
}

TEST(LatencyTest, PointerCycleVisitsEveryLineOnce) {
  for (uint64_t lines : {2u, 3u, 17u, 1000u}) {
    std::vector<char> mem(lines * 64);
    BuildPointerCycle(mem.data(), lines, 64, 42);
    std::set<char*> seen;
    char* p = mem.data();
    for (uint64_t i = 0; i < lines; ++i) {
      ASSERT_TRUE(seen.insert(p).second) << "line visited twice after " << i << " steps";
      ASSERT_EQ((p - mem.data()) % 64, 0);
      p = *reinterpret_cast<char**>(p);
    }
    EXPECT_EQ(p, mem.data()) << "not one cycle through " << lines << " lines";
  }
}

// Grown line by line from one working set to the next, shrunk or moved built anew: always one
// cycle through every line.
TEST(LatencyTest, PointerCycleGrowsIntoOneCycle) {
  auto expect_one_cycle = [](char* base, uint64_t lines, int line_bytes) {
    std::set<char*> seen;
    char* p = base;
    for (uint64_t i = 0; i < lines; ++i) {
      ASSERT_TRUE(seen.insert(p).second) << "line visited twice after " << i << " steps";
      ASSERT_EQ((p - base) % line_bytes, 0);
      ASSERT_LT(p, base + lines * line_bytes);
      p = *reinterpret_cast<char**>(p);
    }
    EXPECT_EQ(p, base) << "not one cycle through " << lines << " lines";
  };
  std::vector<char> mem(5000 * 128);
  PointerCycle cycle(7);
  for (uint64_t lines : {2u, 3u, 17u, 1000u, 1000u, 1414u, 5000u, 40u}) {
    cycle.Link(mem.data(), lines, 64);
    expect_one_cycle(mem.data(), lines, 64);
  }
  cycle.Link(mem.data(), 3000, 128);  // another spacing: built anew
  expect_one_cycle(mem.data(), 3000, 128);
  cycle.Link(mem.data() + 64, 2000, 128);  // other memory: built anew
  expect_one_cycle(mem.data() + 64, 2000, 128);
  // Grown, the next line of every line is still random: not the line after it in memory.
  PointerCycle grown(11);
  grown.Link(mem.data(), 100, 64);
  grown.Link(mem.data(), 4000, 64);
  int in_order = 0;
  for (uint64_t i = 0; i < 4000; ++i)
    in_order += *reinterpret_cast<char**>(mem.data() + i * 64) == mem.data() + (i + 1) * 64;
  EXPECT_LT(in_order, 10);
}

TEST(LatencyTest, MeasuresOnWorkerZero) {
  Topology t = ReadTopology();
  Error err;
  auto team = ThreadTeam::Start({t.cpu_order.front()}, &err);
  ASSERT_NE(team, nullptr) << err.message;
  HugeBuffer buffer;
  LatencyOptions o;
  o.working_set_bytes = 64 * 1024 + 50;  // rounded down to whole lines
  o.seconds_per_rep = 0.002;
  LatencyResult r;
  ASSERT_TRUE(MeasureLatency(*team, &buffer, o, &r, &err)) << err.message;
  EXPECT_EQ(r.working_set_bytes, 64u * 1024);
  EXPECT_GT(r.ns.best, 0.1);
  EXPECT_LT(r.ns.best, 1000);
  EXPECT_GE(buffer.size(), 64u * 1024);
}

TEST(ThreadTeamTest, RunsOnEveryWorkerAndSummarizes) {
  Topology t = ReadTopology();
  Error err;
  auto team = ThreadTeam::Start(t.cpu_order, &err);
  ASSERT_NE(team, nullptr) << err.message;
  std::vector<int> ran(team->size(), 0);
  for (int round = 0; round < 50; ++round) {
    team->Run(team->size(), [&](int i) {
      team->Sync();
      ++ran[i];
    });
  }
  for (int r : ran) EXPECT_EQ(r, 50);
  team->Run(1, [&](int i) { ran[i] += 100; });
  EXPECT_EQ(ran[0], 150);
  RepStats s = Summarize({3, 1, 2, 4}, true);
  EXPECT_EQ(s.best, 4);
  EXPECT_EQ(s.worst, 1);
  EXPECT_EQ(s.median, 2.5);
  EXPECT_EQ(s.spread_pct, 75);
  EXPECT_EQ(s.repetitions, 4);
  EXPECT_EQ(Summarize({3, 1, 2}, false).best, 1);
}

// A ceiling is the best repetition; it stands confirmed when another came within 2 % of it,
// however far the slow ones spread (a tick in one 2 ms repetition of a VM): only then is a
// measurement taken again.
TEST(ThreadTeamTest, BestConfirmedByTheRunnerUp) {
  RepStats spread = Summarize({100, 99, 70, 60}, true);  // 40 % spread, best two 1 % apart
  EXPECT_EQ(spread.runner_up, 99);
  EXPECT_TRUE(BestConfirmed(spread));
  RepStats lone = Summarize({100, 95, 94, 93}, true);  // a lone best: 5 % above the rest
  EXPECT_FALSE(BestConfirmed(lone));
  RepStats latency = Summarize({10.0, 10.1, 14}, false);  // lower is better
  EXPECT_EQ(latency.runner_up, 10.1);
  EXPECT_TRUE(BestConfirmed(latency));
  EXPECT_FALSE(BestConfirmed(Summarize({10.0, 10.5}, false)));
  EXPECT_TRUE(BestConfirmed(Summarize({7}, true)));  // one repetition: nothing to confirm
}

}  // namespace
}  // namespace rprof
