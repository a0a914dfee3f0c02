// The rules that mark a machine profile noisy, on hand-made profiles (no timing): load, large
// spreads, a mul+add ceiling above FMA (noise, and never the compute roof), a level whose
// latency is not above the one before; level sizes kept consistent across a machine's
// profiles; and the `noisy_profile` trust note of a run placed against a noisy profile.
#include "machine/profile_trust.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "calibrate/run_trust.h"
#include "machine/machine_measure.h"
#include "roofline/placement.h"

namespace rprof {
namespace {

constexpr uint64_t kKiB = 1024;

Ceiling Compute(const std::string& precision, const std::string& isa, const std::string& pattern,
                int threads, double gflops, double spread = 1) {
  Ceiling c;
  c.kind = "compute";
  c.name = precision + "_" + isa + "_" + pattern;
  c.isa = isa;
  c.precision = precision;
  c.pattern = pattern;
  c.threads = threads;
  c.value = gflops;
  c.unit = "GFLOP/s";
  c.spread_pct = spread;
  c.repetitions = 10;
  return c;
}

Ceiling Bandwidth(const std::string& level, const std::string& pattern, double gbs,
                  double spread = 1) {
  Ceiling c;
  c.kind = "bandwidth";
  c.name = level + "_" + pattern;
  c.level = level;
  c.isa = "avx2";
  c.precision = "fp64";
  c.pattern = pattern;
  c.threads = 1;
  c.working_set_bytes = 1 << 20;
  c.value = gbs;
  c.unit = "GB/s";
  c.spread_pct = spread;
  c.repetitions = 10;
  return c;
}

// A quiet, consistent profile: FMA above mul+add, latency growing with level, small spreads.
MachineProfile QuietProfile() {
  MachineProfile p;
  p.mode = "quick";
  p.threads = 2;
  p.load_average_before = 0.1;
  p.ceilings = {Compute("fp64", "avx2", "fma", 1, 50),  Compute("fp64", "avx2", "mul_add", 1, 25),
                Compute("fp64", "avx2", "add", 1, 25),  Compute("fp32", "avx2", "fma", 1, 100),
                Compute("fp64", "avx2", "fma", 2, 100), Bandwidth("l1", "load", 200),
                Bandwidth("l2", "load", 100),           Bandwidth("dram", "triad", 20)};
  p.levels = {{"l1", 32 * kKiB, 32 * kKiB, 1.4, 200, 0, ""},
              {"l2", 512 * kKiB, 256 * kKiB, 4, 100, 0, ""},
              {"l3", 32 << 20, 4 << 20, 20, 60, 0, ""},
              {"dram", 0, 0, 120, 20, 0, ""}};
  return p;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines)
    if (Contains(line, part)) return true;
  return false;
}

TEST(ProfileNoiseTest, AQuietConsistentProfileIsNotNoisy) {
  MachineProfile p = QuietProfile();
  EXPECT_TRUE(ProfileNoiseReasons(p, 0.05).empty());
  EXPECT_TRUE(ProfileContradictions(p).empty());
  for (const Ceiling& c : p.ceilings) EXPECT_FALSE(ImplausibleCeiling(p, c)) << c.name;
}

TEST(ProfileNoiseTest, MeasuredUnderLoad) {
  MachineProfile p = QuietProfile();
  std::vector<std::string> reasons = ProfileNoiseReasons(p, 1.5);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "measured under load")) << reasons[0];
  EXPECT_TRUE(Contains(reasons[0], "1.50 CPUs")) << reasons[0];
  // Just under the threshold: not noisy.
  EXPECT_TRUE(ProfileNoiseReasons(p, kNoisyCompetingCpus - 0.01).empty());
  // Competition unknown: the load average decides (at least max(1, threads / 2)).
  p.load_average_before = 12;
  reasons = ProfileNoiseReasons(p, -1);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "load average 12.00")) << reasons[0];
  p.load_average_before = 0.9;
  EXPECT_TRUE(ProfileNoiseReasons(p, -1).empty());
}

TEST(ProfileNoiseTest, LargeSpreadsOnMoreThanAQuarterOfTheCeilings) {
  MachineProfile p = QuietProfile();  // 8 ceilings: 2 large spreads are a quarter, not more
  p.ceilings[0].spread_pct = 40;
  p.ceilings[5].spread_pct = 92;
  EXPECT_TRUE(ProfileNoiseReasons(p, 0).empty());
  p.ceilings[6].spread_pct = 11;
  std::vector<std::string> reasons = ProfileNoiseReasons(p, 0);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "3 of 8 ceilings varied more than 10 %")) << reasons[0];
  EXPECT_TRUE(Contains(reasons[0], "worst: l1_load, 1 thread, 92 %")) << reasons[0];
}

// A ceiling is its best repetition: a large spread whose best another repetition reproduced
// (within 2 %) is a tick in the slow ones, not noise in the ceiling. A quiet Zen 5 VM's
// profiles had a third of their ceilings over 10 % and were all called noisy.
TEST(ProfileNoiseTest, LargeSpreadsWithAConfirmedBestAreNotNoise) {
  MachineProfile p = QuietProfile();
  for (int i : {0, 5, 6, 7}) {
    p.ceilings[i].spread_pct = 30;
    p.ceilings[i].best_confirmed = true;
  }
  EXPECT_TRUE(ProfileNoiseReasons(p, 0).empty());
  p.ceilings[6].best_confirmed = p.ceilings[7].best_confirmed = false;
  p.ceilings[5].best_confirmed = false;
  std::vector<std::string> reasons = ProfileNoiseReasons(p, 0);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "3 of 8 ceilings varied more than 10 %")) << reasons[0];
  EXPECT_TRUE(Contains(reasons[0], "no other reproducing their best")) << reasons[0];
}

// Where adds have pipes of their own (Zen 5), mul+add ties the FMA and comes out a little above
// it as often as below: within 5 % that is a tie, no contradiction, and no noisy profile.
TEST(ProfileNoiseTest, MulAddTyingTheFmaIsNoContradiction) {
  MachineProfile p = QuietProfile();
  p.ceilings[1].value = 50.8;  // fp64_avx2_mul_add 1.6 % above fp64_avx2_fma's 50
  EXPECT_FALSE(ImplausibleCeiling(p, p.ceilings[1]));
  EXPECT_TRUE(ProfileNoiseReasons(p, 0).empty());
  p.ceilings[1].value = 53;  // 6 % above: no tie
  EXPECT_TRUE(ImplausibleCeiling(p, p.ceilings[1]));
}

TEST(ProfileNoiseTest, MulAddAboveFmaIsNoiseAndNeverTheRoof) {
  MachineProfile p = QuietProfile();
  p.ceilings[1].value = 60;  // fp64_avx2_mul_add 60 > fp64_avx2_fma 50, 1 thread
  ASSERT_TRUE(ImplausibleCeiling(p, p.ceilings[1]));
  EXPECT_FALSE(ImplausibleCeiling(p, p.ceilings[0]));  // the FMA itself
  EXPECT_FALSE(ImplausibleCeiling(p, p.ceilings[2]));  // add is another operation
  ASSERT_NE(FmaCounterpart(p, p.ceilings[1]), nullptr);
  EXPECT_EQ(FmaCounterpart(p, p.ceilings[1])->name, "fp64_avx2_fma");
  std::vector<std::string> reasons = ProfileNoiseReasons(p, 0);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "fp64_avx2_mul_add (60 GFLOP/s) above fp64_avx2_fma (50)"))
      << reasons[0];
  EXPECT_EQ(ProfileContradictions(p), reasons);

  // Placement takes the FMA as the fp64 roof, not the noisy mul+add.
  std::vector<Metric> metrics = {
      Metric{"flops", 1e10, "FLOP", Source::kModel, "", ""},
      Metric{"bytes_dram", 1e8, "B", Source::kModel, "", ""},
      Metric{"gflops", 10, "GFLOP/s", Source::kModel, "", ""},
  };
  RunShape shape;
  shape.precision = "fp64";
  Placement placed = PlaceRun(metrics, shape, p);
  ASSERT_TRUE(placed.placed) << placed.reason;
  EXPECT_EQ(placed.compute_ceiling, "fp64_avx2_fma");
  EXPECT_DOUBLE_EQ(placed.peak, 50);
  // Another thread count's FMA does not vouch for it: no 2-thread mul+add counterpart issue.
  Ceiling two = Compute("fp64", "avx2", "mul_add", 2, 90);
  EXPECT_FALSE(ImplausibleCeiling(p, two));  // below the 2-thread FMA of 100
}

TEST(ProfileNoiseTest, LatencyMustGrowWithLevel) {
  MachineProfile p = QuietProfile();
  p.levels[2].latency_ns = 292;  // L3 above DRAM's 120
  std::vector<std::string> reasons = ProfileNoiseReasons(p, 0);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(Contains(reasons[0], "DRAM latency 120 ns is not above L3's 292 ns")) << reasons[0];
  NoteLevelContradictions(&p);
  EXPECT_TRUE(Contains(p.levels[3].note, "latency not above L3's 292 ns")) << p.levels[3].note;
  EXPECT_TRUE(p.levels[2].note.empty());
  // A level the latency sweep did not find (0) is skipped: compared with the one before it.
  p = QuietProfile();
  p.levels[2].latency_ns = 0;
  EXPECT_TRUE(ProfileNoiseReasons(p, 0).empty());
  p.levels[3].latency_ns = 4;  // DRAM equal to L2's 4 ns
  EXPECT_TRUE(AnyContains(ProfileNoiseReasons(p, 0), "DRAM latency 4 ns is not above L2's"));
}

TEST(LevelSizesTest, WithinTheResolutionTheSizeIsKeptAndCounted) {
  const double resolution = SizeResolution("quick");
  EXPECT_NEAR(resolution, std::sqrt(2.0), 1e-12);  // 2 points an octave
  EXPECT_NEAR(SizeResolution("full"), std::pow(2.0, 0.25), 1e-12);
  MachineProfile previous = QuietProfile();
  previous.levels[1].size_agreement = 2;  // L2 256 KiB, agreed by 2 profiles
  MachineProfile now = QuietProfile();
  now.levels[1].effective_size = 320 * kKiB;  // 1.25x: within one grid step
  ReconcileLevelSizes(previous, 7, resolution, &now);
  EXPECT_EQ(now.levels[1].effective_size, 256 * kKiB);
  EXPECT_EQ(now.levels[1].size_agreement, 3);
  EXPECT_TRUE(Contains(now.levels[1].note, "measured 320 KiB")) << now.levels[1].note;
  EXPECT_TRUE(Contains(now.levels[1].note, "profile 7's 256 KiB: kept")) << now.levels[1].note;
  // The same size: kept without a note; an older profile without counts counts as one.
  EXPECT_EQ(now.levels[0].size_agreement, 2);
  EXPECT_TRUE(now.levels[0].note.empty());
  EXPECT_EQ(now.levels[3].size_agreement, 0);  // DRAM has no size
  EXPECT_TRUE(now.warnings.empty());
  EXPECT_TRUE(now.noisy_reasons.empty());
}

TEST(LevelSizesTest, ASizeFurtherOffIsNewAndSaidSo) {
  MachineProfile previous = QuietProfile();
  MachineProfile now = QuietProfile();
  now.levels[0].effective_size = 16 * kKiB;  // L1: half, two grid steps off
  ReconcileLevelSizes(previous, 3, SizeResolution("quick"), &now);
  EXPECT_EQ(now.levels[0].effective_size, 16 * kKiB);
  EXPECT_EQ(now.levels[0].size_agreement, 1);
  EXPECT_TRUE(Contains(now.levels[0].note, "a new size: profile 3 measured 32 KiB"))
      << now.levels[0].note;
  ASSERT_EQ(now.warnings.size(), 1u);
  EXPECT_TRUE(Contains(now.warnings[0], "L1's effective size 16 KiB differs")) << now.warnings[0];
  // One earlier profile against this one: which holds is unknown, not noise.
  EXPECT_TRUE(now.noisy_reasons.empty());

  // Against a size several profiles agreed on: this profile is noisy.
  previous.levels[2].size_agreement = 3;  // L3 4 MiB, three profiles
  now = QuietProfile();
  now.levels[2].effective_size = 6815744;  // 6.5 MiB
  ReconcileLevelSizes(previous, 3, SizeResolution("quick"), &now);
  ASSERT_EQ(now.noisy_reasons.size(), 1u);
  EXPECT_TRUE(Contains(now.noisy_reasons[0], "L3's effective size 6.50 MiB contradicts"))
      << now.noisy_reasons[0];
  EXPECT_TRUE(Contains(now.noisy_reasons[0], "(3 profiles agreed)")) << now.noisy_reasons[0];
}

TEST(LevelSizesTest, FirstProfileOfAMachine) {
  MachineProfile now = QuietProfile();
  ReconcileLevelSizes(MachineProfile(), 0, SizeResolution("quick"), &now);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(now.levels[i].size_agreement, 1);
  EXPECT_TRUE(now.warnings.empty());
}

TEST(RunTrustTest, NoisyProfileNote) {
  RunRecord run;
  TrustContext context;
  EXPECT_TRUE(RunTrustNotes(run, context).empty());
  context.profile_id = 4;
  context.profile_noisy_reasons = {"measured under load: other processes used 1.50 CPUs"};
  std::vector<TrustNote> notes = RunTrustNotes(run, context);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].kind, "noisy_profile");
  EXPECT_TRUE(Contains(notes[0].detail, "machine profile 4, which is noisy (measured under load"))
      << notes[0].detail;
  EXPECT_TRUE(Contains(notes[0].detail, "rprof machine measure on a quiet machine"))
      << notes[0].detail;
}

}  // namespace
}  // namespace rprof
