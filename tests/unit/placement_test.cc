// Placement on hand-computed cases: a hand-made machine profile (a few ceilings at 1 and 2
// threads, fp64 and fp32, a non-temporal DRAM copy that must not count) and hand-made metrics.
// Every expected number below is worked out in the comment next to it.
#include "roofline/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine_profile.h"

namespace rprof {
namespace {

Ceiling Compute(const std::string& precision, const std::string& isa, const std::string& pattern,
                int threads, double gflops) {
  Ceiling c;
  c.kind = "compute";
  c.name = precision + "_" + isa + "_" + pattern;
  c.isa = isa;
  c.precision = precision;
  c.pattern = pattern;
  c.threads = threads;
  c.value = gflops;
  c.unit = "GFLOP/s";
  c.repetitions = 5;
  return c;
}

Ceiling Bandwidth(const std::string& level, const std::string& pattern, int threads, double gbs) {
  Ceiling c;
  c.kind = "bandwidth";
  c.name = level + "_" + pattern;
  c.level = level;
  c.isa = "avx2";
  c.precision = "fp64";
  c.pattern = pattern;
  c.threads = threads;
  c.working_set_bytes = 1 << 20;
  c.value = gbs;
  c.unit = "GB/s";
  c.repetitions = 5;
  return c;
}

// 1 thread: fp64 peak 100 GFLOP/s (avx2 fma), fp32 peak 200; L1 400, L2 200, L3 100 GB/s, DRAM
// 25 GB/s (triad; load 20; the non-temporal copy's 50 does not count). So the DRAM ridge is
// 100 / 25 = 4 FLOP/B and the L1 ridge 100 / 400 = 0.25 FLOP/B.
// 2 threads: fp64 peak 400, fp32 800; L1 800, DRAM 40 GB/s (copy_nt 90 does not count).
MachineProfile TestProfile() {
  MachineProfile p;
  p.fingerprint = "fp-test";
  p.threads = 2;
  p.mode = "quick";
  p.ceilings = {
      Compute("fp64", "scalar", "add", 1, 10), Compute("fp64", "scalar", "fma", 1, 25),
      Compute("fp64", "avx2", "fma", 1, 100),  Compute("fp64", "avx2", "add", 1, 50),
      Compute("fp32", "avx2", "fma", 1, 200),  Compute("fp32", "scalar", "fma", 1, 50),
      Compute("fp64", "avx2", "fma", 2, 400),  Compute("fp32", "avx2", "fma", 2, 800),
      Bandwidth("l1", "load", 1, 400),         Bandwidth("l1", "copy", 1, 300),
      Bandwidth("l2", "load", 1, 200),         Bandwidth("l3", "load", 1, 100),
      Bandwidth("dram", "load", 1, 20),        Bandwidth("dram", "triad", 1, 25),
      Bandwidth("dram", "copy", 1, 22),        Bandwidth("dram", "copy_nt", 1, 50),
      Bandwidth("l1", "load", 2, 800),         Bandwidth("dram", "triad", 2, 40),
      Bandwidth("dram", "copy_nt", 2, 90),
  };
  return p;
}

Metric M(const std::string& name, std::optional<double> value, Source source = Source::kModel) {
  std::string unit = name == "flops"                ? "FLOP"
                     : name.rfind("bytes_", 0) == 0 ? "B"
                     : name == "gflops"             ? "GFLOP/s"
                     : name.rfind("gbs_", 0) == 0   ? "GB/s"
                                                    : "";
  return Metric{name, value, unit, source, "", value ? "" : "not measured"};
}

RunShape Shape(const std::string& precision = "fp64", int threads = 1) {
  RunShape s;
  s.precision = precision;
  s.threads = threads;
  return s;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const LevelPlacement* FindLevel(const Placement& p, const std::string& level, Source source) {
  for (const LevelPlacement& l : p.levels)
    if (l.level == level && l.source == source) return &l;
  return nullptr;
}

class PlacementTest : public testing::Test {
 protected:
  MachineProfile profile_ = TestProfile();
};

TEST_F(PlacementTest, ExactlyAtTheRidgeIsOnTheComputeSide) {
  // AI = 4e9 / 1e9 = 4 FLOP/B = the DRAM ridge (100 / 25): AI x BW = 100 = the peak. The code
  // says memory_bound = ai < ridge, so the ridge itself is compute-bound, and the binding
  // ceiling is the compute roof. Measured bytes (sim): on the model's compulsory bytes alone a
  // compute side is no compute bound (ModelOnly* below).
  std::vector<Metric> metrics = {M("flops", 4e9, Source::kSim), M("bytes_dram", 1e9, Source::kSim),
                                 M("gflops", 50, Source::kSim)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(p.peak, 100);
  ASSERT_EQ(p.levels.size(), 1u);
  const LevelPlacement& dram = p.levels[0];
  EXPECT_EQ(dram.level, "dram");
  EXPECT_EQ(dram.source, Source::kSim);
  EXPECT_DOUBLE_EQ(dram.ai, 4);
  EXPECT_DOUBLE_EQ(dram.ridge_ai, 4);
  EXPECT_DOUBLE_EQ(dram.bandwidth, 25);
  EXPECT_EQ(dram.bandwidth_ceiling, "dram_triad");
  EXPECT_DOUBLE_EQ(dram.attainable, 100);
  EXPECT_FALSE(dram.memory_bound);
  EXPECT_EQ(p.binding, "compute (fp64_avx2_fma)");
  EXPECT_DOUBLE_EQ(p.attainable, 100);
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 50);  // 50 / 100
  EXPECT_TRUE(Contains(p.verdict, "compute-bound at 50 % of its roof")) << p.verdict;
  EXPECT_TRUE(p.reason.empty()) << p.reason;
}

TEST_F(PlacementTest, JustBelowTheRidgeIsMemoryBound) {
  // AI = 3.9 < 4: attainable = 3.9 x 25 = 97.5, below the peak, on the DRAM roof.
  std::vector<Metric> metrics = {M("flops", 3.9e9), M("bytes_dram", 1e9), M("gflops", 48.75)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_EQ(p.levels.size(), 1u);
  EXPECT_TRUE(p.levels[0].memory_bound);
  EXPECT_DOUBLE_EQ(p.attainable, 3.9 * 25);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_NEAR(*p.percent_of_roof, 50, 1e-9);  // 48.75 / 97.5
}

TEST_F(PlacementTest, MemoryBoundRunIsJudgedOnItsLowestLevelRoof) {
  // triad-like: 2 FLOPs per 24 bytes, AI = 1/12 at every level.
  //   L1:   1/12 x 400 = 33.3 GFLOP/s
  //   DRAM: 1/12 x  25 = 2.0833 GFLOP/s  <- the lowest: binding
  // achieved 1.5 GFLOP/s = 1.5 / (25/12) = 72 % of its roof.
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_l1", 24e9), M("bytes_dram", 24e9),
                                 M("gflops", 1.5)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_EQ(p.levels.size(), 2u);
  const LevelPlacement* l1 = FindLevel(p, "l1", Source::kModel);
  const LevelPlacement* dram = FindLevel(p, "dram", Source::kModel);
  ASSERT_TRUE(l1 && dram);
  EXPECT_DOUBLE_EQ(l1->ai, 2.0 / 24);
  EXPECT_DOUBLE_EQ(l1->bandwidth, 400);
  EXPECT_EQ(l1->bandwidth_ceiling, "l1_load");
  EXPECT_NEAR(l1->attainable, 400.0 / 12, 1e-9);
  EXPECT_DOUBLE_EQ(l1->ridge_ai, 0.25);
  EXPECT_TRUE(l1->memory_bound);
  EXPECT_NEAR(dram->attainable, 25.0 / 12, 1e-12);
  EXPECT_TRUE(dram->memory_bound);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_NEAR(p.attainable, 25.0 / 12, 1e-12);
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_NEAR(*p.percent_of_roof, 1.5 / (2.0 / 24 * 25) * 100, 1e-9);  // 72 %
  EXPECT_NEAR(*p.percent_of_roof, 72, 1e-9);
  EXPECT_TRUE(Contains(p.verdict, "DRAM-bandwidth-bound at 72 % of its roof")) << p.verdict;
}

TEST_F(PlacementTest, ComputeBoundRun) {
  // AI = 1e12 / 1e9 = 1000 FLOP/B: DRAM would give 25000, so the 100 GFLOP/s peak binds.
  // Measured (sim) bytes: only they establish a compute bound.
  std::vector<Metric> metrics = {M("flops", 1e12, Source::kSim), M("bytes_dram", 1e9, Source::kSim),
                                 M("gflops", 80, Source::kSim)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_EQ(p.levels.size(), 1u);
  EXPECT_FALSE(p.levels[0].memory_bound);
  EXPECT_DOUBLE_EQ(p.levels[0].attainable, 100);
  EXPECT_EQ(p.binding, "compute (fp64_avx2_fma)");
  EXPECT_DOUBLE_EQ(p.attainable, 100);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 80);
  EXPECT_TRUE(Contains(p.verdict, "compute-bound at 80 % of its roof")) << p.verdict;
}

// Issue 13: naive matmul at n = 512 by its model alone, 2n^3 FLOPs over 3n^2 x 8 compulsory bytes:
// AI = 2 x 512 / 24 = 42.7 FLOP/B, far right of the DRAM ridge (4), so on compulsory bytes it
// sits on the compute side at 1 / 100 = 1 % of the peak. Compulsory bytes are the least the run
// can move: the real AI may be far lower (under sim it is L2-bound), so no compute bound.
TEST_F(PlacementTest, ModelOnlyComputeSideIsNoComputeBound) {
  double n = 512;
  std::vector<Metric> metrics = {M("flops", 2 * n * n * n), M("bytes_dram", 3 * n * n * 8),
                                 M("gflops", 1)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.bytes_compulsory_only);
  ASSERT_EQ(p.levels.size(), 1u);
  EXPECT_NEAR(p.levels[0].ai, 42.667, 1e-3);
  EXPECT_FALSE(p.levels[0].memory_bound);
  // The structured fields keep what the compulsory bytes say, flagged by bytes_compulsory_only.
  EXPECT_EQ(p.binding, "compute (fp64_avx2_fma)");
  EXPECT_EQ(p.bound, "compute");
  EXPECT_DOUBLE_EQ(p.attainable, 100);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 1);
  EXPECT_EQ(p.verdict.rfind("compute-side by compulsory AI 42.7 (", 0), 0u) << p.verdict;
  EXPECT_FALSE(Contains(p.verdict, "compute-bound")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "model bytes are a lower bound on traffic")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "measured traffic unknown: run --counters sim")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "1 % of the compute roof (1 of 100 GFLOP/s)")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "the real roof may be lower")) << p.verdict;
}

TEST_F(PlacementTest, ModelOnlyAtTheRidgeIsNoComputeBoundEither) {
  std::vector<Metric> metrics = {M("flops", 4e9), M("bytes_dram", 1e9), M("gflops", 50)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.bytes_compulsory_only);
  EXPECT_EQ(p.binding, "compute (fp64_avx2_fma)");
  EXPECT_FALSE(Contains(p.verdict, "compute-bound")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "compute-side by compulsory AI 4 (")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "50 % of the compute roof")) << p.verdict;
}

TEST_F(PlacementTest, ModelOnlyWithoutARateSaysBoth) {
  std::vector<Metric> metrics = {M("flops", 1e12), M("bytes_dram", 1e9)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.bytes_compulsory_only);
  EXPECT_FALSE(Contains(p.verdict, "compute-bound")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "lower bound on traffic")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "no measured rate")) << p.verdict;
}

// Memory-bound on compulsory bytes stays memory-bound with more traffic (the AI only falls), so
// the side is known; the roof may be lower, and the verdict says so.
TEST_F(PlacementTest, ModelOnlyMemoryBoundKeepsItsSideAndSaysTheRoofMayBeLower) {
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_dram", 24e9), M("gflops", 1.5)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.bytes_compulsory_only);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_TRUE(Contains(p.verdict, "DRAM-bandwidth-bound at 72 % of its roof")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "model bytes are a lower bound on traffic")) << p.verdict;
}

// Measured FLOPs (pmu) with no measured bytes: the level still stands on the model's bytes.
TEST_F(PlacementTest, MeasuredFlopsOnCompulsoryBytesAreStillCompulsoryOnly) {
  std::vector<Metric> metrics = {M("flops", 1e12, Source::kPmu), M("gflops", 5, Source::kPmu),
                                 M("flops", 1e12), M("bytes_dram", 1e9)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.bytes_compulsory_only);
  EXPECT_EQ(p.verdict.rfind("compute-side by compulsory AI", 0), 0u) << p.verdict;
}

TEST_F(PlacementTest, MeasuredBytesAreNotCompulsoryOnly) {
  std::vector<Metric> metrics = {M("flops", 1e12),
                                 M("bytes_dram", 1e9),
                                 M("gflops", 80),
                                 M("flops", 1e12, Source::kSim),
                                 M("bytes_dram", 2e9, Source::kSim),
                                 M("gflops", 80, Source::kSim)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_FALSE(p.bytes_compulsory_only);
  EXPECT_TRUE(Contains(p.verdict, "compute-bound at 80 % of its roof")) << p.verdict;
  EXPECT_FALSE(Contains(p.verdict, "lower bound")) << p.verdict;
}

TEST_F(PlacementTest, NoAchievedRateStillPlacesButSaysSo) {
  std::vector<Metric> metrics = {M("flops", 1e12), M("bytes_dram", 1e9)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_FALSE(p.achieved.has_value());
  EXPECT_FALSE(p.percent_of_roof.has_value());
  EXPECT_TRUE(Contains(p.verdict, "no measured rate")) << p.verdict;
}

TEST_F(PlacementTest, ZeroFlopsIsJudgedByBandwidth) {
  // A copy: no FLOPs, 10 GB/s moved. The DRAM roof is 25 GB/s (triad; the 50 GB/s
  // non-temporal copy does not count): 10 / 25 = 40 %.
  std::vector<Metric> metrics = {M("flops", 0), M("bytes_dram", 16e9), M("gflops", 0),
                                 M("gbs_dram", 10)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 40);
  EXPECT_TRUE(Contains(p.verdict, "bandwidth")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "no floating-point work")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "40 %")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "DRAM")) << p.verdict;
  EXPECT_TRUE(p.levels.empty()) << "no FLOP/byte intensity for a run without FLOPs";
}

TEST_F(PlacementTest, ZeroFlopsPrefersTheOutermostLevelWithARate) {
  // Only an L2 rate known: judged against the L2 roof, 50 / 200 = 25 %.
  std::vector<Metric> metrics = {M("flops", 0), M("gbs_l2", 50)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "l2 bandwidth (l2_load)");
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 25);
  EXPECT_TRUE(Contains(p.verdict, "L2 bandwidth roof")) << p.verdict;
}

TEST_F(PlacementTest, MissingBytesIsNotPlacedAndSaysBytes) {
  std::vector<Metric> metrics = {M("flops", 2e9), M("gflops", 1.5)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "bytes")) << p.reason;
  EXPECT_TRUE(Contains(p.reason, "arithmetic intensity")) << p.reason;
  EXPECT_TRUE(p.levels.empty());
  EXPECT_TRUE(p.binding.empty());
  EXPECT_FALSE(p.percent_of_roof.has_value());
}

TEST_F(PlacementTest, AbsentByteValueCountsAsMissing) {
  // A byte metric that exists but could not be measured (nullopt, with its reason) is no AI.
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_dram", std::nullopt, Source::kPmu)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "bytes")) << p.reason;
}

TEST_F(PlacementTest, MissingFlopsIsNotPlacedAndSaysFlops) {
  std::vector<Metric> metrics = {M("bytes_dram", 24e9), M("gbs_dram", 10)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "FLOP")) << p.reason;
  EXPECT_TRUE(p.levels.empty());
}

TEST_F(PlacementTest, NoCeilingForTheThreadCount) {
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_dram", 24e9), M("gflops", 1)};
  Placement p = PlaceRun(metrics, Shape("fp64", 4), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "4 thread")) << p.reason;
  EXPECT_TRUE(Contains(p.reason, "--threads 4")) << p.reason;
  EXPECT_TRUE(p.compute_ceiling.empty());
}

TEST_F(PlacementTest, Fp32RunIsJudgedAgainstFp32Ceilings) {
  // fp32 peak 200: AI 1000 is compute-bound at 100 / 200 = 50 %; against the fp64 peak (100)
  // it would have been 100 %.
  std::vector<Metric> metrics = {M("flops", 1e12), M("bytes_dram", 1e9), M("gflops", 100)};
  Placement fp32 = PlaceRun(metrics, Shape("fp32"), profile_);
  ASSERT_TRUE(fp32.placed) << fp32.reason;
  EXPECT_EQ(fp32.compute_ceiling, "fp32_avx2_fma");
  EXPECT_DOUBLE_EQ(fp32.peak, 200);
  EXPECT_EQ(fp32.binding, "compute (fp32_avx2_fma)");
  EXPECT_DOUBLE_EQ(*fp32.percent_of_roof, 50);

  Placement fp64 = PlaceRun(metrics, Shape("fp64"), profile_);
  EXPECT_EQ(fp64.compute_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(fp64.peak, 100);
  EXPECT_DOUBLE_EQ(*fp64.percent_of_roof, 100);

  // The ridge moves with the precision: 200 / 25 = 8 for fp32.
  ASSERT_EQ(fp32.levels.size(), 1u);
  EXPECT_DOUBLE_EQ(fp32.levels[0].ridge_ai, 8);
}

TEST_F(PlacementTest, NoPrecisionTakesTheBestOfBoth) {
  std::vector<Metric> metrics = {M("flops", 1e12), M("bytes_dram", 1e9)};
  Placement p = PlaceRun(metrics, Shape(""), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp32_avx2_fma");
  EXPECT_DOUBLE_EQ(p.peak, 200);
}

TEST_F(PlacementTest, OneThreadRunNeverAgainstTwoThreadCeilings) {
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_l1", 24e9), M("bytes_dram", 24e9),
                                 M("gflops", 1)};
  Placement one = PlaceRun(metrics, Shape("fp64", 1), profile_);
  ASSERT_TRUE(one.placed) << one.reason;
  EXPECT_DOUBLE_EQ(one.peak, 100);  // not 400
  for (const LevelPlacement& l : one.levels) {
    SCOPED_TRACE(l.level);
    EXPECT_NE(l.bandwidth, 800);
    EXPECT_NE(l.bandwidth, 40);
  }
  EXPECT_DOUBLE_EQ(FindLevel(one, "dram", Source::kModel)->bandwidth, 25);
  EXPECT_DOUBLE_EQ(FindLevel(one, "l1", Source::kModel)->bandwidth, 400);

  // The same run on two threads is judged on the two-thread roofs (DRAM 40, L1 800, peak 400).
  Placement two = PlaceRun(metrics, Shape("fp64", 2), profile_);
  ASSERT_TRUE(two.placed) << two.reason;
  EXPECT_DOUBLE_EQ(two.peak, 400);
  EXPECT_DOUBLE_EQ(FindLevel(two, "dram", Source::kModel)->bandwidth, 40);
  EXPECT_DOUBLE_EQ(FindLevel(two, "l1", Source::kModel)->bandwidth, 800);
  EXPECT_NEAR(two.attainable, 40.0 / 12, 1e-12);
}

TEST_F(PlacementTest, LevelWithoutACeilingAtTheThreadCountIsLeftOut) {
  // Two threads: the profile has no L2 ceiling there, so the L2 bytes give no level.
  std::vector<Metric> metrics = {M("flops", 2e9), M("bytes_l2", 24e9), M("bytes_dram", 24e9)};
  Placement p = PlaceRun(metrics, Shape("fp64", 2), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(FindLevel(p, "l2", Source::kModel), nullptr);
  EXPECT_NE(FindLevel(p, "dram", Source::kModel), nullptr);
}

TEST_F(PlacementTest, MeasuredSourceBindsBeforeTheModel) {
  // Model: AI 1/12 at DRAM -> 2.08 GFLOP/s. Sim: AI 2 at DRAM -> 2 x 25 = 50 GFLOP/s. The model
  // is lower, but the binding ceiling is read from the measured (sim) bytes.
  std::vector<Metric> metrics = {
      M("flops", 2e9, Source::kModel),    M("bytes_dram", 24e9, Source::kModel),
      M("gflops", 10, Source::kModel),    M("flops", 2e9, Source::kSim),
      M("bytes_dram", 1e9, Source::kSim), M("gflops", 20, Source::kSim)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_NE(FindLevel(p, "dram", Source::kModel), nullptr) << "both views are kept";
  const LevelPlacement* sim = FindLevel(p, "dram", Source::kSim);
  ASSERT_NE(sim, nullptr);
  EXPECT_DOUBLE_EQ(sim->ai, 2);
  EXPECT_DOUBLE_EQ(sim->attainable, 50);
  EXPECT_DOUBLE_EQ(p.attainable, 50);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  // The achieved rate is the measured one too: 20 / 50 = 40 %.
  EXPECT_EQ(p.achieved_source, Source::kSim);
  EXPECT_DOUBLE_EQ(*p.achieved, 20);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 40);
}

TEST_F(PlacementTest, PmuBindsBeforeSim) {
  std::vector<Metric> metrics = {M("flops", 2e9, Source::kSim), M("bytes_dram", 1e9, Source::kSim),
                                 M("flops", 2e9, Source::kPmu), M("bytes_dram", 4e9, Source::kPmu)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_DOUBLE_EQ(p.attainable, 0.5 * 25);  // pmu AI 0.5
}

// RunShapeOf: the roof of the run's own work. A program (no declared precision) with FLOPs
// counted per precision, and its CPU and wall time.
RunRecord Program(std::vector<Metric> metrics) {
  RunRecord run;
  run.target_kind = "executable";
  run.target = "./prog";
  run.metrics = std::move(metrics);
  return run;
}

Metric Clock(const std::string& name, double value) {
  return Metric{name, value, name == "threads" ? "count" : "s", Source::kClock, "", ""};
}

TEST_F(PlacementTest, Fp64OnlyProgramIsPlacedAgainstTheFp64Roof) {
  // sim: every FLOP fp64. Without a declared precision the best of both would be fp32's 200.
  RunRecord run = Program({M("flops", 1e12, Source::kSim), M("flops_dp", 1e12, Source::kSim),
                           M("flops_sp", 0, Source::kSim), M("bytes_dram", 1e9, Source::kSim),
                           M("gflops", 50, Source::kSim)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.precision, "fp64");
  EXPECT_TRUE(Contains(shape.precision_note, "100 % of FLOPs, sim")) << shape.precision_note;
  Placement p = PlaceRun(run.metrics, shape, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(p.peak, 100);
  EXPECT_EQ(p.precision, "fp64");
  EXPECT_DOUBLE_EQ(p.levels[0].ridge_ai, 4);  // 100 / 25, not fp32's 8
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 50);
}

TEST_F(PlacementTest, Fp32OnlyProgramIsPlacedAgainstTheFp32Roof) {
  RunRecord run = Program({M("flops", 1e12, Source::kSim), M("flops_dp", 0, Source::kSim),
                           M("flops_sp", 1e12, Source::kSim), M("bytes_dram", 1e9, Source::kSim)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.precision, "fp32");
  Placement p = PlaceRun(run.metrics, shape, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp32_avx2_fma");
  EXPECT_DOUBLE_EQ(p.peak, 200);
}

TEST_F(PlacementTest, MeasuredSplitComesBeforeTheModelsAndADeclaredPrecisionBeforeBoth) {
  // pmu says fp32, the model fp64: measured first.
  RunRecord run = Program({M("flops_dp", 1e9, Source::kModel), M("flops_sp", 0, Source::kModel),
                           M("flops_dp", 0, Source::kPmu), M("flops_sp", 1e9, Source::kPmu)});
  EXPECT_EQ(RunShapeOf(run, profile_).precision, "fp32");
  // A source with only one of the two counts says nothing about the split.
  run.metrics = {M("flops_dp", 1e9, Source::kPmu), M("flops_sp", std::nullopt, Source::kPmu)};
  RunShape unknown = RunShapeOf(run, profile_);
  EXPECT_EQ(unknown.precision, "");
  EXPECT_TRUE(Contains(unknown.precision_note, "not known")) << unknown.precision_note;
  // A kernel's declared precision wins.
  run.target_kind = "builtin";
  run.precision = "fp64";
  run.metrics = {M("flops_dp", 0, Source::kSim), M("flops_sp", 1e9, Source::kSim)};
  EXPECT_EQ(RunShapeOf(run, profile_).precision, "fp64");
}

TEST_F(PlacementTest, MixedWorkGetsAWeightedRoofAndSaysSo) {
  // 60 % fp64, 40 % fp32: at best 0.6 / 100 + 0.4 / 200 = 0.008 ns per FLOP: 125 GFLOP/s,
  // between the two peaks; the DRAM ridge 125 / 25 = 5.
  RunRecord run = Program({M("flops", 1e12, Source::kSim), M("flops_dp", 6e11, Source::kSim),
                           M("flops_sp", 4e11, Source::kSim), M("bytes_dram", 1e9, Source::kSim),
                           M("gflops", 100, Source::kSim)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.precision, "mixed");
  EXPECT_DOUBLE_EQ(shape.fp64_share, 0.6);
  Placement p = PlaceRun(run.metrics, shape, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_NEAR(p.peak, 125, 1e-9);
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma+fp32_avx2_fma");
  EXPECT_NEAR(p.levels[0].ridge_ai, 5, 1e-12);
  EXPECT_NEAR(*p.percent_of_roof, 80, 1e-9);  // 100 / 125
  EXPECT_TRUE(Contains(p.precision_note, "mixed (60 % of FLOPs fp64, 40 % fp32, sim)"))
      << p.precision_note;
  EXPECT_TRUE(Contains(p.precision_note, "weighted by FLOP share")) << p.precision_note;
  // No instruction mix measured: no one-precision ISA roof claimed, and the note says which
  // roof was assumed (issue 24; before, it said nothing).
  EXPECT_FALSE(p.isa_measured);
  EXPECT_TRUE(p.isa_roof_ceiling.empty()) << p.isa_roof_ceiling;
  EXPECT_TRUE(Contains(p.isa_note, "not measured")) << p.isa_note;
  EXPECT_TRUE(Contains(p.isa_note, "fp64_avx2_fma+fp32_avx2_fma 125")) << p.isa_note;

  // Under 1 % of one precision is no mix.
  run.metrics = {M("flops_dp", 995, Source::kSim), M("flops_sp", 5, Source::kSim)};
  EXPECT_EQ(RunShapeOf(run, profile_).precision, "fp64");
}

TEST_F(PlacementTest, MixedWorkWithoutOnePrecisionsCeilingIsNotPlaced) {
  profile_.ceilings.erase(
      std::remove_if(profile_.ceilings.begin(), profile_.ceilings.end(),
                     [](const Ceiling& c) { return c.precision == "fp32" && c.kind == "compute"; }),
      profile_.ceilings.end());
  RunShape shape = Shape("mixed");
  shape.fp64_share = 0.5;
  Placement p = PlaceRun({M("flops", 1e9), M("bytes_dram", 1e9)}, shape, profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "no fp32 compute ceiling")) << p.reason;
}

TEST_F(PlacementTest, TwoThreadProgramIsPlacedAgainstTheTwoThreadRoof) {
  // 2 s of CPU in 1.03 s of wall time: 1.94, rounded 2.
  RunRecord run = Program({M("flops_dp", 2e9, Source::kSim), M("flops_sp", 0, Source::kSim),
                           M("flops", 2e9, Source::kSim), M("bytes_dram", 24e9, Source::kSim),
                           Clock("time_s", 1.03), Clock("cpu_time_s", 2)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.threads, 2);
  EXPECT_EQ(shape.threads_note, "2 threads (CPU time / wall time = 1.94)");
  Placement p = PlaceRun(run.metrics, shape, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_DOUBLE_EQ(p.peak, 400);
  EXPECT_EQ(p.threads, 2);
  EXPECT_DOUBLE_EQ(FindLevel(p, "dram", Source::kSim)->bandwidth, 40);

  // A mostly waiting program is 1 thread, never 0.
  run.metrics = {Clock("time_s", 1), Clock("cpu_time_s", 0.01)};
  EXPECT_EQ(RunShapeOf(run, profile_).threads, 1);
  // No CPU time: 1, said.
  run.metrics = {Clock("time_s", 1)};
  EXPECT_EQ(RunShapeOf(run, profile_).threads, 1);
  EXPECT_TRUE(Contains(RunShapeOf(run, profile_).threads_note, "assumed"));
}

TEST_F(PlacementTest, DeclaredThreadsComeBeforeCpuTime) {
  RunRecord run = Program({Clock("time_s", 1), Clock("cpu_time_s", 1), Clock("threads", 2)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.threads, 2);
  EXPECT_EQ(shape.threads_note, "2 threads (--threads)");
}

TEST_F(PlacementTest, ThreadCountTheProfileLacksMovesToTheNearestAndSaysSo) {
  // 8 threads measured; the profile has 1 and 2: placed on 2, never silently.
  RunRecord run = Program({Clock("time_s", 1), Clock("cpu_time_s", 7.9)});
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.threads, 2);
  EXPECT_TRUE(Contains(shape.threads_note, "8 threads (CPU time / wall time = 7.90)"))
      << shape.threads_note;
  EXPECT_TRUE(Contains(shape.threads_note, "placed against the 2-thread roof, the nearest"))
      << shape.threads_note;
  EXPECT_TRUE(Contains(shape.threads_note, "rprof machine measure --threads 8"))
      << shape.threads_note;
  // A profile of 1 and 16 threads: a 2-thread program goes to 1, and says so.
  for (Ceiling& c : profile_.ceilings)
    if (c.threads == 2) c.threads = 16;
  run.metrics = {Clock("time_s", 1), Clock("cpu_time_s", 2)};
  shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.threads, 1);
  EXPECT_TRUE(Contains(shape.threads_note, "placed against the 1-thread roof"))
      << shape.threads_note;
}

TEST_F(PlacementTest, KernelThreadsComeFromItsParameterExactly) {
  RunRecord run;
  run.target_kind = "builtin";
  run.precision = "fp64";
  run.params = {{"n", "1000"}, {"threads", "2"}};
  RunShape shape = RunShapeOf(run, profile_);
  EXPECT_EQ(shape.threads, 2);
  EXPECT_EQ(shape.threads_note, "2 threads (the kernel's threads parameter)");
  // A count the profile lacks stays as it is: not placed, with the command that measures it.
  run.params = {{"threads", "4"}};
  EXPECT_EQ(RunShapeOf(run, profile_).threads, 4);
  run.params = {};
  EXPECT_EQ(RunShapeOf(run, profile_).threads, 1);
}

// A metric of marker region `region`, as MarkerMetrics and AddDerivedMetrics make them.
Metric R(const std::string& region, const std::string& name, std::optional<double> value,
         Source source = Source::kModel) {
  Metric m = M(name, value, source);
  m.region = region;
  if (source == Source::kClock) m.unit = name == "time_s" ? "s" : "count";
  return m;
}

// --counters pmu on a machine without FLOP events: the whole run has no FLOPs, its region
// "triad" declared 2e9 FLOPs and 24e9 bytes (AI 1/12) and ran 2 s of wall time (4 s summed
// over threads: not what the rate uses), so 1 GFLOP/s against the DRAM roof 25 / 12 = 2.083:
// 48 % of it.
std::vector<Metric> PmuRunWithRegions() {
  return {M("time_s", 3, Source::kClock),
          M("PAPI_TOT_INS", std::nullopt, Source::kPmu),
          R("triad", "time_s", 2, Source::kClock),
          R("triad", "thread_time_s", 4, Source::kClock),
          R("triad", "threads", 1, Source::kClock),
          R("triad", "perf::TASK-CLOCK", 2e9, Source::kPmu),
          R("triad", "flops", 2e9),
          R("triad", "bytes_dram", 24e9),
          R("triad", "gflops", 1),
          R("init", "time_s", 0.5, Source::kClock),
          R("init", "perf::TASK-CLOCK", 5e8, Source::kPmu)};
}

TEST_F(PlacementTest, RegionWithDeclaredWorkIsPlacedUnderPmu) {
  std::vector<Metric> metrics = PmuRunWithRegions();
  EXPECT_FALSE(PlaceRun(metrics, Shape(), profile_).placed);  // the whole run counted no FLOPs
  Placement p = PlaceRegion(metrics, "triad", Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma");
  ASSERT_EQ(p.levels.size(), 1u);
  EXPECT_EQ(p.levels[0].level, "dram");
  EXPECT_EQ(p.levels[0].source, Source::kModel);
  EXPECT_DOUBLE_EQ(p.levels[0].ai, 2.0 / 24);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  ASSERT_TRUE(p.achieved);
  EXPECT_DOUBLE_EQ(*p.achieved, 1);
  EXPECT_NEAR(*p.percent_of_roof, 48, 1e-9);  // 1 / (25 / 12)
  EXPECT_TRUE(Contains(p.verdict, "DRAM-bandwidth-bound at 48 % of its roof")) << p.verdict;
}

TEST_F(PlacementTest, RegionWithoutFlopsSaysHowToDeclareThem) {
  Placement p = PlaceRegion(PmuRunWithRegions(), "init", Shape(), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(Contains(p.reason, "no FLOP count is known for this region")) << p.reason;
  EXPECT_TRUE(Contains(p.reason, "rprof_region_declare")) << p.reason;
}

// Issue 38: a region with bytes and a declared zero (or no) FLOPs is not a bandwidth bound at
// 0 % of its roof: it is not placed, and says how to count its FLOPs.
TEST_F(PlacementTest, RegionWithBytesAndNoFlopsCountedIsNotPlaced) {
  std::vector<Metric> metrics = PmuRunWithRegions();
  metrics.push_back(R("copy", "time_s", 1, Source::kClock));
  metrics.push_back(R("copy", "bytes_dram", 1e6));
  metrics.push_back(R("copy", "gbs_dram", 1e-3));
  Placement absent = PlaceRegion(metrics, "copy", Shape(), profile_);
  EXPECT_FALSE(absent.placed);
  EXPECT_TRUE(Contains(absent.reason, "no FLOPs counted")) << absent.reason;
  EXPECT_TRUE(Contains(absent.reason, "rprof_region_declare(\"copy\", flops, bytes)"))
      << absent.reason;
  metrics.push_back(R("copy", "flops", 0));  // declared 0: the 0 % came from here
  Placement zero = PlaceRegion(metrics, "copy", Shape(), profile_);
  EXPECT_FALSE(zero.placed) << zero.verdict;
  EXPECT_FALSE(zero.percent_of_roof);
  EXPECT_TRUE(zero.verdict.empty()) << zero.verdict;
  EXPECT_TRUE(Contains(zero.reason, "no FLOPs counted")) << zero.reason;
  RunShape python = Shape();
  python.python = true;
  EXPECT_TRUE(Contains(PlaceRegion(metrics, "copy", python, profile_).reason,
                       "rprof.region(\"copy\", flops=...)"));
  // A zero that sim counted is data movement, measured: placed by its bandwidth.
  metrics.push_back(R("copy", "flops", 0, Source::kSim));
  metrics.push_back(R("copy", "bytes_dram", 2e10, Source::kSim));
  metrics.push_back(R("copy", "gbs_dram", 20, Source::kSim));
  Placement counted = PlaceRegion(metrics, "copy", Shape(), profile_);
  ASSERT_TRUE(counted.placed) << counted.reason;
  EXPECT_TRUE(Contains(counted.verdict, "no floating-point work")) << counted.verdict;
}

// Issue 38: a hot function's time is its samples; too few of them are no time, so no rate and
// no placement, whatever sim counted.
TEST_F(PlacementTest, FunctionWithTooFewSamplesIsNotPlaced) {
  std::vector<Metric> metrics = {R("fn:f", "time_s", std::nullopt, Source::kClock),
                                 R("fn:f", "flops", 2e9, Source::kSim),
                                 R("fn:f", "bytes_dram", 24e9, Source::kSim)};
  metrics[0].note = "12 samples: too few for a rate (under 30): 12 cpu-clock samples x 0.5 ms";
  Placement p = PlaceRegion(metrics, "fn:f", Shape(), profile_);
  EXPECT_FALSE(p.placed);
  EXPECT_TRUE(p.levels.empty());
  EXPECT_EQ(p.reason.rfind("12 samples: too few for a rate", 0), 0u) << p.reason;
  // With a time it is placed.
  metrics[0].value = 2;
  metrics.push_back(R("fn:f", "gflops", 1, Source::kSim));
  EXPECT_TRUE(PlaceRegion(metrics, "fn:f", Shape(), profile_).placed);
}

TEST_F(PlacementTest, RegionIsPlacedOnItsOwnMetricsOnly) {
  // The whole run's sim L1 bytes (AI 0.01, far lower) and another region's must not reach it.
  std::vector<Metric> metrics = PmuRunWithRegions();
  metrics.push_back(M("flops", 1e9, Source::kSim));
  metrics.push_back(M("bytes_l1", 1e11, Source::kSim));
  metrics.push_back(R("other", "flops", 1e12));
  metrics.push_back(R("other", "bytes_dram", 1e9));
  Placement triad = PlaceRegion(metrics, "triad", Shape(), profile_);
  ASSERT_TRUE(triad.placed) << triad.reason;
  ASSERT_EQ(triad.levels.size(), 1u);
  EXPECT_DOUBLE_EQ(triad.levels[0].ai, 2.0 / 24);
  Placement other = PlaceRegion(metrics, "other", Shape(), profile_);
  ASSERT_TRUE(other.placed) << other.reason;
  EXPECT_EQ(other.binding, "compute (fp64_avx2_fma)");  // AI 1000
  EXPECT_FALSE(other.achieved);                         // no time_s: no rate
  EXPECT_FALSE(PlaceRegion(metrics, "absent", Shape(), profile_).placed);
}

TEST_F(PlacementTest, RegionRunByTwoThreadsIsJudgedOnTheTwoThreadRoof) {
  // Two threads' work over one wall time: the 2-thread roofs (fp64 400, DRAM 40 GB/s).
  std::vector<Metric> metrics = PmuRunWithRegions();
  for (Metric& m : metrics)
    if (m.region == "triad" && m.name == "threads") m.value = 2;
  Placement p = PlaceRegion(metrics, "triad", Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_DOUBLE_EQ(p.peak, 400);
  EXPECT_DOUBLE_EQ(p.attainable, 40.0 / 12);
  // Without 2-thread ceilings it is not placed, and says which to measure.
  profile_.ceilings.erase(std::remove_if(profile_.ceilings.begin(), profile_.ceilings.end(),
                                         [](const Ceiling& c) { return c.threads == 2; }),
                          profile_.ceilings.end());
  Placement none = PlaceRegion(metrics, "triad", Shape(), profile_);
  EXPECT_FALSE(none.placed);
  EXPECT_TRUE(Contains(none.reason, "--threads 2")) << none.reason;
}

TEST(RegionNames, EveryMarkerRegionOnceSorted) {
  EXPECT_EQ(RegionNames(PmuRunWithRegions()), (std::vector<std::string>{"init", "triad"}));
  EXPECT_TRUE(RegionNames({M("flops", 1)}).empty());
}

TEST(BandwidthRoof, IgnoresNonTemporalCopy) {
  MachineProfile profile = TestProfile();
  const Ceiling* dram = BandwidthRoof(profile, "dram", 1);
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->name, "dram_triad");  // 25 GB/s, not dram_copy_nt's 50
  EXPECT_DOUBLE_EQ(dram->value, 25);
  const Ceiling* dram2 = BandwidthRoof(profile, "dram", 2);
  ASSERT_NE(dram2, nullptr);
  EXPECT_EQ(dram2->name, "dram_triad");  // 40, not 90
  const Ceiling* l1 = BandwidthRoof(profile, "l1", 1);
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(l1->name, "l1_load");  // the best of load 400 and copy 300

  // A level with only a non-temporal ceiling has no roof at all.
  MachineProfile nt_only;
  nt_only.ceilings = {Bandwidth("dram", "copy_nt", 1, 50)};
  EXPECT_EQ(BandwidthRoof(nt_only, "dram", 1), nullptr);
}

TEST(BandwidthRoof, MatchesLevelAndThreadsExactly) {
  MachineProfile profile = TestProfile();
  EXPECT_EQ(BandwidthRoof(profile, "l4", 1), nullptr);
  EXPECT_EQ(BandwidthRoof(profile, "l2", 2), nullptr);
  EXPECT_EQ(BandwidthRoof(profile, "l1", 3), nullptr);
  ASSERT_NE(BandwidthRoof(profile, "l3", 1), nullptr);
  EXPECT_EQ(BandwidthRoof(profile, "l3", 1)->name, "l3_load");
}

// Like with like. A profile whose bandwidth ceilings carry both conventions, as `machine measure`
// stores them: compulsory GB/s (value) and the pattern's bytes per element in each convention.
//   DRAM: load 20 (8/8 -> 20), copy 18 (16/24 -> 27), triad 21 (24/32 -> 28), copy_nt 30
//         (16/16, never a roof). Compulsory roof: triad 21; traffic roof: triad 28.
//   L3:   load 100 (8/8), triad 90 (24/32 -> 120). L1: load 400, triad 300 (24/24 at L1).
//   Levels measured: L1 32 KiB, L2 1 MiB, L3 8 MiB. fp64 peak 100 GFLOP/s, spread 2 %.
Ceiling Convention(const std::string& level, const std::string& pattern, double gbs,
                   int bytes_per_element, int traffic_bytes_per_element) {
  Ceiling c = Bandwidth(level, pattern, 1, gbs);
  c.bytes_per_element = bytes_per_element;
  c.traffic_bytes_per_element = traffic_bytes_per_element;
  c.spread_pct = 2;
  return c;
}

MachineProfile ConventionProfile() {
  MachineProfile p;
  p.fingerprint = "fp-conventions";
  p.mode = "quick";
  p.ceilings = {
      Compute("fp64", "avx2", "fma", 1, 100),  Compute("fp32", "avx2", "fma", 1, 200),
      Convention("l1", "load", 400, 8, 8),     Convention("l1", "triad", 300, 24, 24),
      Convention("l3", "load", 100, 8, 8),     Convention("l3", "triad", 90, 24, 32),
      Convention("dram", "load", 20, 8, 8),    Convention("dram", "copy", 18, 16, 24),
      Convention("dram", "triad", 21, 24, 32), Convention("dram", "copy_nt", 30, 16, 16),
  };
  p.levels = {{"l1", 32768, 32768, 1.5, 400, 0, ""},
              {"l2", 1 << 20, 1 << 20, 4, 200, 0, ""},
              {"l3", 32 << 20, 8 << 20, 20, 100, 0, ""},
              {"dram", 0, 0, 100, 20, 0, ""}};
  return p;
}

TEST(Conventions, CeilingValueConvertsByBytesPerElement) {
  Ceiling triad = Convention("dram", "triad", 21, 24, 32);
  EXPECT_DOUBLE_EQ(CeilingValue(triad, ByteConvention::kCompulsory), 21);
  EXPECT_DOUBLE_EQ(CeilingValue(triad, ByteConvention::kTraffic), 28);  // 21 x 32 / 24
  // Factors not known (a compute ceiling, a hand-made one): the value stands for both.
  Ceiling fma = Compute("fp64", "avx2", "fma", 1, 100);
  EXPECT_DOUBLE_EQ(CeilingValue(fma, ByteConvention::kTraffic), 100);
  EXPECT_EQ(ConventionOf(Source::kModel), ByteConvention::kCompulsory);
  EXPECT_EQ(ConventionOf(Source::kSim), ByteConvention::kTraffic);
  EXPECT_EQ(ConventionOf(Source::kPmu), ByteConvention::kTraffic);
}

TEST(Conventions, BandwidthRoofIsTheBestInTheAskedConvention) {
  MachineProfile profile = ConventionProfile();
  const Ceiling* compulsory = BandwidthRoof(profile, "dram", 1, ByteConvention::kCompulsory);
  const Ceiling* traffic = BandwidthRoof(profile, "dram", 1, ByteConvention::kTraffic);
  ASSERT_TRUE(compulsory && traffic);
  EXPECT_EQ(compulsory->name, "dram_triad");  // 21 > 20 > 18
  EXPECT_EQ(traffic->name, "dram_triad");     // 28 > 27 > 20; copy_nt's 30 never counts
  // At L3 the traffic roof is triad's 120, the compulsory one load's 100.
  EXPECT_EQ(BandwidthRoof(profile, "l3", 1, ByteConvention::kCompulsory)->name, "l3_load");
  EXPECT_EQ(BandwidthRoof(profile, "l3", 1, ByteConvention::kTraffic)->name, "l3_triad");
}

TEST(Conventions, SimTriadAtDramSizeIsHeldAgainstTrafficCeilings) {
  // triad n = 8e6 (192 MB), running at the DRAM triad ceiling: 24 B compulsory per element at
  // 21 GB/s, so 2 FLOPs per 24/21 ns: 1.75 GFLOP/s. sim counts 32 B per element (the read for
  // ownership of a): AI = 2/32, against the traffic roof 28: attainable 1.75, 100 %. Against the
  // compulsory 21 it would have been 2/32 x 21 = 1.3125: 133 %, the figure users saw.
  const double n = 8e6;
  std::vector<Metric> metrics = {
      M("flops", 2 * n, Source::kSim), M("bytes_dram", 32 * n, Source::kSim),
      M("gflops", 1.75, Source::kSim), M("flops", 2 * n),
      M("bytes_dram", 24 * n),         M("gflops", 1.75)};
  Placement p = PlaceRun(metrics, Shape(), ConventionProfile());
  ASSERT_TRUE(p.placed) << p.reason;
  const LevelPlacement* sim = FindLevel(p, "dram", Source::kSim);
  const LevelPlacement* model = FindLevel(p, "dram", Source::kModel);
  ASSERT_TRUE(sim && model);
  EXPECT_EQ(sim->convention, ByteConvention::kTraffic);
  EXPECT_DOUBLE_EQ(sim->bandwidth, 28);
  EXPECT_EQ(sim->bandwidth_ceiling, "dram_triad");
  EXPECT_NEAR(sim->attainable, 1.75, 1e-12);
  // The model's compulsory bytes against the compulsory roof: the same attainable.
  EXPECT_EQ(model->convention, ByteConvention::kCompulsory);
  EXPECT_DOUBLE_EQ(model->bandwidth, 21);
  EXPECT_NEAR(model->attainable, 1.75, 1e-12);
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_LE(*p.percent_of_roof, 105);
  EXPECT_NEAR(*p.percent_of_roof, 100, 1e-9);
  EXPECT_EQ(p.note, "");
}

TEST(Conventions, ModelRunIsHeldAgainstCompulsoryCeilings) {
  // The same triad with the model's bytes alone: 2 / 24 x 21 = 1.75 GFLOP/s attainable; a run
  // at 1.4 GFLOP/s is at 80 %.
  const double n = 8e6;
  std::vector<Metric> metrics = {M("flops", 2 * n), M("bytes_dram", 24 * n), M("gflops", 1.4)};
  Placement p = PlaceRun(metrics, Shape(), ConventionProfile());
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_EQ(p.levels.size(), 1u);
  EXPECT_EQ(p.levels[0].convention, ByteConvention::kCompulsory);
  EXPECT_DOUBLE_EQ(p.levels[0].bandwidth, 21);
  EXPECT_NEAR(*p.percent_of_roof, 80, 1e-9);
  EXPECT_EQ(p.note, "");
}

TEST(Conventions, SimCopyWithoutFlopsIsJudgedOnTrafficGbs) {
  // copy n = 8e6 at the DRAM copy ceiling: 18 GB/s compulsory, 27 GB/s of traffic (sim: 24 B
  // per element). Against the traffic roof 28: 96.4 %; against compulsory 21 it was 129 %.
  std::vector<Metric> metrics = {M("flops", 0, Source::kSim), M("gbs_dram", 27, Source::kSim),
                                 M("flops", 0), M("gbs_dram", 18)};
  Placement p = PlaceRun(metrics, Shape(), ConventionProfile());
  ASSERT_TRUE(p.placed) << p.reason;
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_NEAR(*p.percent_of_roof, 27.0 / 28 * 100, 1e-9);
  EXPECT_LE(*p.percent_of_roof, 105);
  EXPECT_TRUE(Contains(p.verdict, "(28 GB/s)")) << p.verdict;
  EXPECT_EQ(p.note, "");
  // The model's 18 GB/s alone: against compulsory 21, 85.7 %.
  Placement model = PlaceRun({M("flops", 0), M("gbs_dram", 18)}, Shape(), ConventionProfile());
  EXPECT_NEAR(*model.percent_of_roof, 18.0 / 21 * 100, 1e-9);
}

TEST(Conventions, CachedWorkingSetAboveTheDramRoofGetsTheNote) {
  // triad n = 1e5: 2.4 MB compulsory, which fits in the 8 MiB L3. Only the model's DRAM bytes:
  // AI 1/12, DRAM roof 21 / 12 = 1.75 GFLOP/s; running at L3 speed (90 GB/s compulsory, 7.5
  // GFLOP/s) it stands at 429 % of the DRAM roof: the note says why.
  const double n = 1e5;
  std::vector<Metric> metrics = {M("flops", 2 * n), M("bytes_dram", 24 * n), M("gflops", 7.5)};
  Placement p = PlaceRun(metrics, Shape(), ConventionProfile());
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.bound, "dram bandwidth");
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_NEAR(*p.percent_of_roof, 7.5 / 1.75 * 100, 1e-9);
  EXPECT_TRUE(Contains(p.note, "working set (2.29 MiB) fits in L3 (8 MiB measured)")) << p.note;
  EXPECT_TRUE(Contains(p.note, "held against DRAM, its bytes came from a cache")) << p.note;
  // The same for a copy without FLOPs: 1.6 MB at 80 GB/s against DRAM's 21.
  Placement copy = PlaceRun({M("flops", 0), M("gbs_dram", 80), M("bytes_dram", 16 * n)}, Shape(),
                            ConventionProfile());
  ASSERT_TRUE(copy.percent_of_roof.has_value());
  EXPECT_GT(*copy.percent_of_roof, 100);
  EXPECT_TRUE(Contains(copy.note, "working set (1.53 MiB) fits in L3")) << copy.note;
}

TEST(Conventions, AboveTheRoofWithoutACacheToBlameStillSaysWhy) {
  // DRAM-sized triad (192 MB, in no cache) at 103 %: within the ceiling's 2 % spread? No: 3 %
  // is more; at 101.5 % it is. Both carry a note; at or under 100 % none.
  const double n = 8e6;
  auto place = [&](double gflops) {
    return PlaceRun({M("flops", 2 * n), M("bytes_dram", 24 * n), M("gflops", gflops)}, Shape(),
                    ConventionProfile());
  };
  Placement within = place(1.75 * 1.015);
  EXPECT_NEAR(*within.percent_of_roof, 101.5, 1e-9);
  EXPECT_TRUE(Contains(within.note, "within the spread of the dram_triad ceiling")) << within.note;
  Placement beyond = place(1.75 * 1.15);
  EXPECT_TRUE(Contains(beyond.note, "faster than the dram_triad ceiling")) << beyond.note;
  EXPECT_TRUE(Contains(beyond.note, "rprof machine measure")) << beyond.note;
  EXPECT_EQ(place(1.75).note, "");
}

TEST(Conventions, EveryPercentAboveOneHundredCarriesANote) {
  // A sweep of rates and sizes, model and sim bytes: no figure above 100 % without a note.
  MachineProfile profile = ConventionProfile();
  for (double n : {1e3, 1e5, 1e6, 8e6})
    for (double gflops : {0.5, 1.75, 2.0, 10.0, 120.0})
      for (Source source : {Source::kModel, Source::kSim}) {
        double per_element = source == Source::kModel ? 24 : 32;
        std::vector<Metric> metrics = {M("flops", 2 * n, source),
                                       M("bytes_dram", per_element * n, source),
                                       M("gflops", gflops, source)};
        Placement p = PlaceRun(metrics, Shape(), profile);
        ASSERT_TRUE(p.placed) << p.reason;
        ASSERT_TRUE(p.percent_of_roof.has_value());
        if (*p.percent_of_roof > 100)
          EXPECT_FALSE(p.note.empty()) << n << " " << gflops << " " << *p.percent_of_roof;
        else
          EXPECT_EQ(p.note, "") << n << " " << gflops;
      }
}

// --- The code's own roof (issue 24) -------------------------------------------------------

// Scalar fp64 code working in L1, counted by sim: 1e9 FLOPs (all scalar fp64) over 8e9 bytes
// of L1 traffic, 20 GFLOP/s. Against the best fp64 roof (avx2 fma, 100) the L1 roof binds:
// AI 0.125 x 400 GB/s = 50, "L1-bandwidth-bound at 40 %". But scalar code cannot beat the
// scalar roof (fp64_scalar_fma, 25 < 50): compute-bound by scalar code at 20 / 25 = 80 %, and
// the verdict says what vector code would allow.
TEST_F(PlacementTest, ScalarFp64CodeInL1IsBoundByTheScalarRoof) {
  RunRecord run = Program({M("flops", 1e9, Source::kSim), M("flops_dp", 1e9, Source::kSim),
                           M("flops_sp", 0, Source::kSim), M("flops_dp_scalar", 1e9, Source::kSim),
                           M("flops_dp_128", 0, Source::kSim), M("flops_dp_256", 0, Source::kSim),
                           M("bytes_l1", 8e9, Source::kSim), M("bytes_dram", 1e6, Source::kSim),
                           M("gflops", 20, Source::kSim)});
  Placement p = PlaceRun(run.metrics, RunShapeOf(run, profile_), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_TRUE(p.isa_measured);
  EXPECT_EQ(p.compute_ceiling, "fp64_scalar_fma");
  EXPECT_DOUBLE_EQ(p.peak, 25);
  EXPECT_EQ(p.bound, "compute");
  EXPECT_DOUBLE_EQ(p.attainable, 25);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 80);
  EXPECT_EQ(p.code, "scalar code");
  EXPECT_EQ(p.verdict,
            "compute-bound by scalar code at 80 % of the fp64 scalar roof (20 of 25 GFLOP/s); "
            "AVX2 would allow 100");
  EXPECT_EQ(p.widest_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(p.widest_roof, 100);
  // The L1 roof is now above the ridge: 0.125 < 25 / 400 is false.
  EXPECT_FALSE(FindLevel(p, "l1", Source::kSim)->memory_bound);
  EXPECT_DOUBLE_EQ(FindLevel(p, "l1", Source::kSim)->ridge_ai, 25.0 / 400);
  // Compute-bound, the binding level is the one whose memory roof is nearest: L1's 50
  // (DRAM's: AI 1000 x 25 = 25000).
  EXPECT_EQ(p.binding_level, "l1");
  EXPECT_TRUE(Contains(p.isa_note, "scalar code (100 % of FLOPs, sim): the fp64 scalar roof is 25"))
      << p.isa_note;
}

// Half the FLOPs scalar, half 256-bit: 1 / (0.5 / 25 + 0.5 / 100) = 40 GFLOP/s, named as both;
// the code is mixed, never "scalar".
TEST_F(PlacementTest, HalfScalarHalfAvx2CodeGetsTheWeightedRoofAndIsCalledMixed) {
  RunRecord run = Program({M("flops", 1e9, Source::kSim), M("flops_dp", 1e9, Source::kSim),
                           M("flops_sp", 0, Source::kSim), M("flops_dp_scalar", 5e8, Source::kSim),
                           M("flops_dp_256", 5e8, Source::kSim), M("bytes_dram", 1e6, Source::kSim),
                           M("gflops", 20, Source::kSim)});
  Placement p = PlaceRun(run.metrics, RunShapeOf(run, profile_), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_NEAR(p.peak, 40, 1e-9);
  EXPECT_EQ(p.compute_ceiling, "fp64_scalar_fma+fp64_avx2_fma");
  EXPECT_EQ(p.code, "mixed code (50 % scalar, 50 % AVX2)");
  EXPECT_TRUE(Contains(p.verdict, "compute-bound by mixed code (50 % scalar, 50 % AVX2) at 50 %"))
      << p.verdict;
  EXPECT_FALSE(Contains(p.verdict, "by scalar code")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "AVX2 would allow 100")) << p.verdict;
  // Under 1 % of the FLOPs in one ISA is no part of the mix.
  run.metrics[3] = M("flops_dp_scalar", 5e6, Source::kSim);
  run.metrics[4] = M("flops_dp_256", 9.95e8, Source::kSim);
  Placement avx = PlaceRun(run.metrics, RunShapeOf(run, profile_), profile_);
  EXPECT_EQ(avx.code, "AVX2 code");
  EXPECT_DOUBLE_EQ(avx.peak, 100);
}

// A built-in kernel: sim replays its AVX2 build (valgrind cannot run AVX-512) while the timed
// build is -march=native. Its 256-bit share under sim may be 512-bit when timed: held against
// the widest vector roof (AVX-512, 180 here), said; a program's (sim runs the timed code) is not.
TEST_F(PlacementTest, KernelVectorCodeCountedInItsAvx2BuildIsHeldAgainstTheWidestVectorRoof) {
  profile_.ceilings.push_back(Compute("fp64", "avx512", "fma", 1, 180));
  std::vector<Metric> metrics = {
      M("flops", 1e9, Source::kSim),      M("flops_dp", 1e9, Source::kSim),
      M("flops_sp", 0, Source::kSim),     M("flops_dp_256", 1e9, Source::kSim),
      M("bytes_dram", 1e6, Source::kSim), M("gflops", 90, Source::kSim)};
  RunRecord kernel;
  kernel.target_kind = "builtin";
  kernel.precision = "fp64";
  kernel.metrics = metrics;
  RunShape shape = RunShapeOf(kernel, profile_);
  EXPECT_EQ(shape.sim_build_isa, "avx2");
  Placement p = PlaceRun(metrics, shape, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.compute_ceiling, "fp64_avx512_fma");
  EXPECT_DOUBLE_EQ(p.peak, 180);
  EXPECT_EQ(p.code, "AVX2 code");
  EXPECT_TRUE(Contains(p.verdict, "compute-bound by AVX2 code at 50 % of the fp64 AVX-512 roof"))
      << p.verdict;
  EXPECT_TRUE(Contains(p.isa_note, "sim counted the AVX2 build of the kernel")) << p.isa_note;
  // A program: sim ran the very code that was timed, 256-bit: the AVX2 roof.
  Placement program = PlaceRun(metrics, RunShapeOf(Program(metrics), profile_), profile_);
  EXPECT_EQ(program.compute_ceiling, "fp64_avx2_fma");
  EXPECT_TRUE(Contains(program.verdict, "AVX-512 would allow 180")) << program.verdict;
  // Scalar code is scalar in both builds.
  kernel.metrics = {M("flops", 1e9, Source::kSim), M("flops_dp", 1e9, Source::kSim),
                    M("flops_sp", 0, Source::kSim), M("flops_dp_scalar", 1e9, Source::kSim),
                    M("bytes_dram", 1e6, Source::kSim)};
  EXPECT_EQ(PlaceRun(kernel.metrics, RunShapeOf(kernel, profile_), profile_).compute_ceiling,
            "fp64_scalar_fma");
}

// Where nothing split the FLOPs by width (declared FLOPs, a PMU without such events), the widest
// roof of the precision is assumed, and said, in the note and in a compute-bound verdict.
TEST_F(PlacementTest, UnmeasuredInstructionMixAssumesTheWidestRoofAndSaysSo) {
  Placement p =
      PlaceRun({M("flops", 1e12), M("bytes_dram", 1e9), M("gflops", 50)}, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_FALSE(p.isa_measured);
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma");
  EXPECT_TRUE(p.isa_roof_ceiling.empty());
  EXPECT_TRUE(Contains(p.isa_note, "not measured")) << p.isa_note;
  EXPECT_TRUE(Contains(p.isa_note, "the widest roof assumed, fp64_avx2_fma 100")) << p.isa_note;
  // Model bytes: a compute side, not a bound, so the verdict is the compulsory one. With pmu
  // bytes (measured) and no width split:
  Placement pmu = PlaceRun({M("flops", 1e12, Source::kPmu), M("bytes_dram", 1e9, Source::kPmu),
                            M("gflops", 50, Source::kPmu)},
                           Shape(), profile_);
  ASSERT_TRUE(pmu.placed) << pmu.reason;
  EXPECT_TRUE(Contains(pmu.verdict, "compute-bound at 50 % of its roof")) << pmu.verdict;
  EXPECT_TRUE(Contains(pmu.verdict, "roof assumed: fp64_avx2_fma, the widest")) << pmu.verdict;
}

// A measured mix whose ISA the profile has no ceiling for (here 128-bit fp64: no sse ceiling)
// is not given a made-up roof: the widest is assumed, and the note names what is missing.
TEST_F(PlacementTest, AMixWithoutItsCeilingAssumesTheWidestAndNamesTheMissingOne) {
  RunRecord run = Program({M("flops", 1e9, Source::kSim), M("flops_dp", 1e9, Source::kSim),
                           M("flops_sp", 0, Source::kSim), M("flops_dp_128", 1e9, Source::kSim),
                           M("bytes_dram", 1e6, Source::kSim), M("gflops", 20, Source::kSim)});
  Placement p = PlaceRun(run.metrics, RunShapeOf(run, profile_), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_FALSE(p.isa_measured);
  EXPECT_DOUBLE_EQ(p.peak, 100);
  EXPECT_TRUE(Contains(p.isa_note, "no fp64 SSE ceiling at 1 thread")) << p.isa_note;
}

// A region declared fp64 (rprof_region_declare_fp64: model flops_dp = its FLOPs) in a program
// whose precision is not known: placed on the fp64 roofs (100), not the best of both (fp32's
// 200). A region declared without precision keeps the run's shape.
TEST_F(PlacementTest, RegionDeclaredFp64IsPlacedOnFp64Roofs) {
  auto region = [](Metric m) {
    m.region = "solve";
    return m;
  };
  std::vector<Metric> metrics = {region(M("flops", 1e12)), region(M("flops_dp", 1e12)),
                                 region(M("flops_sp", 0)), region(M("bytes_dram", 1e9)),
                                 region(Clock("time_s", 20))};
  RunShape unknown;  // the run's FLOPs are not split by precision
  Placement p = PlaceRegion(metrics, "solve", unknown, profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.precision, "fp64");
  EXPECT_TRUE(Contains(p.precision_note, "the region's own")) << p.precision_note;
  EXPECT_EQ(p.compute_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(p.peak, 100);
  // Without the declared split: the best of both, fp32's.
  std::vector<Metric> plain = {region(M("flops", 1e12)), region(M("bytes_dram", 1e9))};
  EXPECT_DOUBLE_EQ(PlaceRegion(plain, "solve", unknown, profile_).peak, 200);
  // A program declared fp64 (--precision): its regions inherit it.
  RunRecord run = Program({M("flops", 1e12), M("bytes_dram", 1e9)});
  run.precision = "fp64";
  RunShape declared = RunShapeOf(run, profile_);
  EXPECT_EQ(declared.precision_note, "fp64 (declared: --precision)");
  EXPECT_DOUBLE_EQ(PlaceRegion(plain, "solve", declared, profile_).peak, 100);
}

// A run without FLOPs is held against the level its bytes came from: of sim's levels, the one
// it drives closest to that level's roof. Here L3 (60 of 100 GB/s), not DRAM (1 of 25) nor L1
// (50 of 400).
TEST_F(PlacementTest, ZeroFlopsRunIsPlacedAtTheLevelItsBytesCameFrom) {
  std::vector<Metric> metrics = {M("flops", 0, Source::kSim),    M("gbs_l1", 50, Source::kSim),
                                 M("gbs_l2", 40, Source::kSim),  M("gbs_l3", 60, Source::kSim),
                                 M("gbs_dram", 1, Source::kSim), M("gbs_dram", 20)};
  Placement p = PlaceRun(metrics, Shape(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "l3 bandwidth (l3_load)");
  EXPECT_EQ(p.binding_level, "l3");
  EXPECT_EQ(p.binding_source, Source::kSim);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 60);
  EXPECT_TRUE(Contains(p.verdict, "60 % of the L3 bandwidth roof")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict, "sim bytes")) << p.verdict;
  // The model's DRAM rate alone: DRAM, said as model bytes.
  Placement model = PlaceRun({M("flops", 0), M("gbs_dram", 20)}, Shape(), profile_);
  EXPECT_EQ(model.binding_level, "dram");
  EXPECT_TRUE(model.bytes_compulsory_only);
}

// --- Bandwidth roofs per ISA width (issue 36) ----------------------------------------------

// A scalar load ceiling as `machine measure` names it: 8-byte loads, isa "scalar".
Ceiling ScalarLoad(const std::string& level, int threads, double gbs) {
  Ceiling c = Bandwidth(level, "load", threads, gbs);
  c.name = level + "_load_scalar";
  c.isa = "scalar";
  c.bytes_per_element = c.traffic_bytes_per_element = 8;
  return c;
}

// TestProfile and scalar loads: L1 100 GB/s (a quarter of the AVX2 load's 400), L2 60, and an
// L3 one a little above l3_load (noise) that the widest roof must not take.
MachineProfile ScalarLoadProfile() {
  MachineProfile p = TestProfile();
  p.ceilings.push_back(ScalarLoad("l1", 1, 100));
  p.ceilings.push_back(ScalarLoad("l2", 1, 60));
  p.ceilings.push_back(ScalarLoad("l3", 1, 105));
  return p;
}

// Sim counts of fp64 code in L1: 1e9 FLOPs over 8e9 L1 bytes (AI 0.125), 10 GFLOP/s, the
// FLOPs split as `scalar` and 256-bit.
std::vector<Metric> L1Code(double scalar, double avx2) {
  return {M("flops", 1e9, Source::kSim),         M("flops_dp", 1e9, Source::kSim),
          M("flops_sp", 0, Source::kSim),        M("flops_dp_scalar", scalar, Source::kSim),
          M("flops_dp_256", avx2, Source::kSim), M("bytes_l1", 8e9, Source::kSim),
          M("bytes_dram", 1e6, Source::kSim),    M("gflops", 10, Source::kSim)};
}

TEST(BandwidthRoof, TakesTheWidestCeilingsOnly) {
  MachineProfile profile = ScalarLoadProfile();
  EXPECT_EQ(BandwidthRoof(profile, "l1", 1)->name, "l1_load");
  EXPECT_EQ(BandwidthRoof(profile, "l3", 1)->name, "l3_load");  // not the scalar 105
  EXPECT_TRUE(IsScalarBandwidthCeiling(ScalarLoad("l1", 1, 100)));
  EXPECT_FALSE(IsScalarBandwidthCeiling(Bandwidth("l1", "load", 1, 400)));
  EXPECT_FALSE(IsScalarBandwidthCeiling(Compute("fp64", "scalar", "fma", 1, 25)));
}

// Scalar code: against the widest L1 roof (0.125 x 400 = 50 > the scalar compute roof 25) it
// would be "compute-bound by scalar code"; against the scalar loads' 100 GB/s it attains
// 0.125 x 100 = 12.5 < 25: L1-bandwidth-bound at 10 / 12.5 = 80 %, l1_load_scalar named.
TEST(ScalarBandwidth, ScalarCodeIsHeldAgainstTheScalarLoadRoof) {
  MachineProfile profile = ScalarLoadProfile();
  std::vector<Metric> metrics = L1Code(1e9, 0);
  Placement p = PlaceRun(metrics, RunShapeOf(Program(metrics), profile), profile);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.code, "scalar code");
  EXPECT_EQ(p.compute_ceiling, "fp64_scalar_fma");
  const LevelPlacement* l1 = FindLevel(p, "l1", Source::kSim);
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(l1->bandwidth_ceiling, "l1_load_scalar");
  EXPECT_DOUBLE_EQ(l1->bandwidth, 100);
  EXPECT_TRUE(l1->memory_bound);
  // DRAM has no scalar ceiling (the widths meet there): the widest.
  EXPECT_EQ(FindLevel(p, "dram", Source::kSim)->bandwidth_ceiling, "dram_triad");
  EXPECT_EQ(p.binding, "l1 bandwidth (l1_load_scalar)");
  EXPECT_DOUBLE_EQ(p.attainable, 12.5);
  EXPECT_DOUBLE_EQ(*p.percent_of_roof, 80);
  EXPECT_TRUE(Contains(p.verdict,
                       "L1-bandwidth-bound at 80 % of its roof for scalar loads, "
                       "l1_load_scalar (10 of 12.5 GFLOP/s)"))
      << p.verdict;
}

// Vector code keeps the widest roof: what its loads can reach. AVX2 compute roof 100, L1
// 0.125 x 400 = 50: L1-bandwidth-bound against l1_load at 20 %.
TEST(ScalarBandwidth, VectorCodeKeepsTheWidestRoof) {
  MachineProfile profile = ScalarLoadProfile();
  std::vector<Metric> metrics = L1Code(0, 1e9);
  Placement p = PlaceRun(metrics, RunShapeOf(Program(metrics), profile), profile);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.code, "AVX2 code");
  EXPECT_EQ(FindLevel(p, "l1", Source::kSim)->bandwidth_ceiling, "l1_load");
  EXPECT_EQ(p.binding, "l1 bandwidth (l1_load)");
  EXPECT_FALSE(Contains(p.verdict, "scalar loads")) << p.verdict;
}

// Mixed code (half scalar) keeps the widest roof too: a load-weighted roof would need the loads
// split by width, which no source counts.
TEST(ScalarBandwidth, MixedCodeKeepsTheWidestRoof) {
  MachineProfile profile = ScalarLoadProfile();
  std::vector<Metric> metrics = L1Code(5e8, 5e8);
  Placement p = PlaceRun(metrics, RunShapeOf(Program(metrics), profile), profile);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.code, "mixed code (50 % scalar, 50 % AVX2)");
  EXPECT_EQ(FindLevel(p, "l1", Source::kSim)->bandwidth_ceiling, "l1_load");
}

// No source split the FLOPs by width: the ISA is not known, the widest roof stands.
TEST(ScalarBandwidth, UnmeasuredIsaKeepsTheWidestRoof) {
  MachineProfile profile = ScalarLoadProfile();
  std::vector<Metric> metrics = {M("flops", 1e9, Source::kSim), M("bytes_l1", 8e9, Source::kSim),
                                 M("gflops", 10, Source::kSim)};
  Placement p = PlaceRun(metrics, Shape(), profile);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_FALSE(p.isa_measured);
  EXPECT_EQ(FindLevel(p, "l1", Source::kSim)->bandwidth_ceiling, "l1_load");
}

// A profile measured before the scalar ceilings: scalar code keeps the widest roof (and the
// scalar compute roof binds, as before).
TEST(ScalarBandwidth, ProfileWithoutScalarCeilingsKeepsTheWidestRoof) {
  MachineProfile profile = TestProfile();
  std::vector<Metric> metrics = L1Code(1e9, 0);
  Placement p = PlaceRun(metrics, RunShapeOf(Program(metrics), profile), profile);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(FindLevel(p, "l1", Source::kSim)->bandwidth_ceiling, "l1_load");
  EXPECT_EQ(p.bound, "compute");
}

// What tables print for the bound: never a plain "compute" from model bytes alone.
TEST(BoundText, ModelBytesAloneAreSaidAsSuch) {
  EXPECT_EQ(BoundText("compute", true), "≥ compute side (model bytes only)");
  EXPECT_EQ(BoundText("dram bandwidth", true), "dram bandwidth (model bytes only)");
  EXPECT_EQ(BoundText("compute", false), "compute");
  EXPECT_EQ(BoundText("l3 bandwidth", false), "l3 bandwidth");
  EXPECT_EQ(BoundText("", true), "");
}

}  // namespace
}  // namespace rprof
