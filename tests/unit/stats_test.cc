// Summary statistics of repeated timings: median, extremes, mean and coefficient of variation on
// samples whose answers are known by hand.
#include "core/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/metric.h"

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

// perf stat -r's "+- x %": the standard deviation of the mean as a percentage of the mean.
TEST(SpreadPercent, StandardDeviationOfTheMeanOverTheMean) {
  // mean 2, sample standard deviation 1, n 3: 1 / sqrt(3) / 2.
  EXPECT_DOUBLE_EQ(*SpreadPercent({1, 2, 3}), 100 / std::sqrt(3.0) / 2);
  EXPECT_DOUBLE_EQ(*SpreadPercent({4, 4, 4, 4}), 0);
  EXPECT_FALSE(SpreadPercent({}));
  EXPECT_FALSE(SpreadPercent({7.5})) << "one repetition has no spread";
  EXPECT_FALSE(SpreadPercent({-1, 1})) << "a mean of 0 has no relative spread";
}

TEST(MeanPerExecution, EachValueCarriesItsSpreadOverTheExecutions) {
  std::vector<std::vector<Metric>> runs = {
      {{"cpu_time_s", 1.0, "s", Source::kClock, "", ""}, {"x", 5.0, "", Source::kPmu, "", ""}},
      {{"cpu_time_s", 2.0, "s", Source::kClock, "", ""},
       {"x", std::nullopt, "", Source::kPmu, "", "not counted"}},
      {{"cpu_time_s", 3.0, "s", Source::kClock, "", ""}, {"x", 5.0, "", Source::kPmu, "", ""}}};
  std::vector<Metric> mean = MeanPerExecution(runs);
  const Metric* cpu = FindMetric(mean, "cpu_time_s", Source::kClock);
  ASSERT_TRUE(cpu && cpu->value && cpu->spread_pct);
  EXPECT_DOUBLE_EQ(*cpu->value, 2);
  EXPECT_DOUBLE_EQ(*cpu->spread_pct, 100 / std::sqrt(3.0) / 2);
  const Metric* x = FindMetric(mean, "x", Source::kPmu);
  ASSERT_TRUE(x);
  EXPECT_FALSE(x->value);
  EXPECT_FALSE(x->spread_pct);
  EXPECT_FALSE(MeanPerExecution({runs[0]})[0].spread_pct) << "one execution has no spread";
}

// Values from scipy's documentation of scipy.stats.mannwhitneyu (the males/females example:
// exact p = 0.1111, asymptotic 0.11134688653314041), which google/benchmark's compare.py calls.
TEST(MannWhitneyU, ExactForSmallSamplesWithoutTies) {
  auto r = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->u, 17);
  EXPECT_NEAR(r->p_value, 1.0 / 9, 1e-12);
  // Completely separated samples of 3: one ordering in C(6,3) = 20, two-sided 0.1.
  r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->p_value, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(r->u, 9);
}

TEST(MannWhitneyU, NormalApproximationWithTiesAndContinuity) {
  // Ties: the normal approximation with scipy's tie and continuity corrections.
  auto r = MannWhitneyU({1, 2, 2, 3, 4, 5, 6, 7, 8, 9}, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->exact);
  EXPECT_DOUBLE_EQ(r->u, 87.5);
  EXPECT_NEAR(r->p_value, 0.00505877063692801, 1e-12);
  r = MannWhitneyU({5, 5, 5}, {5, 5, 5});
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->p_value, 1) << "all equal: no evidence of a difference";
}

TEST(MannWhitneyU, NeedsTwoValuesEach) {
  EXPECT_FALSE(MannWhitneyU({1}, {2, 3}));
  EXPECT_FALSE(MannWhitneyU({1, 2}, {}));
}

}  // namespace
}  // namespace rprof
