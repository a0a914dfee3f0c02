#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rprof {

SampleStats Summarize(std::vector<double> samples) {
  SampleStats s;
  s.count = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n > 1 && s.mean != 0) {
    double sq = 0;
    for (double x : samples) sq += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(sq / static_cast<double>(n - 1)) / s.mean;
  }
  return s;
}

std::optional<double> SpreadPercent(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  SampleStats s = Summarize(values);
  if (s.mean == 0) return std::nullopt;
  return 100 * std::fabs(s.cv) / std::sqrt(static_cast<double>(values.size()));
}

}  // namespace rprof
