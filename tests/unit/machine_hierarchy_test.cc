// Hierarchy detection on hand-made curves: deterministic, so every case is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "machine/hierarchy.h"
#include "machine/level_sizes.h"
#include "machine/profile_trust.h"

namespace rprof {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

struct Level {
  uint64_t capacity;  // 0: memory (no end)
  double value;
};

// Working sets from `from` to `to`, `steps` per doubling (like the sweeps).
std::vector<uint64_t> Grid(uint64_t from, uint64_t to, int steps) {
  std::vector<uint64_t> g;
  for (int i = 0;; ++i) {
    double v = static_cast<double>(from) * std::exp2(static_cast<double>(i) / steps);
    if (v > static_cast<double>(to) * 1.0001) break;
    g.push_back(static_cast<uint64_t>(std::llround(v / 1024.0)) * 1024);
  }
  return g;
}

// A synthetic curve: exactly levels[k].value up to its capacity, then a knee over one octave,
// interpolated in log space towards the next level (what a real LRU-ish cache looks like on a
// sweep). `noise` adds a deterministic +-noise wobble, alternating in sign.
std::vector<CurvePoint> Curve(const std::vector<Level>& levels, const std::vector<uint64_t>& grid,
                              double noise = 0) {
  std::vector<CurvePoint> c;
  int sign = 1;
  for (uint64_t s : grid) {
    double v = levels.back().value;
    for (size_t k = 0; k + 1 < levels.size(); ++k) {
      uint64_t cap = levels[k].capacity;
      if (s <= cap) {
        v = levels[k].value;
        break;
      }
      if (s < 2 * cap) {
        double f = std::log2(static_cast<double>(s) / static_cast<double>(cap));
        v = std::exp((1 - f) * std::log(levels[k].value) + f * std::log(levels[k + 1].value));
        break;
      }
    }
    c.push_back({s, v * (1 + sign * noise)});
    sign = -sign;
  }
  return c;
}

std::vector<std::string> Names(const std::vector<DetectedLevel>& levels) {
  std::vector<std::string> names;
  for (const DetectedLevel& d : levels) names.push_back(d.name);
  return names;
}

const DetectedLevel& Find(const std::vector<DetectedLevel>& levels, const std::string& name) {
  for (const DetectedLevel& d : levels) {
    if (d.name == name) return d;
  }
  static DetectedLevel none;
  ADD_FAILURE() << "no level " << name;
  return none;
}

const std::vector<Level> kBandwidth = {
    {32 * kKiB, 200}, {512 * kKiB, 100}, {32 * kMiB, 50}, {0, 15}};
const std::vector<Level> kLatency = {{32 * kKiB, 1.2}, {512 * kKiB, 4.0}, {32 * kMiB, 15}, {0, 90}};
const std::vector<uint64_t> kReported = {32 * kKiB, 512 * kKiB, 32 * kMiB};

TEST(HierarchyTest, FindsThreeCachesAndDramOnABandwidthCurve) {
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 2)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_EQ(Find(levels, "l1").effective_size, 32 * kKiB);
  EXPECT_EQ(Find(levels, "l2").effective_size, 512 * kKiB);
  EXPECT_EQ(Find(levels, "l3").effective_size, 32 * kMiB);
  EXPECT_EQ(Find(levels, "dram").effective_size, 0u);
  EXPECT_EQ(Find(levels, "l2").reported_size, 512 * kKiB);
  EXPECT_EQ(Find(levels, "dram").reported_size, 0u);
  EXPECT_DOUBLE_EQ(Find(levels, "l1").median, 200);
  EXPECT_DOUBLE_EQ(Find(levels, "l2").median, 100);
  EXPECT_DOUBLE_EQ(Find(levels, "l3").median, 50);
  EXPECT_DOUBLE_EQ(Find(levels, "dram").median, 15);
  EXPECT_DOUBLE_EQ(Find(levels, "l3").best, 50);
  EXPECT_EQ(Find(levels, "l1").cache_level, 1);
  EXPECT_EQ(Find(levels, "dram").cache_level, 0);
  // The knee points belong to no level.
  EXPECT_GE(Find(levels, "l2").first_size, 45 * kKiB);
  EXPECT_LE(Find(levels, "l2").first_size, 64 * kKiB);
}

TEST(HierarchyTest, FindsTheSameLevelsOnALatencyCurve) {
  HierarchyOptions o;
  o.higher_is_better = false;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(kLatency, Grid(16 * kKiB, 128 * kMiB, 4)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_EQ(Find(levels, "l2").effective_size, 512 * kKiB);
  EXPECT_EQ(Find(levels, "l3").effective_size, 32 * kMiB);
  EXPECT_DOUBLE_EQ(Find(levels, "l1").best, 1.2);  // best = min for latencies
  EXPECT_DOUBLE_EQ(Find(levels, "dram").median, 90);
}

// sysfs says 480 MiB of L3, the machine gives 12 MiB: the L3 ceiling must come from the 50 GB/s
// plateau, DRAM's from the 15 GB/s one, whatever sysfs says.
TEST(HierarchyTest, LyingSysfsL3IsPlacedOnTheMeasuredPlateau) {
  const std::vector<Level> vm = {{32 * kKiB, 200}, {1 * kMiB, 100}, {12 * kMiB, 50}, {0, 15}};
  HierarchyOptions o;
  o.reported_sizes = {32 * kKiB, 1 * kMiB, 480 * kMiB};
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(vm, Grid(16 * kKiB, 1920 * kMiB, 2)), o, &levels, &err))
      << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  const DetectedLevel& l3 = Find(levels, "l3");
  EXPECT_EQ(l3.reported_size, 480 * kMiB);
  EXPECT_GE(l3.effective_size, 8 * kMiB);
  EXPECT_LE(l3.effective_size, 12 * kMiB);
  EXPECT_DOUBLE_EQ(l3.median, 50);
  EXPECT_DOUBLE_EQ(l3.best, 50);
  EXPECT_LE(l3.best_size, 12 * kMiB);
  const DetectedLevel& dram = Find(levels, "dram");
  EXPECT_DOUBLE_EQ(dram.median, 15);
  EXPECT_LE(dram.first_size, 32 * kMiB);  // DRAM from 16-32 MiB on, as in the VM
  EXPECT_EQ(dram.last_size, Grid(16 * kKiB, 1920 * kMiB, 2).back());
}

TEST(HierarchyTest, LyingSysfsAlsoOnLatency) {
  const std::vector<Level> vm = {{32 * kKiB, 1.3}, {1 * kMiB, 4.7}, {12 * kMiB, 44}, {0, 230}};
  HierarchyOptions o;
  o.higher_is_better = false;
  o.reported_sizes = {32 * kKiB, 1 * kMiB, 480 * kMiB};
  o.reached_memory = false;  // capped sweep (memory): 1 GiB < 2 x 480 MiB
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(vm, Grid(16 * kKiB, 1 * kGiB, 2)), o, &levels, &err))
      << err.message;
  // Four plateaus for three reported caches: the last one must be DRAM even so.
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_DOUBLE_EQ(Find(levels, "l3").median, 44);
  EXPECT_DOUBLE_EQ(Find(levels, "dram").median, 230);
}

TEST(HierarchyTest, NoiseAndAnOutlierDoNotSplitALevel) {
  std::vector<CurvePoint> c = Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 4), 0.04);
  // One disturbed repetition inside L2 (128 KiB): 30 % low.
  for (CurvePoint& p : c) {
    if (p.working_set_bytes == 128 * kKiB) p.value *= 0.7;
  }
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_EQ(Find(levels, "l2").effective_size, 512 * kKiB);
  EXPECT_LE(Find(levels, "l2").first_size, 64 * kKiB);  // the halves were joined again
  EXPECT_NEAR(Find(levels, "l2").median, 100, 5);
  EXPECT_NEAR(Find(levels, "l2").best, 104, 0.01);  // best = max of the noisy points
}

// Measured on this project's 2-core VM while two compilers ran (load average 4.8): single points
// 40 % off inside L2, DRAM wobbling by 30 %. The levels must still come out.
TEST(HierarchyTest, NoisyMeasuredLatencyCurve) {
  const double kib[] = {16,   23,    32,    45,    64,    91,    128,   181,   256,
                        362,  512,   724,   1024,  1448,  2048,  2896,  4096,  5793,
                        8192, 11585, 16384, 23170, 32768, 46341, 65536, 92682, 131072};
  const double ns[] = {1.24,  1.24,  2.11,   3.69,   4.07,   3.83,  3.91,   5.60,   3.78,
                       4.96,  9.34,  12.72,  15.6,   16.65,  16.65, 19.78,  18.81,  21.81,
                       69.28, 86.04, 139.63, 121.25, 138.11, 108.7, 118.58, 150.75, 163.52};
  std::vector<CurvePoint> c;
  for (size_t i = 0; i < std::size(kib); ++i) {
    c.push_back({static_cast<uint64_t>(kib[i] * 1024), ns[i]});
  }
  HierarchyOptions o;
  o.higher_is_better = false;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_DOUBLE_EQ(Find(levels, "l1").median, 1.24);
  EXPECT_NEAR(Find(levels, "l2").median, 3.9, 0.1);
  EXPECT_GE(Find(levels, "l2").effective_size, 181 * kKiB);
  EXPECT_NEAR(Find(levels, "l3").median, 17.5, 1.5);
  EXPECT_GE(Find(levels, "l3").effective_size, 4 * kMiB);
  EXPECT_LE(Find(levels, "l3").effective_size, 6 * kMiB);
  EXPECT_LE(Find(levels, "dram").first_size, 16 * kMiB);
  EXPECT_NEAR(Find(levels, "dram").median, 138, 10);
}

// 1-thread load curves measured on this project's Intel KVM guest (2 vCPUs, AVX-512), whose sysfs
// reports the host's 480 MiB L3; the L3 share the guest gets holds some 64-128 MiB at ~31 GB/s,
// DRAM gives ~17.5 GB/s, and between the two the cache keeps part of each working set.
constexpr double kVmKib[] = {16,     23,     32,     45,     64,     91,     128,   181,   256,
                             362,    512,    724,    1024,   1448,   2048,   2896,  4096,  5793,
                             8192,   11585,  16384,  23170,  32768,  46341,  65536, 92682, 131072,
                             185364, 262144, 370728, 524288, 741455, 1048576};
const std::vector<uint64_t> kVmReported = {48 * kKiB, 2 * kMiB, 480 * kMiB};

std::vector<CurvePoint> VmCurve(const std::vector<double>& gbs) {
  std::vector<CurvePoint> c;
  for (size_t i = 0; i < gbs.size(); ++i) {
    c.push_back({static_cast<uint64_t>(kVmKib[i] * 1024), gbs[i]});
  }
  return c;
}

// Quick mode sweeps to 1 GiB there (2x the reported L3). The DRAM plateau must hold only the
// working sets served from DRAM, not the knee where the L3 still helps, and it is on the curve
// whether or not the sweep counts as having reached memory.
TEST(HierarchyTest, LargeReportedL3DramIsThePlateauPastTheKnee) {
  const std::vector<double> gbs = {
      413.05, 410.30, 416.35, 417.08, 194.05, 194.25, 194.24, 194.35, 194.51, 194.44, 192.90,
      192.35, 192.23, 178.31, 79.51,  36.80,  31.67,  32.06,  33.05,  31.59,  31.73,  31.06,
      30.97,  31.32,  29.94,  27.12,  23.34,  26.34,  24.64,  21.28,  18.82,  17.69,  17.47};
  for (bool reached : {true, false}) {
    SCOPED_TRACE(reached ? "reached memory" : "not known to reach memory");
    HierarchyOptions o;
    o.reported_sizes = kVmReported;
    o.reached_memory = reached;
    std::vector<DetectedLevel> levels;
    Error err;
    ASSERT_TRUE(DetectHierarchy(VmCurve(gbs), o, &levels, &err)) << err.message;
    ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
    EXPECT_NEAR(Find(levels, "l3").median, 31.6, 0.1);
    EXPECT_EQ(Find(levels, "l3").effective_size, 64 * kMiB);    // not sysfs's 480 MiB
    EXPECT_EQ(Find(levels, "dram").first_size, 741455 * kKiB);  // 724 MiB
    EXPECT_DOUBLE_EQ(Find(levels, "dram").best, 17.69);
  }
}

// The same machine when the chunked working sets were not flushed first: every working set from
// 4 MiB to 512 MiB (the quick sweep's end then) read the start of the buffers, which the smaller
// working sets before it had made L3-resident. Nothing on the curve says where the L3 ends, and
// 512 MiB is not 2x past the reported L3: there is no DRAM level, and none is made up.
TEST(HierarchyTest, LargeReportedL3FlatCurveHasNoDram) {
  const std::vector<double> gbs = {412.77, 410.92, 416.85, 416.91, 194.07, 194.19, 194.25, 194.43,
                                   194.50, 194.53, 192.92, 192.34, 191.70, 189.51, 93.16,  35.32,
                                   31.45,  31.79,  31.86,  31.33,  31.20,  31.62,  31.52,  31.38,
                                   31.65,  31.68,  32.30,  31.80,  30.90,  31.87,  31.50};
  HierarchyOptions o;
  o.reported_sizes = kVmReported;
  o.reached_memory = false;  // 512 MiB < 2 x 480 MiB
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(VmCurve(gbs), o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3"}));
  EXPECT_EQ(Find(levels, "l3").effective_size, 512 * kMiB);  // as far as the sweep went
}

TEST(HierarchyTest, KneeTailDoesNotInflateTheNextLevel) {
  // The first point after L1 is still 15 % above L2 (partly served by L1), within tolerance.
  std::vector<CurvePoint> c = Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 2));
  for (CurvePoint& p : c) {
    if (p.working_set_bytes == 45 * kKiB) p.value = 115;
  }
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_DOUBLE_EQ(Find(levels, "l2").best, 100);
  EXPECT_EQ(Find(levels, "l2").first_size, 64 * kKiB);
}

TEST(HierarchyTest, SlowKneeDoesNotBecomeALevel) {
  // L2 -> L3 falls over three octaves in even steps: two-point runs that are not levels.
  std::vector<CurvePoint> c = Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 2));
  for (CurvePoint& p : c) {
    double s = static_cast<double>(p.working_set_bytes);
    if (s > 512.0 * kKiB && s < 4.0 * kMiB) {
      double f = std::log2(s / (512.0 * kKiB)) / 3;  // 0..1 over 512K..4M
      p.value = std::exp((1 - f) * std::log(100.0) + f * std::log(50.0));
    }
  }
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_LE(Find(levels, "l2").effective_size, 1 * kMiB);
  EXPECT_NEAR(Find(levels, "l2").median, 100, 10);
  EXPECT_NEAR(Find(levels, "l3").median, 50, 5);
}

TEST(HierarchyTest, TlbStepInsideDramIsMergedNotAnExtraLevel) {
  std::vector<CurvePoint> c = Curve(kLatency, Grid(16 * kKiB, 512 * kMiB, 2));
  for (CurvePoint& p : c) {
    if (p.working_set_bytes > 128 * kMiB) p.value = 130;  // page walks beyond the TLB's reach
  }
  HierarchyOptions o;
  o.higher_is_better = false;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_DOUBLE_EQ(Find(levels, "l3").median, 15);
  EXPECT_GE(Find(levels, "dram").median, 90);
  EXPECT_LE(Find(levels, "dram").median, 130);
}

TEST(HierarchyTest, MissingLevelIsNamedByTheNearestReportedSize) {
  // No L3 at all (or one too small to show): L1, L2 (512 KiB), then memory.
  const std::vector<Level> two = {{32 * kKiB, 200}, {512 * kKiB, 100}, {0, 15}};
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(two, Grid(16 * kKiB, 128 * kMiB, 2)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "dram"}));
  // The middle plateau ends near 32 MiB: it is the L3, and there is no visible L2.
  const std::vector<Level> no_l2 = {{32 * kKiB, 200}, {24 * kMiB, 60}, {0, 15}};
  ASSERT_TRUE(DetectHierarchy(Curve(no_l2, Grid(16 * kKiB, 128 * kMiB, 2)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l3", "dram"}));
  EXPECT_EQ(Find(levels, "l3").reported_size, 32 * kMiB);
}

TEST(HierarchyTest, SweepThatStopsInsideACacheHasNoDram) {
  HierarchyOptions o;
  o.reported_sizes = kReported;
  o.reached_memory = false;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(kBandwidth, Grid(16 * kKiB, 16 * kMiB, 2)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3"}));
  EXPECT_EQ(Find(levels, "l3").effective_size, 16 * kMiB);  // as far as the sweep went
}

TEST(HierarchyTest, WithoutSysfsEveryPlateauIsALevel) {
  HierarchyOptions o;  // no reported sizes
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 2)), o, &levels, &err))
      << err.message;
  EXPECT_EQ(Names(levels), (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_EQ(Find(levels, "l3").reported_size, 0u);
}

TEST(HierarchyTest, OrderOfInputDoesNotMatter) {
  std::vector<CurvePoint> c = Curve(kBandwidth, Grid(16 * kKiB, 128 * kMiB, 2), 0.03);
  std::vector<CurvePoint> shuffled = c;
  std::reverse(shuffled.begin(), shuffled.end());
  std::swap(shuffled[3], shuffled[11]);
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> a, b;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &a, &err));
  ASSERT_TRUE(DetectHierarchy(shuffled, o, &b, &err));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].first_size, b[i].first_size);
    EXPECT_EQ(a[i].last_size, b[i].last_size);
    EXPECT_EQ(a[i].median, b[i].median);
  }
}

TEST(HierarchyTest, FlatCurveIsOneLevel) {
  std::vector<CurvePoint> c = Curve({{0, 20}}, Grid(16 * kKiB, 1 * kMiB, 2));
  HierarchyOptions o;
  o.reported_sizes = kReported;
  std::vector<DetectedLevel> levels;
  Error err;
  ASSERT_TRUE(DetectHierarchy(c, o, &levels, &err)) << err.message;
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].name, "l1");
  EXPECT_EQ(levels[0].points, static_cast<int>(c.size()));
}

TEST(HierarchyTest, RejectsTooFewPointsAndNonPositiveValues) {
  HierarchyOptions o;
  std::vector<DetectedLevel> levels;
  Error err;
  EXPECT_FALSE(DetectHierarchy({{16 * kKiB, 10}}, o, &levels, &err));
  EXPECT_NE(err.message.find("at least 2"), std::string::npos) << err.message;
  err.message.clear();
  EXPECT_FALSE(DetectHierarchy({{16 * kKiB, 10}, {32 * kKiB, 0}}, o, &levels, &err));
  EXPECT_NE(err.message.find("32 KiB"), std::string::npos) << err.message;
  err.message.clear();
  EXPECT_FALSE(DetectHierarchy({{16 * kKiB, 10}, {32 * kKiB, std::nan("")}}, o, &levels, &err));
}

TEST(HierarchyTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(48 * kKiB), "48 KiB");
  EXPECT_EQ(FormatBytes(1280 * kKiB), "1.25 MiB");
  EXPECT_EQ(FormatBytes(32 * kMiB), "32 MiB");
  EXPECT_EQ(FormatBytes(2 * kGiB), "2 GiB");
}

// ---- Level sizes with a prior (level_sizes.h) on profiles built from synthetic sweeps. ----

// One cache level of a synthetic machine: what sysfs reports, where its latency and bandwidth
// plateaus end on this profile's sweeps, and its values there.
struct SweptCache {
  uint64_t reported;
  uint64_t latency_end;
  uint64_t bandwidth_end;
  double ns;
  double gbs;
};

// A profile as MeasureMachine builds it: latency and 1-thread load sweeps (2 points an octave,
// 16 KiB to 512 MiB), the levels DetectHierarchy finds on them, a level's effective size from
// the latency sweep and its bandwidth_size from the bandwidth sweep.
MachineProfile SweptProfile(const std::vector<SweptCache>& caches, double dram_ns, double dram_gbs,
                            bool noisy = false) {
  std::vector<uint64_t> grid = Grid(16 * kKiB, 512 * kMiB, 2);
  std::vector<Level> lat, bw;
  std::vector<uint64_t> reported;
  for (const SweptCache& c : caches) {
    lat.push_back({c.latency_end, c.ns});
    bw.push_back({c.bandwidth_end, c.gbs});
    reported.push_back(c.reported);
  }
  lat.push_back({0, dram_ns});
  bw.push_back({0, dram_gbs});
  MachineProfile p;
  p.mode = "quick";
  std::vector<CurvePoint> lat_curve = Curve(lat, grid), bw_curve = Curve(bw, grid);
  for (const CurvePoint& c : lat_curve) p.latency.push_back({c.working_set_bytes, c.value, 1});
  HierarchyOptions lo, bo;
  lo.higher_is_better = false;
  lo.reported_sizes = bo.reported_sizes = reported;
  std::vector<DetectedLevel> lat_levels, bw_levels;
  Error err;
  EXPECT_TRUE(DetectHierarchy(lat_curve, lo, &lat_levels, &err)) << err.message;
  EXPECT_TRUE(DetectHierarchy(bw_curve, bo, &bw_levels, &err)) << err.message;
  for (const DetectedLevel& d : lat_levels) {
    LevelSummary s;
    s.level = d.name;
    s.reported_size = d.reported_size;
    s.effective_size = d.effective_size;
    s.latency_ns = d.median;
    for (const DetectedLevel& b : bw_levels)
      if (b.name == d.name) s.bandwidth_size = b.effective_size;
    p.levels.push_back(s);
  }
  if (noisy) p.noisy_reasons.push_back("measured under load: other processes used 1.00 CPUs");
  return p;
}

// Each profile in turn against the one before it, as `machine measure` stores them.
std::vector<MachineProfile> Measured(std::vector<MachineProfile> profiles) {
  for (size_t i = 0; i < profiles.size(); ++i) {
    MachineProfile* now = &profiles[i];
    DropDramLikeLevels(now);
    if (i == 0) {
      ReconcileLevelSizes(MachineProfile(), 0, std::sqrt(2.0), now);
      DecideLevelSizes(nullptr, 0, now);
    } else {
      ReconcileLevelSizes(profiles[i - 1], static_cast<int64_t>(i), std::sqrt(2.0), now);
      DecideLevelSizes(&profiles[i - 1], static_cast<int64_t>(i), now);
    }
  }
  return profiles;
}

// A level as MeasureMachine stores it: name, reported and effective size, latency, bandwidth.
LevelSummary Rung(const char* name, uint64_t reported, uint64_t effective, double ns, double gbs) {
  LevelSummary l;
  l.level = name;
  l.reported_size = reported;
  l.effective_size = effective;
  l.latency_ns = ns;
  l.bandwidth_gbs = gbs;
  return l;
}

const LevelSummary& LevelOf(const MachineProfile& p, const std::string& name) {
  for (const LevelSummary& l : p.levels)
    if (l.level == name) return l;
  static LevelSummary none;
  ADD_FAILURE() << "no level " << name;
  return none;
}

bool HasLevel(const MachineProfile& p, const std::string& name) {
  return std::any_of(p.levels.begin(), p.levels.end(),
                     [&](const LevelSummary& l) { return l.level == name; });
}

// The VM: sysfs says L1D 32 KiB, L2 512 KiB, L3 16 MiB; the sweeps' plateaus end
// elsewhere on every profile (L1 16-32 KiB, L2 128-304 KiB, L3 2.8-5.7 MiB), one of them under
// load. The sizes given stay the reported ones: neither a plateau end seen once nor a noisy
// profile moves them.
TEST(LevelSizesTest, ThreeProfilesOfOneMachineGiveTheSameSizes) {
  auto vm = [](uint64_t l1, uint64_t l2, uint64_t l3, bool noisy) {
    return SweptProfile(
        {{32 * kKiB, l1, l1, 1.2, 200}, {512 * kKiB, l2, l2, 4, 90}, {16 * kMiB, l3, l3, 20, 40}},
        110, 12, noisy);
  };
  std::vector<MachineProfile> p = Measured({vm(32 * kKiB, 256 * kKiB, 4 * kMiB, false),
                                            vm(32 * kKiB, 128 * kKiB, 11 * kMiB / 2, true),
                                            vm(16 * kKiB, 256 * kKiB, 8 * kMiB / 3, false)});
  for (const MachineProfile& profile : p) {
    EXPECT_EQ(LevelOf(profile, "l1").size_bytes, 32 * kKiB);
    EXPECT_EQ(LevelOf(profile, "l2").size_bytes, 512 * kKiB);
    EXPECT_EQ(LevelOf(profile, "l3").size_bytes, 16 * kMiB);
    for (const char* name : {"l1", "l2", "l3"})
      EXPECT_EQ(LevelOf(profile, name).size_rule, kRuleReported) << name;
  }
  EXPECT_NE(LevelOf(p[1], "l2").size_reason.find("the profile is noisy"), std::string::npos)
      << LevelOf(p[1], "l2").size_reason;
  // A smaller effective L3 (a VM's neighbours) is said beside the level, not taken as its size.
  EXPECT_NE(LevelOf(p[2], "l3").note.find("measured plateau ends at"), std::string::npos)
      << LevelOf(p[2], "l3").note;
}

// A Zen 5 VM (sysfs: L1D 48 KiB, L2 1 MiB, L3 32 MiB), quiet, profiles in one sitting: the L2
// plateau ended at 362 KiB twice in a row (a chase climbs early in a cache that does not evict
// the least recently used line), the L3's at 8, 2.8, 5.7 and 4 MiB (the neighbours' share of
// it), with L3's latency up to 16 MiB and DRAM's only from 45 MiB on. Neither moves a size:
// sim's geometry and the lessons stay those of the hardware. (SweptProfile's DRAM starts right
// after the last plateau, so the L3 ends here stay above 32 MiB / 4 / sqrt(2): below that, this
// step would make the reported size impossible.)
TEST(LevelSizesTest, ZenVmQuietRepeatedPlateausKeepTheReportedSizes) {
  auto vm = [](uint64_t l2, uint64_t l3) {
    return SweptProfile({{48 * kKiB, 45 * kKiB, 45 * kKiB, 1.0, 500},
                         {1 * kMiB, l2, l2, 3.5, 190},
                         {32 * kMiB, l3, l3, 14, 118}},
                        150, 40, false);
  };
  std::vector<MachineProfile> p = Measured({vm(362 * kKiB, 8 * kMiB), vm(362 * kKiB, 5800 * kKiB),
                                            vm(362 * kKiB, 8 * kMiB), vm(362 * kKiB, 8 * kMiB)});
  for (const MachineProfile& profile : p) {
    EXPECT_EQ(LevelOf(profile, "l1").size_bytes, 48 * kKiB);
    EXPECT_EQ(LevelOf(profile, "l2").size_bytes, 1 * kMiB);
    EXPECT_EQ(LevelOf(profile, "l3").size_bytes, 32 * kMiB);
    for (const char* name : {"l1", "l2", "l3"})
      EXPECT_EQ(LevelOf(profile, name).size_rule, kRuleReported) << name;
  }
  // 8 and 5.8 MiB are within three octaves of 32 MiB; further under, the last level's rule
  // (the share other work left) keeps the reported size as well (LastLevelPlateauIsNeverItsSize).
  EXPECT_NE(LevelOf(p[2], "l3").size_reason.find("agrees within three octaves"), std::string::npos)
      << LevelOf(p[2], "l3").size_reason;
  EXPECT_NE(LevelOf(p[2], "l2").size_reason.find("within three octaves"), std::string::npos)
      << LevelOf(p[2], "l2").size_reason;
}

// The last cache level is shared with whatever else runs: a sound, repeated plateau far under
// its reported size is the share left to rprof (the Zen 5 VM's 32 MiB L3 ended at 2.8 MiB once),
// never its size. A level below it that far under is replaced once profiles agree.
TEST(LevelSizesTest, LastLevelPlateauIsNeverItsSize) {
  MachineProfile p;
  p.levels = {Rung("l1", 48 * kKiB, 45 * kKiB, 1.0, 500),
              Rung("l2", 1 * kMiB, 100 * kKiB, 3.5, 190),
              Rung("l3", 32 * kMiB, 2900 * kKiB, 14, 118), Rung("dram", 0, 0, 150, 40)};
  for (LevelSummary& l : p.levels) {
    l.bandwidth_size = l.effective_size;
    l.size_agreement = 3;
  }
  DecideLevelSizes(nullptr, 0, &p);
  EXPECT_EQ(LevelOf(p, "l3").size_rule, kRuleReported);
  EXPECT_EQ(LevelOf(p, "l3").size_bytes, 32 * kMiB);
  EXPECT_NE(LevelOf(p, "l3").size_reason.find("share of the last cache level"), std::string::npos)
      << LevelOf(p, "l3").size_reason;
  EXPECT_EQ(LevelOf(p, "l2").size_rule, kRuleMeasured);
  EXPECT_EQ(LevelOf(p, "l2").size_bytes, 100 * kKiB);
  EXPECT_EQ(LevelOf(p, "l1").size_rule, kRuleReported);
}

// The same Zen 5 guest with its hypervisor bit: 32 MiB for 2 vCPUs is a plausible share of a
// host (16 MiB each, under twice the most any CPU has per core), so the small plateau is still
// what neighbours left, and the reported size stays (unlike a guest shown its host's 480 MiB).
TEST(LevelSizesTest, APlausibleGuestLastLevelKeepsItsReportedSize) {
  MachineProfile p;
  p.topology.hypervisor = true;
  p.topology.logical_cpus = 2;
  CacheLevel l3;
  l3.level = 3;
  l3.type = "unified";
  l3.size_bytes = 32 * kMiB;
  l3.shared_cpu_count = 2;
  p.topology.caches = {l3};
  p.levels = {Rung("l1", 48 * kKiB, 45 * kKiB, 1.0, 500),
              Rung("l2", 1 * kMiB, 100 * kKiB, 3.5, 190),
              Rung("l3", 32 * kMiB, 2900 * kKiB, 14, 118), Rung("dram", 0, 0, 150, 40)};
  for (LevelSummary& l : p.levels) l.size_agreement = 3;
  p.levels[2].bandwidth_size = 24 * kMiB;  // the sweeps disagree, as on the Intel guest
  DecideLevelSizes(nullptr, 0, &p);
  EXPECT_EQ(LevelOf(p, "l3").size_rule, kRuleReported) << LevelOf(p, "l3").size_reason;
  EXPECT_EQ(LevelOf(p, "l3").size_bytes, 32 * kMiB);
}

// One noisy profile stored an "L3" of 128 MiB at 164.5 ns with DRAM at 175.7 ns: that level has
// DRAM's latency and is not stored; its reported size stands for sim.
TEST(LevelSizesTest, AnL3WithDramsLatencyIsNotStored) {
  MachineProfile p;
  p.levels = {Rung("l1", 32 * kKiB, 32 * kKiB, 1.2, 200),
              Rung("l2", 512 * kKiB, 256 * kKiB, 4.1, 90),
              Rung("l3", 16 * kMiB, 128 * kMiB, 164.5, 14), Rung("dram", 0, 0, 175.7, 12)};
  DropDramLikeLevels(&p);
  EXPECT_FALSE(HasLevel(p, "l3"));
  EXPECT_TRUE(HasLevel(p, "l2"));
  EXPECT_TRUE(HasLevel(p, "dram"));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("DRAM's latency"), std::string::npos) << p.warnings[0];

  // The same from sweeps: an "L3" plateau at 150 ns that ends at 128 MiB, DRAM at 190 ns.
  MachineProfile swept = Measured({SweptProfile({{32 * kKiB, 32 * kKiB, 32 * kKiB, 1.2, 200},
                                                 {512 * kKiB, 512 * kKiB, 512 * kKiB, 4, 90},
                                                 {16 * kMiB, 128 * kMiB, 128 * kMiB, 150, 14}},
                                                190, 10)})[0];
  EXPECT_FALSE(HasLevel(swept, "l3"));
  EXPECT_EQ(LevelOf(swept, "l2").size_bytes, 512 * kKiB);
}

// A sound plateau end three octaves or more under the reported size of a level below the last
// replaces it once two profiles in a row measured it; a noisy profile after that keeps it (sim
// does not move).
TEST(LevelSizesTest, ASoundRepeatedMeasurementReplacesThePrior) {
  auto machine = [](uint64_t l2, bool noisy) {
    return SweptProfile({{48 * kKiB, 32 * kKiB, 32 * kKiB, 1.0, 200},
                         {1 * kMiB, l2, l2, 3.5, 90},
                         {32 * kMiB, 16 * kMiB, 16 * kMiB, 12, 40}},
                        100, 12, noisy);
  };
  std::vector<MachineProfile> p = Measured({machine(128 * kKiB, false), machine(128 * kKiB, false),
                                            machine(256 * kKiB, true), machine(1 * kMiB, false)});
  EXPECT_EQ(LevelOf(p[0], "l2").size_rule, kRuleReported);
  EXPECT_EQ(LevelOf(p[0], "l2").size_bytes, 1 * kMiB);
  EXPECT_EQ(LevelOf(p[1], "l2").size_rule, kRuleMeasured);
  EXPECT_EQ(LevelOf(p[1], "l2").size_bytes, 128 * kKiB);
  EXPECT_EQ(LevelOf(p[2], "l2").size_rule, kRuleKept);
  EXPECT_EQ(LevelOf(p[2], "l2").size_bytes, 128 * kKiB);
  // A sound measurement that agrees with the report brings the reported size back.
  EXPECT_EQ(LevelOf(p[3], "l2").size_rule, kRuleReported) << LevelOf(p[3], "l2").size_reason;
  EXPECT_EQ(LevelOf(p[3], "l2").size_bytes, 1 * kMiB);
  // L1 (32 of 48 KiB) and L3 (16 of 32 MiB) agree with the reported sizes within an octave.
  for (const MachineProfile& profile : p) {
    EXPECT_EQ(LevelOf(profile, "l1").size_bytes, 48 * kKiB);
    EXPECT_EQ(LevelOf(profile, "l3").size_bytes, 32 * kMiB);
  }
}

// A VM that reports its host's 480 MiB L3 for 2 vCPUs, DRAM's latency from 64 MiB on: the
// reported size cannot be, and one sound profile's measured size replaces it.
TEST(LevelSizesTest, AnImpossibleReportedSizeGivesWayAtOnce) {
  MachineProfile p = Measured({SweptProfile({{48 * kKiB, 32 * kKiB, 32 * kKiB, 1.0, 200},
                                             {1 * kMiB, 1 * kMiB, 1 * kMiB, 3.5, 90},
                                             {480 * kMiB, 32 * kMiB, 32 * kMiB, 14, 40}},
                                            110, 12)})[0];
  EXPECT_EQ(LevelOf(p, "l3").size_rule, kRuleReportedImpossible);
  EXPECT_EQ(LevelOf(p, "l3").size_bytes, LevelOf(p, "l3").effective_size);
  EXPECT_LE(LevelOf(p, "l3").size_bytes, 32 * kMiB);
  EXPECT_GE(LevelOf(p, "l3").size_bytes, 16 * kMiB);
}

// A plateau longer than the reported cache, or a latency not above the level before, is no
// sound measurement: the reported size stays, and the reason says which rule failed.
TEST(LevelSizesTest, UnsoundMeasurementsKeepThePrior) {
  MachineProfile p;
  p.levels = {Rung("l1", 32 * kKiB, 32 * kKiB, 1.2, 200),
              Rung("l2", 512 * kKiB, 128 * kKiB, 1.1, 90), Rung("l3", 16 * kMiB, 64 * kMiB, 20, 40),
              Rung("dram", 0, 0, 110, 12)};
  for (LevelSummary& l : p.levels) l.bandwidth_size = l.effective_size;
  for (LevelSummary& l : p.levels) l.size_agreement = 3;
  DecideLevelSizes(nullptr, 0, &p);
  EXPECT_EQ(LevelOf(p, "l2").size_rule, kRuleReported);
  EXPECT_NE(LevelOf(p, "l2").size_reason.find("not above L1's"), std::string::npos)
      << LevelOf(p, "l2").size_reason;
  EXPECT_EQ(LevelOf(p, "l3").size_rule, kRuleReported);
  EXPECT_EQ(LevelOf(p, "l3").size_bytes, 16 * kMiB);
  EXPECT_NE(LevelOf(p, "l3").size_reason.find("larger than the reported"), std::string::npos)
      << LevelOf(p, "l3").size_reason;
  // The two sweeps must agree: a bandwidth plateau two octaves off is one sweep's word.
  p.levels[1].latency_ns = 4;
  p.levels[1].bandwidth_size = 512 * kKiB;
  DecideLevelSizes(nullptr, 0, &p);
  EXPECT_EQ(LevelOf(p, "l2").size_rule, kRuleReported);
  EXPECT_NE(LevelOf(p, "l2").size_reason.find("bandwidth sweep"), std::string::npos)
      << LevelOf(p, "l2").size_reason;
}

}  // namespace
}  // namespace rprof
