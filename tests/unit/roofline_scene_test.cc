// What a roofline picture shows, on a hand-made profile and runs: every level and source that
// placement has becomes a point, the binding one the level placement chose; what cannot be drawn
// is left out with its reason; sweeps are labelled by their parameter; runs placed against other
// threads' roofs are warned about. And the SVG carries placement's numbers as data.
#include "report/roofline_scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/roofline_svg.h"
#include "roofline/placement.h"
#include "test_ceilings.h"

namespace rprof {
namespace {

using testing_support::MakeCeiling;

MachineProfile TestProfile() {
  MachineProfile p;
  p.ceilings = {MakeCeiling("compute", "", "avx2", "fp64", "fma", 1, 50),
                MakeCeiling("compute", "", "scalar", "fp64", "fma", 1, 8),
                MakeCeiling("compute", "", "avx2", "fp32", "fma", 1, 100),
                MakeCeiling("bandwidth", "l1", "avx2", "fp64", "load", 1, 400),
                MakeCeiling("bandwidth", "l2", "avx2", "fp64", "load", 1, 150),
                MakeCeiling("bandwidth", "dram", "avx2", "fp64", "triad", 1, 20),
                MakeCeiling("compute", "", "avx2", "fp64", "fma", 2, 100),
                MakeCeiling("bandwidth", "dram", "avx2", "fp64", "triad", 2, 25)};
  return p;
}

Metric M(const std::string& name, double value, Source source) {
  return Metric{name, value, "", source, "", ""};
}

RunRecord MakeRun(int64_t id, const std::string& target, KeyValues params,
                  std::vector<Metric> metrics) {
  RunRecord run;
  run.id = id;
  run.target = target;
  run.target_kind = "builtin";
  run.precision = "fp64";
  run.params = std::move(params);
  run.metrics = std::move(metrics);
  return run;
}

// A streaming kernel measured by sim (bytes at L1, L2, DRAM) and modelled (DRAM).
RunRecord SimTriad(int64_t id, const std::string& n) {
  return MakeRun(id, "triad", {{"n", n}},
                 {M("flops", 2e6, Source::kSim), M("bytes_l1", 24e6, Source::kSim),
                  M("bytes_l2", 30e6, Source::kSim), M("bytes_dram", 32e6, Source::kSim),
                  M("gflops", 1.5, Source::kSim), M("flops", 2e6, Source::kModel),
                  M("bytes_dram", 24e6, Source::kModel), M("gflops", 1.5, Source::kModel)});
}

TEST(RooflineScene, PointsAndBindingAreThePlacements) {
  MachineProfile profile = TestProfile();
  RunRecord run = SimTriad(1, "1000");
  RooflineScene scene = BuildRooflineScene(profile, {run}, 1);
  ASSERT_EQ(scene.series.size(), 1u);
  const SceneSeries& s = scene.series[0];
  Placement p = PlaceRun(run.metrics, RunShapeOf(run, profile), profile);
  ASSERT_TRUE(p.placed);
  EXPECT_EQ(s.placement.binding, p.binding);
  EXPECT_EQ(s.placement.percent_of_roof, p.percent_of_roof);
  ASSERT_EQ(s.points.size(), p.levels.size());
  int binding = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    EXPECT_EQ(s.points[i].level, p.levels[i].level);
    EXPECT_EQ(s.points[i].source, p.levels[i].source);
    EXPECT_DOUBLE_EQ(s.points[i].ai, p.levels[i].ai);
    EXPECT_DOUBLE_EQ(s.points[i].gflops, *p.achieved);
    if (s.points[i].binding) {
      ++binding;
      EXPECT_EQ(s.points[i].level, p.binding_level);
      EXPECT_EQ(s.points[i].source, p.binding_source);
    }
  }
  EXPECT_EQ(binding, 1);
  // sim's DRAM traffic (32 MB) over 20 GB/s is the lowest roof: DRAM binds, from sim.
  EXPECT_EQ(p.binding_level, "dram");
  EXPECT_EQ(p.binding_source, Source::kSim);
  EXPECT_TRUE(scene.warnings.empty());
}

TEST(RooflineScene, WhatCannotBeDrawnIsLeftOutWithItsReason) {
  RunRecord crashed = SimTriad(2, "1000");
  crashed.status = RunStatus::kCrashed;
  crashed.signal = 11;
  RunRecord copy = MakeRun(3, "copy", {{"n", "1000"}},
                           {M("flops", 0, Source::kModel), M("bytes_dram", 16e3, Source::kModel),
                            M("gbs_dram", 11, Source::kModel)});
  RunRecord no_flops = MakeRun(4, "prog", {}, {M("bytes_dram", 1e6, Source::kModel)});
  RooflineScene scene = BuildRooflineScene(TestProfile(), {crashed, copy, no_flops}, 1);
  EXPECT_TRUE(scene.series.empty());
  ASSERT_EQ(scene.left_out.size(), 3u);
  EXPECT_EQ(scene.left_out[0].name, "#2 triad n=1000");
  EXPECT_EQ(scene.left_out[0].reason.rfind("crashed (signal 11)", 0), 0u)
      << scene.left_out[0].reason;
  EXPECT_EQ(scene.left_out[1].reason.rfind("no floating-point work", 0), 0u)
      << scene.left_out[1].reason;
  EXPECT_NE(scene.left_out[2].reason.find("no FLOP count"), std::string::npos)
      << scene.left_out[2].reason;
}

TEST(RooflineScene, SweepsAreLabelledByTheirParameter) {
  RunRecord other = SimTriad(7, "9");
  other.target = "a-kernel-with-a-very-long-name";
  RooflineScene scene =
      BuildRooflineScene(TestProfile(), {SimTriad(5, "512"), SimTriad(6, "1024"), other}, 1);
  ASSERT_EQ(scene.series.size(), 3u);
  EXPECT_EQ(scene.series[0].label, "triad n=512");
  EXPECT_EQ(scene.series[1].label, "triad n=1024");
  // Alone of its kernel: its id and name, shortened; the full name stays.
  EXPECT_EQ(scene.series[2].label, "#7 a-kernel-with-a-\xe2\x80\xa6");
  EXPECT_EQ(scene.series[2].name, "#7 a-kernel-with-a-very-long-name n=9");
}

TEST(RooflineScene, ProgramsAreLabelledByTheirNamesNotTheirFolders) {
  const std::string folder = "/home/student/a-rather-long-project-folder/build/src/";
  RunRecord alpha = SimTriad(3, "1");
  alpha.target_kind = "executable";
  alpha.target = folder + "solver_alpha";
  alpha.params = {};
  RunRecord beta = alpha;
  beta.id = 4;
  beta.target = folder + "stencil_beta";
  RunRecord again = alpha;  // the same name in another folder: told apart by id
  again.id = 5;
  again.target = "/opt/other/solver_alpha";
  RooflineScene scene = BuildRooflineScene(TestProfile(), {alpha, beta, again}, 1);
  ASSERT_EQ(scene.series.size(), 3u);
  EXPECT_EQ(scene.series[0].label, "#3 solver_alpha");
  EXPECT_EQ(scene.series[1].label, "#4 stencil_beta");
  EXPECT_EQ(scene.series[2].label, "#5 solver_alpha");
  EXPECT_EQ(scene.series[0].name, "#3 " + folder + "solver_alpha");
}

TEST(RooflineScene, OnlyTheRoofsThatMatterUnlessAllAreAsked) {
  // An fp64 run measured by sim (traffic at L1, L2, DRAM) with a model DRAM point: fp64's best
  // roof, each level in compulsory bytes, traffic where sim's bytes are; not fp32's roof.
  MachineProfile profile = TestProfile();
  RooflineScene scene = BuildRooflineScene(profile, {SimTriad(1, "1000")}, 1);
  std::vector<std::string> drawn;
  for (const SceneRoof& r : scene.roofs) drawn.push_back(r.ceiling + (r.traffic ? " t" : ""));
  for (const SceneRoof& r : scene.roofs) EXPECT_NE(r.precision, "fp32") << r.label;
  EXPECT_EQ(std::count(drawn.begin(), drawn.end(), "fp64_avx2_fma"), 1)
      << testing::PrintToString(drawn);
  RooflineScene all = BuildRooflineScene(profile, {SimTriad(1, "1000")}, 1, true);
  EXPECT_EQ(all.hidden_roofs, 0);
  EXPECT_EQ(scene.hidden_roofs + scene.roofs.size(), all.roofs.size());
  EXPECT_GT(scene.hidden_roofs, 0);
}

TEST(RooflineScene, RepeatedRunsOfASweepAreToldApartById) {
  RooflineScene scene = BuildRooflineScene(
      TestProfile(), {SimTriad(5, "512"), SimTriad(6, "512"), SimTriad(7, "1024")}, 1);
  ASSERT_EQ(scene.series.size(), 3u);
  EXPECT_EQ(scene.series[0].label, "#5 triad n=512");
  EXPECT_EQ(scene.series[1].label, "#6 triad n=512");
  EXPECT_EQ(scene.series[2].label, "triad n=1024");
}

TEST(RooflineScene, OtherThreadsRoofsAreWarned) {
  RooflineScene scene = BuildRooflineScene(TestProfile(), {SimTriad(1, "1000")}, 2);
  ASSERT_EQ(scene.warnings.size(), 1u);
  EXPECT_NE(scene.warnings[0].find("placed against its own 1-thread roofs"), std::string::npos)
      << scene.warnings[0];
  EXPECT_NE(scene.warnings[0].find("--threads 1 draws its own"), std::string::npos);
  // The roofs drawn are the 2-thread ones.
  for (const SceneRoof& r : scene.roofs) {
    if (r.compute)
      EXPECT_EQ(r.value, 100);
    else
      EXPECT_EQ(r.value, 25);
  }
}

TEST(RooflineSvg, CarriesPlacementAsData) {
  MachineProfile profile = TestProfile();
  RunRecord run = SimTriad(1, "1000");
  RooflineScene scene = BuildRooflineScene(profile, {run}, 1);
  SvgOptions options;
  options.title = "test";
  std::string svg = RooflineSvg(scene, options);
  const Placement& p = scene.series[0].placement;
  EXPECT_NE(svg.find("data-binding=\"" + p.binding + "\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-binding-level=\"dram\" data-binding-source=\"sim\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"run-label\""), std::string::npos);
  // Text is escaped: a title with markup stays text.
  options.title = "a <b> & \"c\"";
  EXPECT_NE(RooflineSvg(scene, options).find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
}

TEST(ShortenLabel, CutsByCharactersNotBytes) {
  EXPECT_EQ(ShortenLabel("short", 20), "short");
  EXPECT_EQ(ShortenLabel("abcdef", 4), "abc\xe2\x80\xa6");
  EXPECT_EQ(ShortenLabel("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3),
            "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
}

}  // namespace
}  // namespace rprof
