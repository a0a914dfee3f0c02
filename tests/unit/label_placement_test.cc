// The label placer on boxes whose answer is known by hand: what overlaps, what fits the frame,
// which candidate wins, and the text box estimate the SVG and the tests share.
#include "report/label_placement.h"

#include <gtest/gtest.h>

#include <vector>

namespace rprof {
namespace {

TEST(LabelPlacement, OverlapIsSharedAreaNotTouchingEdges) {
  Box a{0, 0, 10, 10};
  EXPECT_TRUE(Overlaps(a, {5, 5, 10, 10}));
  EXPECT_TRUE(Overlaps(a, {2, 2, 1, 1}));    // inside
  EXPECT_FALSE(Overlaps(a, {10, 0, 5, 5}));  // touches the right edge
  EXPECT_FALSE(Overlaps(a, {0, 10, 5, 5}));  // touches the bottom edge
  EXPECT_FALSE(Overlaps(a, {20, 20, 5, 5}));
}

TEST(LabelPlacement, ALineThroughABoxCrossesIt) {
  Box box{10, 10, 20, 10};
  EXPECT_TRUE(Crosses({0, 0, 40, 40}, box));    // a diagonal through it
  EXPECT_TRUE(Crosses({0, 15, 40, 15}, box));   // a horizontal through it
  EXPECT_FALSE(Crosses({0, 25, 40, 25}, box));  // below it
  EXPECT_FALSE(Crosses({0, 20, 40, 20}, box));  // along its bottom edge: touching
  EXPECT_FALSE(Crosses({0, 0, 9, 9}, box));     // ends before it
  // The placer keeps labels off reserved lines, with their clearance.
  LabelPlacer placer({0, 0, 100, 100});
  placer.ReserveLine({0, 50, 100, 50}, 1.5);
  EXPECT_EQ(placer.Place({{10, 45, 20, 10}, {10, 40, 20, 9}, {10, 30, 20, 10}}), 2);
}

TEST(LabelPlacement, InsideTheFrame) {
  Box frame{0, 0, 100, 50};
  EXPECT_TRUE(Inside({0, 0, 100, 50}, frame));
  EXPECT_FALSE(Inside({95, 10, 10, 5}, frame));
  EXPECT_FALSE(Inside({-1, 10, 10, 5}, frame));
}

TEST(LabelPlacement, TextBoxFromFontSizeAndCharacters) {
  Box b = TextBox(10, 100, 10, "abcd");
  EXPECT_DOUBLE_EQ(b.x, 10);
  EXPECT_DOUBLE_EQ(b.y, 100 - kAscentEm * 10);
  EXPECT_DOUBLE_EQ(b.w, 4 * kCharWidthEm * 10);
  EXPECT_DOUBLE_EQ(b.h, kLineEm * 10);
  // A character is a code point, not a byte: "…" is one.
  EXPECT_EQ(DisplayChars("n=512\xe2\x80\xa6"), 6);
  EXPECT_DOUBLE_EQ(BaselineForTop(b.y, 10), 100);
}

TEST(LabelPlacement, FirstFreeCandidateInsideTheFrameWins) {
  LabelPlacer placer({0, 0, 100, 100});
  placer.Reserve({40, 40, 10, 10});                // a point
  std::vector<Box> candidates = {{95, 10, 20, 5},  // leaves the frame
                                 {35, 38, 20, 5},  // covers the point
                                 {60, 40, 20, 5},  // free
                                 {60, 60, 20, 5}};
  EXPECT_EQ(placer.Place(candidates), 2);
  // The same spot is taken now: the next label gets the one after.
  EXPECT_EQ(placer.Place(candidates), 3);
  EXPECT_EQ(placer.Place(candidates), -1);
}

TEST(LabelPlacement, CandidatesAroundPreferTheRightAndGrowOutwards) {
  std::vector<Box> c = CandidatesAround(50, 50, 20, 10, 5, 2);
  ASSERT_EQ(c.size(), 16u);
  EXPECT_DOUBLE_EQ(c[0].x, 55);  // right of the point, at its height
  EXPECT_DOUBLE_EQ(c[0].y, 45);
  EXPECT_DOUBLE_EQ(c[1].right(), 45);  // then left
  EXPECT_DOUBLE_EQ(c[8].x, 60);        // the second ring is farther
}

TEST(LabelPlacement, ManyLabelsNeverOverlap) {
  // Thirty labels all wanting the same spot: each placed one is clear of the others.
  LabelPlacer placer({0, 0, 400, 300});
  std::vector<Box> placed;
  for (int i = 0; i < 30; ++i) {
    std::vector<Box> c = CandidatesAround(200, 150, 60, 12, 8, 8);
    int at = placer.Place(c);
    if (at >= 0) placed.push_back(c[at]);
  }
  EXPECT_GT(placed.size(), 15u);
  for (size_t i = 0; i < placed.size(); ++i)
    for (size_t j = i + 1; j < placed.size(); ++j) EXPECT_FALSE(Overlaps(placed[i], placed[j]));
}

}  // namespace
}  // namespace rprof
