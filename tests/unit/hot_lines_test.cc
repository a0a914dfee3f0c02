// Which lines of a hot function are shown (functions/hot_lines.h) and how their regions are
// named and read back.
#include "functions/hot_lines.h"

#include <gtest/gtest.h>

namespace rprof {
namespace {

std::vector<uint32_t> Lines(const std::vector<LineCandidate>& c,
                            const std::vector<size_t>& chosen) {
  std::vector<uint32_t> lines;
  for (size_t i : chosen) lines.push_back(c[i].line);
  return lines;
}

TEST(SelectHotLines, TopByTimeAndTopByFlopsOrderedByTimeThenFlops) {
  // Line 10 holds the FLOPs but little time; 20 and 30 most of the time, no FLOPs; 40 a little
  // of both; 50 neither.
  std::vector<LineCandidate> c = {
      {"a.c", 10, 1000, 100, 0.05}, {"a.c", 20, 0, 500, 0.60}, {"a.c", 30, 0, 300, 0.20},
      {"a.c", 40, 10, 50, 0.01},    {"a.c", 50, 0, 5, 0.0},
  };
  HotLineRule rule;
  rule.top = 2;
  // Top 2 by time: 20, 30; top 2 by FLOPs: 10, 40; by time: 20, 30, 10, 40; 50 never.
  EXPECT_EQ(Lines(c, SelectHotLines(c, rule)), (std::vector<uint32_t>{20, 30, 10, 40}));
  rule.top = 1;
  EXPECT_EQ(Lines(c, SelectHotLines(c, rule)), (std::vector<uint32_t>{20, 10}));
}

TEST(SelectHotLines, EqualTimeOrderedByFlops) {
  std::vector<LineCandidate> c = {
      {"a.c", 7, 10, 1, 0.25}, {"a.c", 8, 90, 1, 0.25}, {"a.c", 9, 0, 1, 0.5}};
  EXPECT_EQ(Lines(c, SelectHotLines(c, {})), (std::vector<uint32_t>{9, 8, 7}));
}

TEST(SelectHotLines, WithoutSamplingInstructionsStandForTime) {
  std::vector<LineCandidate> c = {{"a.c", 1, 0, 10, std::nullopt},
                                  {"a.c", 2, 0, 90, std::nullopt},
                                  {"a.c", 3, 0, 0, std::nullopt}};
  EXPECT_EQ(Lines(c, SelectHotLines(c, {})), (std::vector<uint32_t>{2, 1}));
}

TEST(SelectHotLines, LinesWithNeitherTimeNorFlopsAreSkipped) {
  // Sampled: a line no sample fell on, without FLOPs, is not shown even with instructions.
  std::vector<LineCandidate> c = {{"a.c", 1, 0, 100, 0.0}, {"a.c", 2, 0, 10, 0.3}};
  EXPECT_EQ(Lines(c, SelectHotLines(c, {})), (std::vector<uint32_t>{2}));
  EXPECT_TRUE(SelectHotLines({}, {}).empty());
  HotLineRule off;
  off.top = 0;
  EXPECT_TRUE(SelectHotLines(c, off).empty());
}

TEST(LineRegion, NamedAndReadBackFromTheFunctionsSide) {
  EXPECT_EQ(LineRegion("triad", "/src/a.c", 27), "ln:triad@/src/a.c:27");
  EXPECT_TRUE(IsLineRegion("ln:triad@/src/a.c:27"));
  EXPECT_FALSE(IsLineRegion("fn:triad"));
  EXPECT_FALSE(IsLineRegion("ln:"));
  auto line = LineOfRegion("ln:triad@/src/a:b@c.c:27", "triad");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->file, "/src/a:b@c.c");
  EXPECT_EQ(line->line, 27u);
  EXPECT_FALSE(LineOfRegion("ln:triad@/src/a.c:27", "tri").has_value());
  EXPECT_FALSE(LineOfRegion("ln:triad@/src/a.c:x", "triad").has_value());
  EXPECT_FALSE(LineOfRegion("fn:triad", "triad").has_value());
}

}  // namespace
}  // namespace rprof
