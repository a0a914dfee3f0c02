// The calibration plan's traffic expectations (calibration_plan.txt: triad moves 32 B per element
// past L1, dot 16) against rprofsim's cache hierarchy (cache_sim.c) under each vendor's inclusion
// policy: Intel's non-inclusive L3 (Skylake-SP and later servers), Intel's inclusive L3 (clients,
// older servers) and AMD's victim L3. `rprof calibrate --counters sim` runs the plan on the
// machine it is on; this test runs the same checks, at the same working sets, on a simulated
// geometry of each vendor, so an AMD machine's calibration and an Intel machine's cannot disagree
// on what bytes_l2, bytes_l3 and bytes_dram mean.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/calibration.h"
#include "calibrate/calibration_plan.h"
#include "machine/topology.h"

extern "C" {
#include "cache_sim.h"
}

namespace rprof {
namespace {

constexpr uint64_t kLine = 64;
constexpr uint64_t kKiB = 1024;

struct Vendor {
  const char* name;
  int l3_policy;
};

// A real part's shape, scaled down 16x so that the DRAM point (4x the last level, at least
// 64 MiB) stays a second's simulation: L1D 48 KiB / 12-way -> 3 KiB, L2 2 MiB / 16-way ->
// 128 KiB, L3 32 MiB / 16-way -> 2 MiB.
std::vector<CsLevelConfig> Geometry(int l3_policy) {
  return {{3 * kKiB, 12, kLine, CS_NINE},
          {128 * kKiB, 16, kLine, CS_NINE},
          {2048 * kKiB, 16, kLine, l3_policy}};
}

std::vector<CacheLevel> AsCaches(const std::vector<CsLevelConfig>& config) {
  std::vector<CacheLevel> caches;
  for (size_t i = 0; i < config.size(); ++i) {
    CacheLevel c;
    c.level = static_cast<int>(i) + 1;
    c.type = i == 0 ? "data" : "unified";
    c.size_bytes = config[i].size_bytes;
    c.ways = static_cast<int>(config[i].ways);
    c.line_bytes = static_cast<int>(config[i].line_bytes);
    caches.push_back(c);
  }
  return caches;
}

// The kernels' access streams as their loops issue them (fp64, one element at a time: the
// traffic below L1 does not depend on the vector width), arrays far apart.
void Stream(const std::string& kernel, uint64_t n, CacheSim* sim, uint64_t* ev) {
  const uint64_t a = 1ull << 32, b = 2ull << 32, c = 3ull << 32;
  for (uint64_t i = 0; i < n; ++i) {
    if (kernel == "triad") {  // a[i] = b[i] + s * c[i]
      cs_access(sim, b + 8 * i, 8, 0, ev);
      cs_access(sim, c + 8 * i, 8, 0, ev);
      cs_access(sim, a + 8 * i, 8, 1, ev);
    } else {  // dot: s += x[i] * y[i]
      cs_access(sim, a + 8 * i, 8, 0, ev);
      cs_access(sim, b + 8 * i, 8, 0, ev);
    }
  }
}

// The kernel's set-up: every array written once (inputs initialised, the output cleared), so its
// lines start dirty, as they do under rprofsim.
void WriteArrays(const std::string& kernel, uint64_t n, CacheSim* sim, uint64_t* ev) {
  const uint64_t arrays[] = {1ull << 32, 2ull << 32, 3ull << 32};
  for (int k = 0; k < (kernel == "triad" ? 3 : 2); ++k)
    for (uint64_t i = 0; i < n; ++i) cs_access(sim, arrays[k] + 8 * i, 8, 1, ev);
}

// Bytes between level k and the one below it, as rprofsim reports them.
double Bytes(const uint64_t* ev, int k) {
  return static_cast<double>(ev[CS_EV_MISS_READ(k)] + ev[CS_EV_MISS_WRITE(k)] + ev[CS_EV_OUT(k)] +
                             ev[CS_EV_PREFETCH(k)]) *
         kLine;
}

TEST(SimCalibrationPolicy, EveryVendorsL3MeetsThePlansTrafficExpectations) {
  std::vector<CalibrationCheck> plan;
  Error err;
  ASSERT_TRUE(LoadCalibrationPlan(&plan, &err)) << err.message;
  const Vendor vendors[] = {{"Intel non-inclusive L3", CS_NINE},
                            {"Intel inclusive L3", CS_INCLUSIVE},
                            {"AMD victim L3", CS_VICTIM}};
  int checked = 0;
  for (const Vendor& vendor : vendors) {
    std::vector<CsLevelConfig> config = Geometry(vendor.l3_policy);
    std::vector<CalibrationLevel> levels = CalibrationLevels(AsCaches(config));
    for (const CalibrationCheck& check : plan) {
      int boundary = check.metric == "bytes_l2"     ? 0
                     : check.metric == "bytes_l3"   ? 1
                     : check.metric == "bytes_dram" ? 2
                                                    : -1;
      if (boundary < 0 || (check.kernel != "triad" && check.kernel != "dot")) continue;
      for (const std::string& level : check.levels) {
        uint64_t ws = 0;
        for (const CalibrationLevel& l : levels)
          if (l.level == level) ws = l.working_set_bytes;
        ASSERT_GT(ws, 0u) << level;
        const uint64_t n = static_cast<uint64_t>(static_cast<double>(ws) / check.bytes_per_unit);
        const char* why = "";
        std::vector<uint64_t> tags(cs_tag_bytes(config.data(), 3, &why) / sizeof(uint64_t), 0);
        ASSERT_FALSE(tags.empty()) << why;
        CacheSim sim{};
        cs_init(&sim, config.data(), 3, CS_PREFETCH_NONE, tags.data());
        uint64_t ev[CS_EV_COUNT] = {};
        WriteArrays(check.kernel, n, &sim, ev);
        Stream(check.kernel, n, &sim, ev);  // calibrate's warm-up call
        for (uint64_t& e : ev) e = 0;
        Stream(check.kernel, n, &sim, ev);  // the counted call
        Error formula_why;
        std::optional<double> expected = check.expected.Evaluate(
            [&](std::string_view name) -> std::optional<double> {
              if (name == check.size_param) return static_cast<double>(n);
              return std::nullopt;
            },
            &formula_why);
        ASSERT_TRUE(expected.has_value()) << formula_why.message;
        // Calibration's own tolerance: 5 %.
        EXPECT_NEAR(Bytes(ev, boundary) / *expected, 1.0, 0.05)
            << vendor.name << ": " << check.kernel << " " << check.metric << " in " << level << " ("
            << ws << " B): " << Bytes(ev, boundary) / static_cast<double>(n) << " B per element";
        ++checked;
      }
    }
  }
  // triad: bytes_l2 at 3 levels, bytes_l3 at 2, bytes_dram at 1; dot the same: 12 per vendor.
  EXPECT_EQ(checked, 36);
}

}  // namespace
}  // namespace rprof
