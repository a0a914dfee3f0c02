// The axes of a roofline picture (RooflineScene's rule): they cover the roofs' useful region
// and the bulk of the points; a point more than kFarDecades beyond the rest is not placed in the
// frame but drawn as an edge marker with its value, in the SVG and in the terminal; and the
// terminal's labels never touch each other or a point: a label with no room is named under
// the frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "report/roofline_scene.h"
#include "report/roofline_svg.h"
#include "report/roofline_terminal.h"
#include "test_ceilings.h"

namespace rprof {
namespace {

using testing_support::MakeCeiling;

// Roofs: fp64 50 GFLOP/s, L1 400 GB/s, DRAM 20 GB/s. Their region: AI 1/32 to 32, rate from
// 20/32 = 0.625 to 150 GFLOP/s.
MachineProfile TestProfile() {
  MachineProfile p;
  p.ceilings = {MakeCeiling("compute", "", "avx2", "fp64", "fma", 1, 50),
                MakeCeiling("bandwidth", "l1", "avx2", "fp64", "load", 1, 400),
                MakeCeiling("bandwidth", "dram", "avx2", "fp64", "triad", 1, 20)};
  return p;
}

Metric M(const std::string& name, double value, Source source = Source::kModel) {
  return Metric{name, value, "", source, "", ""};
}

// A model run at intensity `ai` (FLOP per DRAM byte) and `gflops`.
RunRecord ModelRun(int64_t id, const std::string& target, double ai, double gflops) {
  RunRecord run;
  run.id = id;
  run.target = target;
  run.target_kind = "builtin";
  run.precision = "fp64";
  run.metrics = {M("flops", 1e6), M("bytes_dram", 1e6 / ai), M("gflops", gflops)};
  return run;
}

// A run measured by sim: bytes at L1 and DRAM, the DRAM ones `dram_ai` FLOP per byte.
RunRecord SimRun(int64_t id, const std::string& target, double dram_ai, double gflops) {
  RunRecord run = ModelRun(id, target, 1, gflops);
  run.metrics = {M("flops", 1e6, Source::kSim), M("bytes_l1", 4e6, Source::kSim),
                 M("bytes_dram", 1e6 / dram_ai, Source::kSim), M("gflops", gflops, Source::kSim)};
  return run;
}

const SceneSeries& SeriesOf(const RooflineScene& scene, int64_t run_id) {
  for (const SceneSeries& s : scene.series)
    if (s.run_id == run_id) return s;
  throw std::runtime_error("no series of run " + std::to_string(run_id));
}

int OffScale(const RooflineScene& scene) {
  int n = 0;
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) n += p.off_scale();
  return n;
}

TEST(RooflineAxes, AFarPointDoesNotStretchTheAxisAndIsAnEdgeMarker) {
  RooflineScene scene = BuildRooflineScene(
      TestProfile(),
      {ModelRun(1, "a", 0.5, 3), ModelRun(2, "b", 2, 8), ModelRun(3, "f", 1, 1.2e-7)}, 1);
  ASSERT_EQ(scene.series.size(), 3u);
  // Today's rule would have gone down to 1.2e-7 / 3: the axis covers the roofs' region.
  EXPECT_NEAR(scene.ymin, 20.0 / 32, 1e-9);
  EXPECT_NEAR(scene.ymax, 150, 1e-9);
  EXPECT_NEAR(scene.xmin, 1.0 / 32, 1e-12);
  const ScenePoint& far = SeriesOf(scene, 3).points.at(0);
  EXPECT_EQ(far.beyond_y, -1);
  EXPECT_EQ(far.beyond_x, 0);
  EXPECT_EQ(far.edge_label, "#3 f: 1.2e-07 GFLOP/s");
  EXPECT_EQ(OffScale(scene), 1);
  for (int64_t id : {1, 2})
    for (const ScenePoint& p : SeriesOf(scene, id).points) {
      EXPECT_FALSE(p.off_scale());
      EXPECT_EQ(p.edge_label, "");
    }
}

TEST(RooflineAxes, PointsWithinTwoDecadesWidenTheAxis) {
  // 0.01 GFLOP/s is 1.8 decades below the roofs' region (0.625): it widens the axis, and a point
  // within 2 decades of that one widens it further (a chain is the bulk, not an outlier).
  RooflineScene scene = BuildRooflineScene(
      TestProfile(), {ModelRun(1, "a", 1, 3), ModelRun(2, "b", 1, 0.01), ModelRun(3, "c", 1, 2e-4)},
      1);
  EXPECT_EQ(OffScale(scene), 0);
  EXPECT_NEAR(scene.ymin, 2e-4 / 3, 1e-12);
  // 2.5 decades below the lowest: beyond.
  scene = BuildRooflineScene(
      TestProfile(), {ModelRun(1, "a", 1, 3), ModelRun(2, "b", 1, 0.01), ModelRun(3, "c", 1, 3e-5)},
      1);
  EXPECT_EQ(OffScale(scene), 1);
  EXPECT_EQ(SeriesOf(scene, 3).points.at(0).beyond_y, -1);
  EXPECT_NEAR(scene.ymin, 0.01 / 3, 1e-12);
}

TEST(RooflineAxes, TheBulkOfThePointsStaysEvenFarFromTheRoofs) {
  // A slow interpreted program: every point 4 decades under the roofs' region. They are the
  // picture; the axis goes down to them.
  RooflineScene scene = BuildRooflineScene(
      TestProfile(),
      {ModelRun(1, "a", 1, 1e-4), ModelRun(2, "b", 2, 2e-4), ModelRun(3, "c", 1, 3e-4)}, 1);
  EXPECT_EQ(OffScale(scene), 0);
  EXPECT_NEAR(scene.ymin, 1e-4 / 3, 1e-12);
  EXPECT_NEAR(scene.ymax, 150, 1e-9);
  // One fast kernel among them, near the roofs, stays too: the roofs' region is covered.
  scene = BuildRooflineScene(
      TestProfile(), {ModelRun(1, "a", 1, 1e-4), ModelRun(2, "b", 2, 2e-4), ModelRun(4, "k", 1, 5)},
      1);
  EXPECT_EQ(OffScale(scene), 0);
}

TEST(RooflineAxes, AnIntensityFarRightIsAnEdgeMarkerPerPoint) {
  // sim's DRAM bytes of cache-resident data: almost none, AI 1e6; its L1 point (AI 0.25) and the
  // other run's stay; the DRAM point is beyond on the right, labelled with its level and AI.
  RooflineScene scene =
      BuildRooflineScene(TestProfile(), {SimRun(1, "gemm", 1e6, 5), ModelRun(2, "b", 4, 2)}, 1);
  EXPECT_NEAR(scene.xmax, 32, 1e-9);
  const SceneSeries& s = SeriesOf(scene, 1);
  ASSERT_EQ(s.points.size(), 2u);
  for (const ScenePoint& p : s.points) {
    if (p.level == "dram") {
      EXPECT_EQ(p.beyond_x, 1);
      EXPECT_EQ(p.beyond_y, 0);
      EXPECT_EQ(p.edge_label, "#1 gemm: DRAM AI 1e+06");
    } else {
      EXPECT_FALSE(p.off_scale()) << p.level;
    }
  }
}

TEST(RooflineAxes, ARateBeyondIsOneLabelPerSeries) {
  // Every point of a series has its rate: all beyond, one label, on the binding point.
  RooflineScene scene = BuildRooflineScene(
      TestProfile(), {SimRun(1, "slow", 0.5, 1e-8), ModelRun(2, "a", 1, 3), ModelRun(3, "b", 1, 4)},
      1);
  const SceneSeries& s = SeriesOf(scene, 1);
  int labels = 0;
  for (const ScenePoint& p : s.points) {
    EXPECT_EQ(p.beyond_y, -1);
    if (!p.edge_label.empty()) {
      ++labels;
      EXPECT_TRUE(p.binding);
      EXPECT_EQ(p.edge_label, "#1 slow: 1e-08 GFLOP/s");
    }
  }
  EXPECT_EQ(labels, 1);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(RooflineAxes, TheTerminalDrawsAnEdgeMarkerWithItsValue) {
  RooflineScene scene = BuildRooflineScene(
      TestProfile(),
      {ModelRun(1, "a", 0.5, 3), ModelRun(2, "b", 2, 8), ModelRun(3, "f", 1, 1.2e-7)}, 1);
  std::vector<std::string> lines = Lines(RooflineText(scene, "t", 80, 24));
  // The frame's last row inside: "v" and its label, a blank between.
  size_t bottom = 0;
  for (size_t i = 2; i < lines.size(); ++i)
    if (lines[i].find("+---") != std::string::npos) bottom = i;
  ASSERT_GT(bottom, 0u);
  const std::string& row = lines[bottom - 1];
  EXPECT_NE(row.find("v #3 f: 1.2e-07 GFLOP/s"), std::string::npos) << row;
  std::string text = RooflineText(scene, "t", 80, 24);
  EXPECT_NE(text.find("v ^ < > a point beyond the axes"), std::string::npos);
  EXPECT_EQ(text.find("1e-07 +"), std::string::npos) << "no tick of the far point's decade";
}

TEST(RooflineAxes, TheSvgDrawsAnEdgeMarkerWithItsValue) {
  RooflineScene scene = BuildRooflineScene(
      TestProfile(),
      {ModelRun(1, "a", 0.5, 3), ModelRun(2, "b", 2, 8), ModelRun(3, "f", 1, 1.2e-7)}, 1);
  SvgOptions options;
  options.title = "t";
  std::string svg = RooflineSvg(scene, options);
  EXPECT_NE(svg.find("data-edge=\"below\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(">#3 f: 1.2e-07 GFLOP/s</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">1e-07</text>"), std::string::npos) << "no tick of the far point's decade";
}

// Every label of a terminal picture of `scene`: found whole inside the frame with a blank (or
// the frame) on either side, or named in the line under it. Longest first, each found one
// blanked, so a label that is part of a longer one is found on its own.
void ExpectLabelsWholeAndApart(const RooflineScene& scene, size_t width, size_t height) {
  std::string text = RooflineText(scene, "t", width, height);
  std::vector<std::string> lines = Lines(text);
  std::vector<std::string> frame;
  bool in = false;
  for (const std::string& line : lines) {
    if (line.find("+---") != std::string::npos) {
      if (in) break;
      in = true;
      continue;
    }
    if (in) frame.push_back(line + " ");
  }
  // The line under the frame, its wrapped continuations (indented) joined again.
  std::string unplaced;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("no room on the plot for the label of:", 0) != 0) continue;
    unplaced = lines[i];
    for (size_t j = i + 1; j < lines.size() && lines[j].rfind("  ", 0) == 0; ++j) {
      unplaced += ' ';  // appended, not " " + string: GCC 12's false -Wrestrict
      unplaced += lines[j].substr(lines[j].find_first_not_of(' '));
    }
  }
  // Each series' label, or its short form (its run's id); longest first.
  std::vector<std::pair<std::string, std::string>> labels;
  for (const SceneSeries& s : scene.series) labels.push_back({s.label, RunRef(s.run_id)});
  std::sort(labels.begin(), labels.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  auto find_whole = [&](const std::string& label) {
    for (std::string& row : frame)
      for (size_t at = row.find(label); at != std::string::npos; at = row.find(label, at + 1)) {
        char before = at ? row[at - 1] : ' ', after = row[at + label.size()];
        if ((before == ' ' || before == '|') && (after == ' ' || after == '|')) {
          row.replace(at, label.size(), std::string(label.size(), '@'));
          return true;
        }
      }
    return false;
  };
  int placed = 0;
  for (const auto& [label, ref] : labels) {
    bool found = find_whole(label) || find_whole(ref);
    placed += found;
    if (!found) {
      EXPECT_NE(unplaced.find(label), std::string::npos)
          << "label " << label << " neither whole on the plot nor named under it:\n"
          << text;
    }
  }
  EXPECT_GT(placed, 0) << text;
}

TEST(RooflineAxes, TerminalLabelsNeverTouch) {
  // Twelve runs close together, as a mixed `plot --last 12` of kernels and programs draws them.
  std::vector<RunRecord> runs;
  for (int i = 0; i < 12; ++i)
    runs.push_back(ModelRun(i + 1, std::string("kernel") + static_cast<char>('a' + i),
                            0.2 * std::pow(1.4, i % 6), 0.8 * std::pow(1.5, i / 2)));
  RooflineScene scene = BuildRooflineScene(TestProfile(), runs, 1);
  for (auto [w, h] : {std::pair<size_t, size_t>{80, 24}, {100, 30}, {40, 12}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    ExpectLabelsWholeAndApart(scene, w, h);
  }
}

}  // namespace
}  // namespace rprof
