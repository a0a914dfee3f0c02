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

namespace rprof {

namespace {

// P(U >= u) under the null hypothesis, for samples of m and n values without ties: the number
// of orderings giving each U (c(u; m, n) = c(u - n; m - 1, n) + c(u; m, n - 1)) over C(m+n, m).
double ExactUpperTail(int u, int m, int n) {
  // counts[j][v]: orderings of i values of the first sample and j of the second with U = v,
  // built up over i.
  const int top = m * n;
  std::vector<std::vector<double>> previous(static_cast<size_t>(n) + 1,
                                            std::vector<double>(static_cast<size_t>(top) + 1));
  for (int j = 0; j <= n; ++j) previous[static_cast<size_t>(j)][0] = 1;  // i = 0: U = 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> current(static_cast<size_t>(n) + 1,
                                             std::vector<double>(static_cast<size_t>(top) + 1));
    current[0][0] = 1;  // j = 0: U = 0
    for (int j = 1; j <= n; ++j)
      for (int v = 0; v <= i * j; ++v) {
        double from_first = v >= j ? previous[static_cast<size_t>(j)][static_cast<size_t>(v - j)]
                                   : 0;  // the largest value is from the first sample
        double from_second = current[static_cast<size_t>(j - 1)][static_cast<size_t>(v)];
        current[static_cast<size_t>(j)][static_cast<size_t>(v)] = from_first + from_second;
      }
    previous = std::move(current);
  }
  double total = 0, tail = 0;
  for (int v = 0; v <= top; ++v) {
    double c = previous[static_cast<size_t>(n)][static_cast<size_t>(v)];
    total += c;
    if (v >= u) tail += c;
  }
  return tail / total;
}

}  // namespace

std::optional<MannWhitney> MannWhitneyU(const std::vector<double>& a,
                                        const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const size_t m = a.size(), n = b.size();
  // Midranks over both samples, and the tie term sum(t^3 - t).
  std::vector<std::pair<double, bool>> all;  // value, from a
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_a += midrank;
    double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  double u_a = rank_sum_a - md * (md + 1) / 2;
  MannWhitney out;
  out.u = std::max(u_a, md * nd - u_a);
  if ((m <= 8 || n <= 8) && tie_term == 0 && m * n <= 100000) {
    out.exact = true;
    out.p_value = 2 * ExactUpperTail(static_cast<int>(std::lround(out.u)), static_cast<int>(m),
                                     static_cast<int>(n));
  } else {
    double total = md + nd;
    double sigma = std::sqrt(md * nd / 12 * ((total + 1) - tie_term / (total * (total - 1))));
    if (sigma == 0) {
      out.p_value = 1;  // every value equal: no evidence either way
    } else {
      double z = (out.u - md * nd / 2 - 0.5) / sigma;
      out.p_value = 2 * 0.5 * std::erfc(z / std::sqrt(2.0));
    }
  }
  out.p_value = std::min(1.0, std::max(0.0, out.p_value));
  return out;
}

}  // namespace rprof
