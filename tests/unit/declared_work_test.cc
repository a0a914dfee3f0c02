// Declared work against measured work (calibrate/declared_work.h): one check for a kernel's
// model, --flops/--bytes, region declarations and benchmarks, on hand-made runs.
#include "calibrate/declared_work.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rprof {
namespace {

Metric M(const std::string& name, double value, Source source, const std::string& region = "") {
  return Metric{name, value, name == "flops" ? "FLOP" : "B", source, region, ""};
}

RunRecord MakeRun(const std::string& kind, std::vector<Metric> metrics) {
  RunRecord run;
  run.target_kind = kind;
  run.metrics = std::move(metrics);
  return run;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A region that declares twice the FLOPs sim counted: untrusted, both values named.
TEST(DeclaredWork, RegionDeclaringTwiceItsFlopsIsUntrusted) {
  RunRecord run = MakeRun("executable", {M("flops", 2e6, Source::kModel, "solve"),
                                         M("flops", 1e6, Source::kSim, "solve")});
  std::vector<TrustNote> notes = DeclaredWorkNotes(run);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].kind, "untrusted");
  EXPECT_TRUE(Contains(notes[0].detail,
                       "region solve's declared FLOPs (rprof_region_declare) "
                       "(2e+06) differ from sim's count (1e+06) by 100 %"))
      << notes[0].detail;
}

// Within 5 %: no note. Just over: a note. --flops 25 % off: a note naming --flops.
TEST(DeclaredWork, FivePercentIsTheTolerance) {
  EXPECT_TRUE(DeclaredWorkNotes(MakeRun("executable", {M("flops", 1.05e6, Source::kModel),
                                                       M("flops", 1e6, Source::kSim)}))
                  .empty());
  EXPECT_EQ(DeclaredWorkNotes(MakeRun("executable", {M("flops", 1.06e6, Source::kModel),
                                                     M("flops", 1e6, Source::kSim)}))
                .size(),
            1u);
  std::vector<TrustNote> notes = DeclaredWorkNotes(
      MakeRun("executable", {M("flops", 1.25e6, Source::kModel), M("flops", 1e6, Source::kPmu)}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(Contains(notes[0].detail,
                       "the declared FLOPs (--flops) (1.25e+06) differ from "
                       "pmu's count (1e+06) by 25 %"))
      << notes[0].detail;
}

// Sim judges before pmu (it is exact); nothing measured: nothing to say.
TEST(DeclaredWork, SimJudgesFirstAndNothingMeasuredSaysNothing) {
  RunRecord run =
      MakeRun("executable", {M("flops", 1e6, Source::kModel), M("flops", 1e6, Source::kSim),
                             M("flops", 3e6, Source::kPmu)});
  EXPECT_TRUE(DeclaredWorkNotes(run).empty());
  EXPECT_TRUE(DeclaredWorkNotes(MakeRun("executable", {M("flops", 1e6, Source::kModel)})).empty());
}

// Declared bytes of a program or region are checked against the DRAM traffic; a kernel's model
// bytes are compulsory by definition and never are (their gap is the lesson), its FLOPs are.
TEST(DeclaredWork, BytesOfDeclarationsAreCheckedAKernelsModelBytesAreNot) {
  std::vector<TrustNote> notes =
      DeclaredWorkNotes(MakeRun("executable", {M("bytes_dram", 2.4e7, Source::kModel, "triad"),
                                               M("bytes_dram", 3.2e7, Source::kSim, "triad")}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(Contains(notes[0].detail, "region triad's declared bytes")) << notes[0].detail;
  EXPECT_TRUE(Contains(notes[0].detail, "sim's count of DRAM traffic (3.2e+07)"))
      << notes[0].detail;
  EXPECT_TRUE(DeclaredWorkNotes(MakeRun("builtin", {M("bytes_dram", 2.4e7, Source::kModel),
                                                    M("bytes_dram", 3.2e7, Source::kSim)}))
                  .empty());
  notes = DeclaredWorkNotes(
      MakeRun("builtin", {M("flops", 3e6, Source::kModel), M("flops", 2e6, Source::kSim)}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(Contains(notes[0].detail, "the kernel's declared FLOPs (its model)"))
      << notes[0].detail;
}

// Issue 38: correct compulsory bytes of data already in a cache were "untrusted ... by
// 3,099,900 %" against DRAM's few bytes. They are compared with the level the data came from.
TEST(DeclaredWork, CompulsoryBytesOfCacheResidentDataAreNoAlarm) {
  // 2.4e7 declared; the data lived in L2: L2 moved them, DRAM almost nothing.
  EXPECT_TRUE(DeclaredWorkNotes(
                  MakeRun("executable",
                          {M("bytes_dram", 2.4e7, Source::kModel),
                           M("bytes_l1", 9.6e7, Source::kSim), M("bytes_l2", 2.5e7, Source::kSim),
                           M("bytes_l3", 1e5, Source::kSim), M("bytes_dram", 7.7, Source::kSim)}))
                  .empty());
  // In L1 alone (a benchmark's small arrays): L1 moved more than declared, which reuse makes.
  EXPECT_TRUE(DeclaredWorkNotes(MakeRun("benchmark", {M("bytes_dram", 8192, Source::kModel),
                                                      M("bytes_l1", 8.2e5, Source::kSim),
                                                      M("bytes_dram", 0.06, Source::kSim)}))
                  .empty());
  // The PMU's DRAM count alone says nothing of where the rest was: no alarm either.
  EXPECT_TRUE(DeclaredWorkNotes(MakeRun("executable", {M("bytes_dram", 2.4e7, Source::kModel),
                                                       M("bytes_dram", 1e3, Source::kPmu)}))
                  .empty());
}

// A real discrepancy stays one: more bytes declared than every access moved, and past 100
// times the gap reads as such.
TEST(DeclaredWork, MoreBytesThanEveryAccessMovedIsADiscrepancyCappedForReading) {
  std::vector<TrustNote> notes = DeclaredWorkNotes(MakeRun(
      "executable", {M("bytes_dram", 2.4e9, Source::kModel), M("bytes_l1", 1.2e7, Source::kSim),
                     M("bytes_dram", 1e3, Source::kSim)}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].kind, "untrusted");
  EXPECT_TRUE(Contains(notes[0].detail, "of every access (L1 traffic) (1.2e+07)"))
      << notes[0].detail;
  EXPECT_TRUE(Contains(notes[0].detail, "by more than 100x")) << notes[0].detail;
  notes = DeclaredWorkNotes(
      MakeRun("executable", {M("flops", 2e6, Source::kModel), M("flops", 1e6, Source::kSim)}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(Contains(notes[0].detail, "by 100 %")) << notes[0].detail;
}

// A benchmark's note says the usual cause, as it did before the check was shared.
TEST(DeclaredWork, BenchmarkNoteNamesTheUsualCause) {
  std::vector<TrustNote> notes = DeclaredWorkNotes(
      MakeRun("benchmark", {M("flops", 2, Source::kModel), M("flops", 131072, Source::kSim)}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(Contains(notes[0].detail, "the benchmark's declared FLOPs per iteration"))
      << notes[0].detail;
  EXPECT_TRUE(Contains(notes[0].detail, "kIsIterationInvariantRate")) << notes[0].detail;
}

}  // namespace
}  // namespace rprof
