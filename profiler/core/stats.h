// Summary statistics of repeated timings: the median leads (noisy shared machines), the spread
// says how far to trust it.
#ifndef RPROF_CORE_STATS_H_
#define RPROF_CORE_STATS_H_

#include <optional>
#include <vector>

namespace rprof {

struct SampleStats {
  int count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double cv = 0;  // coefficient of variation: sample standard deviation / mean (0 for n < 2)
};

// Summarises samples; an empty input gives count 0 and zeros.
SampleStats Summarize(std::vector<double> samples);

// How far the mean of repeated measurements can be trusted, as perf stat -r prints it (its
// "+- x %"): the standard deviation of the mean, s / sqrt(n), as a percentage of the mean (s
// the sample standard deviation). nullopt for fewer than 2 values or a mean of 0.
std::optional<double> SpreadPercent(const std::vector<double>& values);

// The Mann-Whitney U test of two independent samples, two-sided, as google/benchmark's
// tools/compare.py runs it (scipy.stats.mannwhitneyu, method "auto"): the exact distribution of
// U when one sample has at most 8 values and there are no ties, else the normal approximation
// with the tie correction and the continuity correction.
struct MannWhitney {
  double u = 0;        // max(U_a, U_b)
  double p_value = 1;  // two-sided
  bool exact = false;
};
// nullopt when either sample has fewer than 2 values: compare.py's least for a test.
std::optional<MannWhitney> MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace rprof

#endif  // RPROF_CORE_STATS_H_
