// Which lines of a hot function are shown (functions/hot_lines.h), how their regions are named
// and read back, and how a function finds its stored lines (functions/function_json.h).
#include "functions/hot_lines.h"

#include <gtest/gtest.h>

#include <map>

#include "core/json.h"
#include "functions/function_json.h"

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

TEST(FunctionLines, AFunctionsStoredLinesInTheOrderTheyWereChosenIn) {
  auto metric = [](std::string name, std::optional<double> value, Source source,
                   std::string region) {
    return Metric{std::move(name), value, "", source, std::move(region), ""};
  };
  std::vector<Metric> metrics = {
      // f's line 3: FLOPs, no sampled time; line 9: most of the time, no FLOPs.
      metric("flops", 200, Source::kSim, "ln:f@a.c:3"),
      metric("bytes_l1", 1600, Source::kSim, "ln:f@a.c:3"),
      metric("bytes_dram", 300, Source::kSim, "ln:f@a.c:3"),
      metric("time_share", std::nullopt, Source::kClock, "ln:f@a.c:3"),
      metric("flops", 0, Source::kSim, "ln:f@a.c:9"),
      metric("bytes_l1", 64, Source::kSim, "ln:f@a.c:9"),
      metric("time_share", 0.4, Source::kClock, "ln:f@a.c:9"),
      // A versioned symbol's line, "f@V" beside "f": not f's.
      metric("flops", 1, Source::kSim, "fn:f@V"),
      metric("flops", 5, Source::kSim, "ln:f@V@b.c:4"),
      metric("hot_lines", std::nullopt, Source::kSim, "fn:g"),
  };
  metrics.back().note = "no line information: g.so";
  std::map<std::string, std::vector<const Metric*>> by_region;
  for (const Metric& m : metrics) by_region[m.region].push_back(&m);

  std::vector<FunctionLine> lines = FunctionLines("f", by_region);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].where.line, 9u);  // time first
  EXPECT_EQ(lines[1].where.line, 3u);
  EXPECT_EQ(lines[1].where.file, "a.c");
  EXPECT_DOUBLE_EQ(*BytesPerFlop(lines[1].metrics, "l1"), 8);
  EXPECT_DOUBLE_EQ(*BytesPerFlop(lines[1].metrics, "dram"), 1.5);
  EXPECT_FALSE(BytesPerFlop(lines[1].metrics, "l2").has_value());  // not counted
  EXPECT_FALSE(BytesPerFlop(lines[0].metrics, "l1").has_value());  // no FLOPs
  ASSERT_EQ(FunctionLines("f@V", by_region).size(), 1u);
  EXPECT_EQ(FunctionLines("f@V", by_region)[0].where.file, "b.c");

  JsonWriter w;
  w.BeginObject();
  WriteLineHead(lines[1], &w);
  w.EndObject();
  EXPECT_EQ(w.str(),
            R"({"file":"a.c","line":3,"bytes_per_flop":{"l1":{"sim":8},"dram":{"sim":1.5}}})");

  EXPECT_TRUE(FunctionLines("g", by_region).empty());
  EXPECT_EQ(NoLinesReason(by_region["fn:g"]), "no line information: g.so");
  EXPECT_EQ(NoLinesReason(by_region["fn:f@V"]), "");
}

}  // namespace
}  // namespace rprof
