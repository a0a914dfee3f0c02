// The roofline's gnuplot script on a hand-made profile and hand-made runs: every ceiling of the
// chosen thread count labelled (compute per precision and ISA, bandwidth per memory level), every
// run with FLOPs and bytes a labelled point per source, the others listed as left out; and the
// terminal chosen by the output file's extension. gnuplot itself is not needed here (the CLI
// tests render the script).
#include "report/roofline_plot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_ceilings.h"

namespace rprof {
namespace {

using testing_support::MakeCeiling;

Ceiling Compute(const std::string& precision, const std::string& isa, const std::string& pattern,
                int threads, double value) {
  return MakeCeiling("compute", "", isa, precision, pattern, threads, value);
}

Ceiling Bandwidth(const std::string& level, const std::string& pattern, int threads, double value) {
  return MakeCeiling("bandwidth", level, "avx2", "fp64", pattern, threads, value);
}

// 1 thread: fp64 scalar/avx2, fp32 avx2 (the best pattern of each is drawn); L1, L2, DRAM (the
// DRAM roof is triad's 25, not the non-temporal copy's 50). 2 threads: other values, which must
// not appear in a 1-thread plot.
MachineProfile TestProfile() {
  MachineProfile p;
  p.ceilings = {
      Compute("fp64", "scalar", "add", 1, 4.5), Compute("fp64", "scalar", "fma", 1, 7.6),
      Compute("fp64", "avx2", "fma", 1, 55.5),  Compute("fp64", "avx2", "add", 1, 27.5),
      Compute("fp32", "avx2", "fma", 1, 111),   Bandwidth("l1", "load", 1, 436),
      Bandwidth("l1", "copy", 1, 300),          Bandwidth("l2", "load", 1, 157),
      Bandwidth("dram", "load", 1, 13.4),       Bandwidth("dram", "triad", 1, 25),
      Bandwidth("dram", "copy_nt", 1, 50),      Compute("fp64", "avx2", "fma", 2, 222),
      Bandwidth("l1", "load", 2, 872),          Bandwidth("dram", "triad", 2, 27.7),
  };
  return p;
}

Metric M(const std::string& name, double value, Source source) {
  return Metric{name, value, "", source, "", ""};
}

RunRecord MakeRun(int64_t id, const std::string& target, std::vector<Metric> metrics) {
  RunRecord run;
  run.id = id;
  run.target = target;
  run.target_kind = "builtin";
  run.precision = "fp64";
  run.metrics = std::move(metrics);
  return run;
}

// A triad (model only), a matmul measured by sim and modelled (two points, joined), a copy
// without FLOPs, and a run with FLOPs but no intensity.
std::vector<RunRecord> TestRuns() {
  return {
      MakeRun(1, "triad",
              {M("ai_dram", 2.0 / 24, Source::kModel), M("gflops", 1.9, Source::kModel)}),
      MakeRun(2, "matmul-ikj",
              {M("ai_dram", 8, Source::kSim), M("gflops", 20, Source::kSim),
               M("ai_dram", 42.7, Source::kModel), M("gflops", 20, Source::kModel)}),
      MakeRun(3, "copy",
              {M("ai_dram", 0, Source::kModel), M("gflops", 0, Source::kModel),
               M("gbs_dram", 11, Source::kModel)}),
      MakeRun(4, "dot", {M("gflops", 2.5, Source::kModel)}),
  };
}

PlotOptions Options(int threads = 1) {
  PlotOptions o;
  o.terminal = TerminalForFile("roofline.svg");
  o.output = "out/roofline.svg";
  o.title = "roofline of Test CPU, profile 7";
  o.threads = threads;
  return o;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The `set label "TEXT" ...` lines' TEXT, in order.
std::vector<std::string> Labels(const std::string& script) {
  std::vector<std::string> out;
  const std::string prefix = "set label \"";
  for (size_t at = script.find(prefix); at != std::string::npos; at = script.find(prefix, at + 1)) {
    size_t start = at + prefix.size();
    out.push_back(script.substr(start, script.find('"', start) - start));
  }
  return out;
}

TEST(RooflineGnuplotScript, LabelsEveryCeilingOfItsThreadCount) {
  std::string s = RooflineGnuplotScript(TestProfile(), TestRuns(), Options());
  // Compute: one roof per precision and ISA, its best pattern; bandwidth: one per level.
  std::vector<std::string> want = {"DRAM 25 GB/s",
                                   "L1 436 GB/s",
                                   "L2 157 GB/s",
                                   "fp32 avx2 fma 111 GFLOP/s",
                                   "fp64 avx2 fma 55.5 GFLOP/s",
                                   "fp64 scalar fma 7.6 GFLOP/s"};
  EXPECT_EQ(Labels(s), want) << s;
  // Lower patterns and other thread counts are not drawn; nor is the non-temporal copy (the
  // label list above is exact, these say why in words).
  EXPECT_FALSE(Contains(s, "fp64 scalar add")) << s;
  EXPECT_FALSE(Contains(s, "fp64 avx2 add")) << s;
  EXPECT_FALSE(Contains(s, "DRAM 50 GB/s")) << s;
  EXPECT_FALSE(Contains(s, "DRAM 13.4 GB/s")) << s;
  EXPECT_FALSE(Contains(s, "222 GFLOP/s")) << s;
  EXPECT_FALSE(Contains(s, "872 GB/s")) << s;
}

TEST(RooflineGnuplotScript, MeasuredPointsGetTheActualTrafficRoofToo) {
  // With both conventions known (DRAM triad 25 GB/s compulsory = 33.3 of traffic, 24/32 B per
  // element), a plot with sim points draws the DRAM traffic roof they are placed against, next
  // to the compulsory one the model's points are; L1 and L2 (factors not known here) only once.
  MachineProfile profile = TestProfile();
  for (Ceiling& c : profile.ceilings)
    if (c.name == "dram_triad") c.bytes_per_element = 24, c.traffic_bytes_per_element = 32;
  std::string s = RooflineGnuplotScript(profile, TestRuns(), Options());
  std::vector<std::string> want = {"DRAM 25 GB/s",
                                   "L1 436 GB/s",
                                   "L2 157 GB/s",
                                   "DRAM 33.3 GB/s traffic (sim, pmu)",
                                   "fp32 avx2 fma 111 GFLOP/s",
                                   "fp64 avx2 fma 55.5 GFLOP/s",
                                   "fp64 scalar fma 7.6 GFLOP/s"};
  EXPECT_EQ(Labels(s), want) << s;
  // Model points alone: only the compulsory roofs.
  std::vector<RunRecord> model_only = {TestRuns()[0]};
  EXPECT_FALSE(Contains(RooflineGnuplotScript(profile, model_only, Options()), "traffic")) << s;
}

TEST(RooflineGnuplotScript, TwoThreadPlotDrawsTwoThreadCeilings) {
  std::string s = RooflineGnuplotScript(TestProfile(), TestRuns(), Options(2));
  std::vector<std::string> want = {"DRAM 27.7 GB/s", "L1 872 GB/s", "fp64 avx2 fma 222 GFLOP/s"};
  EXPECT_EQ(Labels(s), want) << s;
}

TEST(RooflineGnuplotScript, LabelsEveryRunPointPerSource) {
  std::string s = RooflineGnuplotScript(TestProfile(), TestRuns(), Options());
  EXPECT_TRUE(Contains(s, "\"#1 triad (model)\"")) << s;
  EXPECT_TRUE(Contains(s, "\"#2 matmul-ikj (sim)\"")) << s;
  EXPECT_TRUE(Contains(s, "\"#2 matmul-ikj (model)\"")) << s;
  // The points are in the $runs block: x y "label".
  EXPECT_TRUE(Contains(s, "0.0833333 1.9 \"#1 triad (model)\"\n")) << s;
  EXPECT_TRUE(Contains(s, "8 20 \"#2 matmul-ikj (sim)\"\n")) << s;
  // The model point is joined to the measured one: one segment in $links.
  EXPECT_TRUE(Contains(s, "$links << EOD\n42.7 20\n8 20\n\nEOD\n")) << s;
  EXPECT_TRUE(Contains(s, "$links with lines")) << s;
  EXPECT_TRUE(Contains(s, "$runs using 1:2:3 with labels")) << s;
}

TEST(RooflineGnuplotScript, RunsWithoutFlopsOrBytesAreListedAsLeftOut) {
  std::string s = RooflineGnuplotScript(TestProfile(), TestRuns(), Options());
  EXPECT_TRUE(Contains(s, "# left out (no FLOPs or no bytes): #3 copy\n")) << s;
  EXPECT_TRUE(Contains(s, "# left out (no FLOPs or no bytes): #4 dot\n")) << s;
  EXPECT_FALSE(Contains(s, "\"#3 copy")) << s;
  EXPECT_FALSE(Contains(s, "\"#4 dot")) << s;
  EXPECT_FALSE(Contains(s, "left out (no FLOPs or no bytes): #1")) << s;
}

TEST(RooflineGnuplotScript, TerminalOutputTitleAndAxes) {
  std::string s = RooflineGnuplotScript(TestProfile(), TestRuns(), Options());
  EXPECT_TRUE(Contains(s, "set terminal " + TerminalForFile("x.svg") + "\n")) << s;
  EXPECT_TRUE(Contains(s, "set output \"out/roofline.svg\"\n")) << s;
  EXPECT_TRUE(Contains(s, "set title \"roofline of Test CPU, profile 7\"\n")) << s;
  EXPECT_TRUE(Contains(s, "set logscale xy\n")) << s;
  EXPECT_TRUE(Contains(s, "$roofs << EOD\n")) << s;

  // No output file: no `set output` (gnuplot writes to stdout, as for the terminal).
  PlotOptions o = Options();
  o.output.clear();
  o.terminal = "dumb size 110,34 noenhanced";
  std::string dumb = RooflineGnuplotScript(TestProfile(), TestRuns(), o);
  EXPECT_FALSE(Contains(dumb, "set output")) << dumb;
  EXPECT_TRUE(Contains(dumb, "set terminal dumb size 110,34 noenhanced\n")) << dumb;
}

TEST(RooflineGnuplotScript, QuotesInNamesAreEscaped) {
  std::vector<RunRecord> runs = {
      MakeRun(9, "/opt/my \"fast\" bench",
              {M("ai_dram", 1, Source::kModel), M("gflops", 5, Source::kModel)})};
  PlotOptions o = Options();
  o.title = "host \"lab\\1\"";
  std::string s = RooflineGnuplotScript(TestProfile(), runs, o);
  EXPECT_TRUE(Contains(s, "\"#9 /opt/my \\\"fast\\\" bench (model)\"")) << s;
  EXPECT_TRUE(Contains(s, "set title \"host \\\"lab\\\\1\\\"\"\n")) << s;
}

// A program whose whole run has no FLOPs (pmu) but whose marker region declared its work: the
// region is a point of its own; a region without FLOPs is listed as left out.
TEST(RooflineGnuplotScript, EveryMarkerRegionWithFlopsAndBytesIsAPoint) {
  Metric ai = M("ai_dram", 2.0 / 24, Source::kModel), gflops = M("gflops", 4, Source::kModel);
  Metric time = M("time_s", 0.5, Source::kClock), init_time = time;
  ai.region = gflops.region = time.region = "triad";
  init_time.region = "init";
  std::vector<RunRecord> runs = {
      MakeRun(5, "marker_example", {M("time_s", 1, Source::kClock), ai, gflops, time, init_time})};
  EXPECT_EQ(PlottableRuns(runs), 1);
  std::string s = RooflineGnuplotScript(TestProfile(), runs, Options());
  EXPECT_TRUE(Contains(s, "0.0833333 4 \"#5 marker_example region triad (model)\"\n")) << s;
  EXPECT_TRUE(Contains(s, "# left out (no FLOPs or no bytes): #5 marker_example\n")) << s;
  EXPECT_TRUE(Contains(s, "# left out (no FLOPs or no bytes): #5 marker_example region init\n"))
      << s;
}

TEST(RooflineGnuplotScript, NoRunsStillDrawsTheRoofs) {
  std::string s = RooflineGnuplotScript(TestProfile(), {}, Options());
  EXPECT_EQ(Labels(s).size(), 6u) << s;
  EXPECT_FALSE(Contains(s, "$runs using")) << s;
  EXPECT_TRUE(Contains(s, "plot $roofs with lines")) << s;
}

TEST(TerminalForFile, ByExtension) {
  EXPECT_EQ(TerminalForFile("x.svg").rfind("svg ", 0), 0u) << TerminalForFile("x.svg");
  EXPECT_EQ(TerminalForFile("dir/x.png").rfind("pngcairo ", 0), 0u) << TerminalForFile("x.png");
  EXPECT_EQ(TerminalForFile("/tmp/a.b/x.pdf").rfind("pdfcairo ", 0), 0u)
      << TerminalForFile("x.pdf");
  for (const char* path : {"x.svg", "x.png", "x.pdf"})
    EXPECT_TRUE(Contains(TerminalForFile(path), "noenhanced")) << path;
  EXPECT_EQ(TerminalForFile("x.txt"), "");
  EXPECT_EQ(TerminalForFile("x"), "");
  EXPECT_EQ(TerminalForFile("svg"), "");
  EXPECT_EQ(TerminalForFile("x.svg.txt"), "");
  EXPECT_EQ(TerminalForFile(""), "");
}

}  // namespace
}  // namespace rprof
