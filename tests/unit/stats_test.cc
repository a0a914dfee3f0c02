// Summary statistics of repeated timings: median, extremes, mean and coefficient of variation on
// samples whose answers are known by hand.
#include "core/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace rprof {
namespace {

TEST(Summarize, OddCountTakesTheMiddleSample) {
  SampleStats s = Summarize({5.0, 1.0, 3.0});  // unsorted on purpose
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
}

TEST(Summarize, EvenCountAveragesTheTwoMiddleSamples) {
  SampleStats s = Summarize({4.0, 1.0, 10.0, 2.0});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.median, 3.0);  // (2 + 4) / 2
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  EXPECT_DOUBLE_EQ(s.mean, 4.25);
}

TEST(Summarize, CvIsSampleStandardDeviationOverMean) {
  // Mean 5, squared deviations sum to 32, sample variance 32/7 (n - 1, not n).
  SampleStats s = Summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-15);
}

TEST(Summarize, IdenticalSamplesHaveNoSpread) {
  SampleStats s = Summarize({0.25, 0.25, 0.25});
  EXPECT_DOUBLE_EQ(s.median, 0.25);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
}

TEST(Summarize, OneSampleHasCvZero) {
  SampleStats s = Summarize({7.5});
  EXPECT_EQ(s.count, 1);
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.min, 7.5);
  EXPECT_DOUBLE_EQ(s.max, 7.5);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
}

TEST(Summarize, EmptyInputIsAllZeros) {
  SampleStats s = Summarize({});
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.median, 0.0);
  EXPECT_EQ(s.min, 0.0);
  EXPECT_EQ(s.max, 0.0);
  EXPECT_EQ(s.mean, 0.0);
  EXPECT_EQ(s.cv, 0.0);
}

}  // namespace
}  // namespace rprof
