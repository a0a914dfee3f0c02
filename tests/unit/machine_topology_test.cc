// Topology from cpuid and sysfs, the fingerprint, and the ISA table.
#include <gtest/gtest.h>

#include <set>

#include "machine/compute_peak.h"
#include "machine/isa.h"
#include "machine/topology.h"

namespace rprof {
namespace {

TEST(TopologyTest, ParseCpuList) {
  std::vector<int> cpus;
  ASSERT_TRUE(ParseCpuList("0-3,8,10-11\n", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  ASSERT_TRUE(ParseCpuList("5", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{5}));
  EXPECT_FALSE(ParseCpuList("", &cpus));
  EXPECT_FALSE(ParseCpuList("3-1", &cpus));
  EXPECT_FALSE(ParseCpuList("1,,2", &cpus));
  EXPECT_FALSE(ParseCpuList("a-b", &cpus));
}

TEST(TopologyTest, ReadsThisMachine) {
  Topology t = ReadTopology();
  EXPECT_FALSE(t.vendor.empty());
  EXPECT_FALSE(t.model_name.empty());
  EXPECT_GE(t.logical_cpus, 1);
  EXPECT_GE(t.physical_cores, 1);
  EXPECT_LE(t.physical_cores, t.logical_cpus);
  EXPECT_EQ(t.threads_per_core * t.physical_cores, t.logical_cpus);
  EXPECT_TRUE(t.isa.sse2);  // x86-64 baseline
  if (t.isa.avx512f) {
    EXPECT_TRUE(t.isa.avx2);
  }
  if (t.isa.avx2 || t.isa.fma) {
    EXPECT_TRUE(t.isa.avx);  // all need the OS's YMM state
  }
  // cpu_order: every allowed CPU once, first hardware threads of all cores first.
  ASSERT_FALSE(t.cpu_order.empty());
  std::set<int> unique(t.cpu_order.begin(), t.cpu_order.end());
  EXPECT_EQ(unique.size(), t.cpu_order.size());
  EXPECT_LE(static_cast<int>(t.cpu_order.size()), t.logical_cpus);
  for (const CacheLevel& c : t.caches) {
    SCOPED_TRACE(testing::Message() << "L" << c.level << " " << c.type);
    EXPECT_GE(c.level, 1);
    EXPECT_GT(c.size_bytes, 0u);
    EXPECT_GE(c.instances, 1);
    EXPECT_TRUE(c.type == "data" || c.type == "instruction" || c.type == "unified");
  }
  std::vector<CacheLevel> data = DataCaches(t);
  for (size_t i = 1; i < data.size(); ++i) EXPECT_GT(data[i].level, data[i - 1].level);
  if (!data.empty()) {
    EXPECT_EQ(data[0].level, 1);
    EXPECT_NE(data[0].type, "instruction");
    EXPECT_EQ(AggregateCacheBytes(t, 1, 1), data[0].size_bytes);
    // Private L1s add up over threads on distinct cores.
    if (t.physical_cores >= 2 && data[0].shared_cpu_count == t.threads_per_core) {
      EXPECT_EQ(AggregateCacheBytes(t, 1, 2), 2 * data[0].size_bytes);
    }
  }
  EXPECT_EQ(AggregateCacheBytes(t, 42, 1), 0u);
  if (t.nominal_ghz > 0) {
    EXPECT_FALSE(t.nominal_ghz_source.empty());
  }
}

TEST(TopologyTest, FingerprintIsStableAndCoversTheMachine) {
  // Two reads of the files, not ReadTopology's one copy per process.
  Topology a = ReadTopologyFrom("");
  Topology b = ReadTopologyFrom("");
  std::string fp = Fingerprint(a);
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(fp.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(fp, Fingerprint(b));
  b.hostname += "x";
  EXPECT_NE(fp, Fingerprint(b));
  b = a;
  b.kernel_release = "0.0.0";
  EXPECT_NE(fp, Fingerprint(b));
  b = a;
  b.physical_cores += 1;
  EXPECT_NE(fp, Fingerprint(b));
  // Measured or volatile things are not part of it.
  b = a;
  b.nominal_ghz += 1;
  b.cpu_order.clear();
  EXPECT_EQ(fp, Fingerprint(b));
}

TEST(IsaTest, LanesNamesAndUsability) {
  EXPECT_EQ(IsaLanes(Isa::kScalar, Precision::kFp64), 1);
  EXPECT_EQ(IsaLanes(Isa::kScalar, Precision::kFp32), 1);
  EXPECT_EQ(IsaLanes(Isa::kSse, Precision::kFp64), 2);
  EXPECT_EQ(IsaLanes(Isa::kAvx2, Precision::kFp32), 8);
  EXPECT_EQ(IsaLanes(Isa::kAvx512, Precision::kFp64), 8);
  EXPECT_EQ(IsaLanes(Isa::kAvx512, Precision::kFp32), 16);
  Isa isa;
  ASSERT_TRUE(ParseIsa("avx512", &isa));
  EXPECT_EQ(isa, Isa::kAvx512);
  EXPECT_FALSE(ParseIsa("neon", &isa));
  IsaFlags none;
  none.sse2 = true;
  EXPECT_EQ(UsableIsas(none), (std::vector<Isa>{Isa::kScalar, Isa::kSse}));
  EXPECT_FALSE(IsaFmaUsable(none, Isa::kScalar));
  EXPECT_EQ(WidestIsa(none), Isa::kSse);
  IsaFlags avx512 = none;
  avx512.avx = avx512.avx2 = avx512.fma = avx512.avx512f = true;
  EXPECT_EQ(WidestIsa(avx512), Isa::kAvx512);
  EXPECT_TRUE(IsaFmaUsable(avx512, Isa::kSse));
}

TEST(IsaTest, TheoreticalPeak) {
  Topology zen3;
  zen3.vendor = "AuthenticAMD";
  zen3.family = 0x19;
  zen3.model = 0x01;
  EXPECT_EQ(KnownFmaUnits(zen3, Isa::kAvx2).value_or(0), 2);
  EXPECT_EQ(KnownFmaUnits(zen3, Isa::kAvx512).value_or(0), 1);  // Zen 4: 512 bits over two
  Topology zen1 = zen3;
  zen1.family = 0x17;
  zen1.model = 0x01;
  EXPECT_EQ(KnownFmaUnits(zen1, Isa::kAvx2).value_or(0), 1);
  Topology icx;
  icx.vendor = "GenuineIntel";
  icx.family = 6;
  icx.model = 0x6a;
  EXPECT_FALSE(KnownFmaUnits(icx, Isa::kAvx512).has_value());  // one or two, by SKU
  // 2 cores x 3.5 GHz x 2 units x 4 lanes x 2 = 112 GFLOP/s.
  EXPECT_DOUBLE_EQ(TheoreticalPeakGflops(2, 3.5, 2, 4), 112);
  EXPECT_EQ(EstimateFmaUnits(108, 3.5, 8), 2);  // 108 / (3.5 x 8 x 2) = 1.93
  EXPECT_EQ(EstimateFmaUnits(50, 3.5, 8), 1);
  EXPECT_EQ(EstimateFmaUnits(1, 0, 8), 1);
}

}  // namespace
}  // namespace rprof
