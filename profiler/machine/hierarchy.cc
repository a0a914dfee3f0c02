#include "machine/hierarchy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace rprof {
namespace {

struct Run {
  size_t first = 0;  // index into the sorted curve
  size_t last = 0;   // inclusive
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double RunMedian(const std::vector<CurvePoint>& c, const Run& r) {
  std::vector<double> v;
  for (size_t i = r.first; i <= r.last; ++i) v.push_back(c[i].value);
  return Median(v);
}

// The best split of the curve into at most `max_plateaus` plateaus (see DetectHierarchy): exact
// dynamic programming over (number of plateaus, last point of the last plateau), O(k n^3) for
// n points, a few million steps for the longest sweeps.
std::vector<Run> FitPlateaus(const std::vector<CurvePoint>& c, int max_plateaus, double gap_cost,
                             double level_cost) {
  const int n = static_cast<int>(c.size());
  std::vector<double> y(n);
  for (int i = 0; i < n; ++i) y[i] = std::log(c[i].value);
  // cost[a][b]: sum of |y - median| over points a..b (log space: a relative deviation).
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  for (int a = 0; a < n; ++a) {
    for (int b = a; b < n; ++b) {
      std::vector<double> v(y.begin() + a, y.begin() + b + 1);
      double m = Median(v);
      double sum = 0;
      for (double x : v) sum += std::fabs(x - m);
      cost[a][b] = sum;
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const int kmax = std::max(1, std::min(max_plateaus, n));
  // best[k][b]: k+1 plateaus over points 0..b, the last one ending at b; from: its first point and
  // the end of the plateau before it.
  std::vector<std::vector<double>> best(kmax, std::vector<double>(n, inf));
  std::vector<std::vector<std::pair<int, int>>> from(kmax, std::vector<std::pair<int, int>>(n));
  for (int b = 0; b < n; ++b) best[0][b] = cost[0][b];
  for (int k = 1; k < kmax; ++k) {
    for (int b = 1; b < n; ++b) {
      for (int a = 1; a <= b; ++a) {
        // A plateau inside the sweep needs two points: one point is a knee.
        if (b < n - 1 && b - a + 1 < 2) continue;
        for (int e = 0; e < a; ++e) {
          if (best[k - 1][e] == inf) continue;
          double total = best[k - 1][e] + gap_cost * (a - e - 1) + cost[a][b];
          if (total < best[k][b]) {
            best[k][b] = total;
            from[k][b] = {a, e};
          }
        }
      }
    }
  }
  int k_best = 0;
  for (int k = 1; k < kmax; ++k) {
    if (best[k][n - 1] + level_cost * k < best[k_best][n - 1] + level_cost * k_best - 1e-12) {
      k_best = k;
    }
  }
  std::vector<Run> runs(k_best + 1);
  int b = n - 1;
  for (int k = k_best; k >= 0; --k) {
    int a = k == 0 ? 0 : from[k][b].first;
    runs[k] = Run{static_cast<size_t>(a), static_cast<size_t>(b)};
    if (k > 0) b = from[k][b].second;
  }
  return runs;
}

DetectedLevel Describe(const std::vector<CurvePoint>& c, const Run& r, bool higher_is_better) {
  DetectedLevel d;
  d.first_size = c[r.first].working_set_bytes;
  d.last_size = c[r.last].working_set_bytes;
  d.points = static_cast<int>(r.last - r.first + 1);
  d.median = RunMedian(c, r);
  d.best = c[r.first].value;
  d.best_size = c[r.first].working_set_bytes;
  for (size_t i = r.first; i <= r.last; ++i) {
    bool better = higher_is_better ? c[i].value > d.best : c[i].value < d.best;
    if (better) {
      d.best = c[i].value;
      d.best_size = c[i].working_set_bytes;
    }
  }
  return d;
}

std::string CacheName(int level) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "l%d", level);
  return buf;
}

double LogDistance(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return std::fabs(std::log2(static_cast<double>(a) / static_cast<double>(b)));
}

}  // namespace

bool DetectHierarchy(const std::vector<CurvePoint>& curve_in, const HierarchyOptions& opts,
                     std::vector<DetectedLevel>* levels, Error* err) {
  levels->clear();
  std::vector<CurvePoint> c = curve_in;
  std::sort(c.begin(), c.end(), [](const CurvePoint& a, const CurvePoint& b) {
    return a.working_set_bytes < b.working_set_bytes;
  });
  if (c.size() < 2) {
    Fail(err, ErrorKind::kEnvironment,
         "a hierarchy needs at least 2 measured working sets, got " + std::to_string(c.size()));
    return false;
  }
  for (const CurvePoint& p : c) {
    if (!(p.value > 0) || !std::isfinite(p.value)) {
      Fail(err, ErrorKind::kEnvironment,
           "measured value at " + FormatBytes(p.working_set_bytes) + " is not positive");
      return false;
    }
  }
  const double tolerance = opts.tolerance > 0 ? opts.tolerance : 0.25;

  // 1. How many levels there may be: the reported caches, plus DRAM when the sweep reached it.
  const int caches = static_cast<int>(opts.reported_sizes.size());
  const bool have_report = caches > 0;
  const int most = have_report ? caches + 1 : 8;

  // 2. The plateaus: the split of the curve into at most `most` flat pieces, in order, that
  // minimises (in log space) the sum over plateau points of |value - plateau median|, plus
  // log(1 + tolerance) for every point left between plateaus (a knee point), plus a cost per
  // plateau. A point further than `tolerance` from its plateau's median is cheaper as a knee; a
  // disturbed point inside a plateau is cheaper to keep (the median ignores it) than to pay for
  // two plateaus; a flat stretch is not worth splitting. The first and last points always
  // belong to a plateau; a plateau inside the sweep has at least two points.
  const double gap_cost = std::log1p(tolerance);
  const double level_cost = 1.3 * gap_cost;
  std::vector<Run> plateaus = FitPlateaus(c, most, gap_cost, level_cost);
  bool dram = opts.reached_memory || (have_report && static_cast<int>(plateaus.size()) > caches);

  // 3. The ends of a plateau can still lean towards the neighbouring level (the tail of a knee:
  // within tolerance, but partly served by the faster level before it, or partly by the slower
  // one after it). A leading point that beats (nearly) every later point of the plateau by more
  // than a quarter of the tolerance would inflate the level's best value; a trailing point worse
  // than (nearly) every earlier point by as much would stretch its effective size. Both are knee
  // points. "Nearly": all but a fifth, so one disturbed point inside the plateau cannot shield
  // them. Noise does not trigger this: a noisy plateau has other points as far out. The sweep's
  // own ends (L1's first point, the last plateau's last point) stay.
  auto better = [&](double a, double b) {  // a better than b by more than tolerance / 4
    return opts.higher_is_better ? a > b * (1 + tolerance / 4) : a * (1 + tolerance / 4) < b;
  };
  auto leans = [&](size_t at, size_t from, size_t to, bool towards_better) {
    size_t others = 0, beyond = 0;
    for (size_t i = from; i <= to; ++i) {
      if (i == at) continue;
      ++others;
      beyond += towards_better ? better(c[at].value, c[i].value) : better(c[i].value, c[at].value);
    }
    return others > 0 && 5 * beyond >= 4 * others;
  };
  for (size_t k = 0; k < plateaus.size(); ++k) {
    Run& r = plateaus[k];
    while (k > 0 && r.first < r.last && leans(r.first, r.first, r.last, true)) ++r.first;
    while (k + 1 < plateaus.size() && r.first < r.last && leans(r.last, r.first, r.last, false)) {
      --r.last;
    }
  }

  std::vector<DetectedLevel> found;
  for (const Run& r : plateaus) found.push_back(Describe(c, r, opts.higher_is_better));
  const int n = static_cast<int>(found.size());

  // 4. Names. The last plateau is DRAM when the sweep reached memory; the others are caches.
  int cache_plateaus = dram && n > 1 ? n - 1 : n;
  if (dram && n == 1) cache_plateaus = 1;        // a single plateau: call it L1, not DRAM
  std::vector<int> level_of(cache_plateaus, 0);  // cache level (1-based) of each cache plateau
  if (!have_report || cache_plateaus >= caches) {
    for (int k = 0; k < cache_plateaus; ++k) level_of[k] = k + 1;
  } else {
    // Fewer cache plateaus than reported caches: plateau 0 is L1; the others go, in order, to
    // the levels (2..caches) whose reported size is closest to their effective size. Dynamic
    // programming over (plateau, level) keeps the assignment increasing.
    level_of[0] = 1;
    int m = cache_plateaus - 1;  // plateaus to place
    int slots = caches - 1;      // levels 2..caches
    if (m > 0) {
      const double inf = std::numeric_limits<double>::infinity();
      // cost[i][j]: best cost placing plateaus 1..i with plateau i on level j+2.
      std::vector<std::vector<double>> cost(m, std::vector<double>(slots, inf));
      std::vector<std::vector<int>> from(m, std::vector<int>(slots, -1));
      for (int i = 0; i < m; ++i) {
        for (int j = i; j < slots - (m - 1 - i); ++j) {
          double here = LogDistance(found[i + 1].last_size, opts.reported_sizes[j + 1]);
          if (i == 0) {
            cost[i][j] = here;
            continue;
          }
          for (int p = i - 1; p < j; ++p) {
            if (cost[i - 1][p] + here < cost[i][j]) {
              cost[i][j] = cost[i - 1][p] + here;
              from[i][j] = p;
            }
          }
        }
      }
      int j = static_cast<int>(std::min_element(cost[m - 1].begin(), cost[m - 1].end()) -
                               cost[m - 1].begin());
      for (int i = m - 1; i >= 0; --i) {
        level_of[i + 1] = j + 2;
        j = from[i][j];
      }
    }
  }
  for (int k = 0; k < n; ++k) {
    DetectedLevel& d = found[k];
    if (k < cache_plateaus) {
      d.cache_level = level_of[k];
      d.name = CacheName(d.cache_level);
      if (d.cache_level <= caches) d.reported_size = opts.reported_sizes[d.cache_level - 1];
      d.effective_size = d.last_size;
    } else {
      d.name = "dram";
      d.cache_level = 0;
      d.reported_size = 0;
      d.effective_size = 0;
    }
  }
  *levels = std::move(found);
  return true;
}

std::string FormatBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || std::fabs(v - std::round(v)) < 0.005) {
    std::snprintf(buf, sizeof(buf), "%.0f %s", v, kUnits[u]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f %s", v, kUnits[u]);
  }
  return buf;
}

}  // namespace rprof
