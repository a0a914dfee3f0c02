// Time checks bytes (issue 36): a measured source's bytes at a level over the native run's time
// against the roofs of a hand-made profile: 1 thread, fp64 peak 100 GFLOP/s; L1 400, L2 200,
// L3 60, DRAM 8 GB/s. The metrics are a triad-like loop's: 1e9 FLOPs over 16e9 bytes at each
// level that sim counted (AI 1/16), so a level's roof in GFLOP/s is its GB/s / 16 and a run's
// percent of a bandwidth roof is its rate over that roof. Every expected number is worked out in
// the comment next to it.
#include "roofline/time_check.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "calibrate/run_trust.h"
#include "machine/machine_profile.h"
#include "roofline/placement.h"

namespace rprof {
namespace {

Ceiling Bandwidth(const std::string& level, const std::string& pattern, double gbs,
                  double spread_pct = 2) {
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
  c.spread_pct = spread_pct;
  c.repetitions = 5;
  return c;
}

MachineProfile TestProfile() {
  MachineProfile p;
  p.fingerprint = "fp-test";
  p.threads = 1;
  p.mode = "quick";
  Ceiling peak;
  peak.kind = "compute";
  peak.name = "fp64_avx2_fma";
  peak.isa = "avx2";
  peak.precision = "fp64";
  peak.pattern = "fma";
  peak.threads = 1;
  peak.value = 100;
  peak.unit = "GFLOP/s";
  peak.repetitions = 5;
  p.ceilings = {peak, Bandwidth("l1", "load", 400), Bandwidth("l2", "load", 200),
                Bandwidth("l3", "load", 60), Bandwidth("dram", "triad", 8)};
  return p;
}

Metric M(const std::string& name, double value, Source source = Source::kSim) {
  return Metric{name, value, "", source, "", ""};
}

// 1e9 FLOPs; 16e9 bytes at every level down to `last` ("l3": none at DRAM), rate `gbs` at each.
std::vector<Metric> Triad(const std::string& last, double gbs, Source source = Source::kSim,
                          double flops = 1e9) {
  std::vector<Metric> metrics = {M("flops", flops, source), M("gflops", gbs / 16, source)};
  bool reached = true;
  for (const char* level : {"l1", "l2", "l3", "dram"}) {
    metrics.push_back(M(std::string("bytes_") + level, reached ? 16e9 : 0, source));
    metrics.push_back(M(std::string("gbs_") + level, reached ? gbs : 0, source));
    if (level == last) reached = false;
  }
  return metrics;
}

RunShape Fp64() {
  RunShape s;
  s.precision = "fp64";
  s.threads = 1;
  return s;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class TimeCheckTest : public testing::Test {
 protected:
  MachineProfile profile_ = TestProfile();
};

// The STREAM in a VM: sim's L3 was the host's, so it kept the stream in "L3" and counted
// no DRAM bytes. The native time gives the L3 bytes 7.44 GB/s: 93 % of DRAM's 8 GB/s roof (in
// [80 %, 105 %]), 12.4 % of L3's 60 (under half), DRAM's bytes 0 (under 10 % of L3's). On sim's
// bytes alone it would be L3-bound at 7.44 / 60 = 12.4 %; the time places it DRAM-bound at
// 7.44 / 8 = 93 % (the L3 bytes' AI 1/16 under DRAM's roof: 0.5 GFLOP/s; 0.465 achieved).
TEST_F(TimeCheckTest, L3BytesAtDramRateArePlacedOnDram) {
  std::vector<Metric> metrics = Triad("l3", 7.44);
  Placement p = PlaceRun(metrics, Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.bound, "dram bandwidth");
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_EQ(p.binding_level, "l3");  // the bytes used
  EXPECT_EQ(p.binding_source, Source::kSim);
  EXPECT_NEAR(p.attainable, 0.5, 1e-12);
  ASSERT_TRUE(p.percent_of_roof.has_value());
  EXPECT_NEAR(*p.percent_of_roof, 93, 1e-9);
  EXPECT_TRUE(Contains(p.verdict, "DRAM-bandwidth-bound at 93 % of its roof")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict,
                       "by sim's L3 bytes (sim's L3 bytes at DRAM's rate: the time "
                       "says they came from DRAM)"))
      << p.verdict;
  EXPECT_TRUE(p.note.empty()) << p.note;
  EXPECT_TRUE(Contains(p.time_contradiction, "93 % of DRAM's roof (dram_triad, 8 GB/s)"))
      << p.time_contradiction;
  EXPECT_TRUE(Contains(p.time_contradiction, "12 % of L3's (60 GB/s)")) << p.time_contradiction;
  EXPECT_TRUE(Contains(p.time_contradiction, "--sim-cache l3=")) << p.time_contradiction;

  // Each placement's contradiction is a trust note of its own kind.
  RunRecord run;
  TrustContext context;
  context.time_contradictions = {p.time_contradiction};
  std::vector<TrustNote> notes = RunTrustNotes(run, context);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].kind, "time_contradicts_bytes");
  EXPECT_EQ(notes[0].detail, p.time_contradiction);
}

// The same with no FLOPs (a copy): placed by its bandwidth against DRAM's roof, 7.6 / 8 = 95 %.
TEST_F(TimeCheckTest, CopyAtDramRateIsPlacedOnDram) {
  Placement p = PlaceRun(Triad("l3", 7.6, Source::kSim, 0), Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_NEAR(*p.percent_of_roof, 95, 1e-9);
  EXPECT_TRUE(Contains(p.verdict,
                       "moves 7.6 GB/s (sim's L3 bytes), 95 % of the DRAM bandwidth "
                       "roof (8 GB/s) (sim's L3 bytes at DRAM's rate"))
      << p.verdict;
  EXPECT_FALSE(p.time_contradiction.empty());
}

// A genuine L3-bound run: 40 GB/s out of L3 is 67 % of its roof and 5 x DRAM's: nothing for the
// time to contradict. L3-bound at 40 / 60 = 67 %.
TEST_F(TimeCheckTest, GenuineL3BoundRunIsUnchanged) {
  Placement p = PlaceRun(Triad("l3", 40), Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "l3 bandwidth (l3_load)");
  EXPECT_NEAR(*p.percent_of_roof, 200.0 / 3, 1e-9);
  EXPECT_TRUE(p.time_contradiction.empty()) << p.time_contradiction;
  EXPECT_FALSE(Contains(p.verdict, "the time says")) << p.verdict;
}

// L1's bytes are the loads and stores themselves: an L1-resident loop held back by its
// arithmetic (a small matmul) that moves them at 60 GB/s, L3's rate, with nothing counted
// farther, is not "from L3" (cli_plot's matmul-ikj n=32 was, on a hand-made profile).
TEST_F(TimeCheckTest, L1BytesAreNeverSaidToComeFromAFartherLevel) {
  EXPECT_FALSE(CheckTimeAgainstBytes(Triad("l1", 60), Source::kSim, "l1", profile_, 1));
  Placement p = PlaceRun(Triad("l1", 60), Fp64(), profile_);
  EXPECT_TRUE(p.time_contradiction.empty()) << p.time_contradiction;
}

// Only the last cache's traffic is said to have come from DRAM: a run in L2 (cli_plot's triad
// n=20000, 480 KB) whose L2 bytes move at 60 GB/s, L3's roof, with nothing counted farther, is
// held back by something else; its L2 bytes did not come from L3.
TEST_F(TimeCheckTest, L2BytesAtL3RateAreNotSaidToComeFromL3) {
  EXPECT_FALSE(CheckTimeAgainstBytes(Triad("l2", 60), Source::kSim, "l2", profile_, 1));
}

// A working set that fits the last level as this machine measured it stayed there, whatever
// the rate: a 16 MB footprint (the model's bytes of one call) in a 32 MiB L3.
TEST_F(TimeCheckTest, AWorkingSetThatFitsTheMeasuredLevelStayedThere) {
  std::vector<Metric> metrics = Triad("l3", 7.44);
  metrics.push_back(M("bytes_dram", 16e6, Source::kModel));
  LevelSummary l3;
  l3.level = "l3";
  l3.size_bytes = 32u << 20;
  profile_.levels = {l3};
  EXPECT_FALSE(CheckTimeAgainstBytes(metrics, Source::kSim, "l3", profile_, 1));
  profile_.levels[0].size_bytes = 8u << 20;  // a last level that cannot hold it: the time decides
  EXPECT_TRUE(CheckTimeAgainstBytes(metrics, Source::kSim, "l3", profile_, 1));
}

// Edges of (b): 6 GB/s is 75 % of DRAM's roof, under the 80 % a stream out of DRAM reaches; and
// DRAM bytes that sim did count (at 8 GB/s they bind by themselves: the time agrees).
TEST_F(TimeCheckTest, RatesOffTheFartherRoofAreNotContradicted) {
  EXPECT_FALSE(CheckTimeAgainstBytes(Triad("l3", 6), Source::kSim, "l3", profile_, 1));
  EXPECT_TRUE(CheckTimeAgainstBytes(Triad("l3", 6.5), Source::kSim, "l3", profile_, 1));
  // 25 % of L3's bytes at DRAM: more than the 10 % share that says sim kept the data in L3.
  std::vector<Metric> metrics = Triad("l3", 7.44);
  for (Metric& m : metrics)
    if (m.name == "bytes_dram") m.value = 4e9;
  EXPECT_FALSE(CheckTimeAgainstBytes(metrics, Source::kSim, "l3", profile_, 1));
}

// The model's bytes are compulsory and never checked: the same numbers stay L3-bound.
TEST_F(TimeCheckTest, ModelBytesAreNotChecked) {
  Placement p = PlaceRun(Triad("l3", 7.44, Source::kModel), Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "l3 bandwidth (l3_load)");
  EXPECT_TRUE(p.time_contradiction.empty()) << p.time_contradiction;
}

// (a) Above the binding level's roof: sim counted every byte at DRAM too, but 30 GB/s is beyond
// DRAM's 8 (+ 5 %): the bytes came from a closer level, the nearest whose roof sustains the
// rate, L3 (60). On DRAM's roof it would be 30 / 8 = 375 %; on L3's it is 30 / 60 = 50 %.
TEST_F(TimeCheckTest, RateAboveTheRoofIsPlacedOnACloserLevel) {
  Placement p = PlaceRun(Triad("dram", 30), Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "l3 bandwidth (l3_load)");
  EXPECT_EQ(p.binding_level, "dram");
  EXPECT_NEAR(p.attainable, 60.0 / 16, 1e-12);
  EXPECT_NEAR(*p.percent_of_roof, 50, 1e-9);
  EXPECT_TRUE(Contains(p.verdict, "L3-bandwidth-bound at 50 % of its roof")) << p.verdict;
  EXPECT_TRUE(Contains(p.verdict,
                       "(sim's DRAM bytes above DRAM's roof: the time says they came "
                       "from L3)"))
      << p.verdict;
  EXPECT_TRUE(p.note.empty()) << p.note;
  EXPECT_TRUE(Contains(p.time_contradiction, "above DRAM's roof (dram_triad, 8 GB/s)"))
      << p.time_contradiction;
}

// Within the ceiling's spread (8 x 1.05 = 8.4 GB/s) a rate above the roof is noise, not a
// contradiction: 8.3 GB/s stays DRAM-bound (at 104 %, AboveRoofNote explains it).
TEST_F(TimeCheckTest, RateWithinTheSpreadIsNoContradiction) {
  Placement p = PlaceRun(Triad("dram", 8.3), Fp64(), profile_);
  ASSERT_TRUE(p.placed) << p.reason;
  EXPECT_EQ(p.binding, "dram bandwidth (dram_triad)");
  EXPECT_TRUE(p.time_contradiction.empty()) << p.time_contradiction;
}

}  // namespace
}  // namespace rprof
