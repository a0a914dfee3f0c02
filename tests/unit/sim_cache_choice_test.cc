// --sim-cache's value (ParseSimCacheChoice), the sizes it gives and what the simulated
// geometry and its origin make of them (counters/sim_cache_sizes.h), on hand-made topologies.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "counters/counter_source.h"
#include "counters/sim_cache_sizes.h"
#include "machine/machine_profile.h"
#include "machine/topology.h"

namespace rprof {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

SimCacheChoice Parse(const std::string& text) {
  SimCacheChoice choice;
  Error err;
  EXPECT_TRUE(ParseSimCacheChoice(text, &choice, &err)) << text << ": " << err.message;
  return choice;
}

// The message ParseSimCacheChoice refuses `text` with (kUsage), "" when it takes it.
std::string Refusal(const std::string& text) {
  SimCacheChoice choice;
  Error err;
  if (ParseSimCacheChoice(text, &choice, &err)) return "";
  EXPECT_EQ(err.kind, ErrorKind::kUsage) << text;
  return err.message;
}

CacheLevel Cache(int level, const char* type, uint64_t size, int ways) {
  CacheLevel c;
  c.level = level;
  c.type = type;
  c.size_bytes = size;
  c.line_bytes = 64;
  c.ways = ways;
  return c;
}

// A Sapphire Rapids guest as its sysfs says: 48 KiB 12-way L1D, 2 MiB 16-way L2, and the
// host's 480 MiB 15-way L3 (a size no two-vCPU guest has to itself).
Topology ThreeLevels() {
  Topology t;
  t.vendor = "GenuineIntel";
  t.family = 6;
  t.model = 143;
  t.caches = {Cache(1, "data", 48 * KiB, 12), Cache(1, "instruction", 32 * KiB, 8),
              Cache(2, "unified", 2 * MiB, 16), Cache(3, "unified", 480 * MiB, 15)};
  return t;
}

Topology TwoLevels() {
  Topology t = ThreeLevels();
  t.caches.pop_back();
  return t;
}

TEST(SimCacheChoiceTest, MeasuredAndReportedGiveNoSizes) {
  for (const char* base : {"measured", "reported"}) {
    SimCacheChoice choice = Parse(base);
    EXPECT_EQ(choice.base, base);
    EXPECT_FALSE(choice.GivesSizes());
    EXPECT_EQ(choice.given, "");
  }
  EXPECT_EQ(SimCacheChoice().base, "measured");  // the default
}

TEST(SimCacheChoiceTest, SizesAreBinaryAndAnyCase) {
  SimCacheChoice all = Parse("l1=48K,l2=2M,l3=32M");
  EXPECT_EQ(all.base, "measured");  // the levels not named
  EXPECT_EQ(all.l1d_bytes, 49152u);
  EXPECT_EQ(all.l2_bytes, 2 * MiB);
  EXPECT_EQ(all.llc_bytes, 32 * MiB);
  EXPECT_EQ(all.given, "l1=48K,l2=2M,l3=32M");
  EXPECT_TRUE(all.GivesSizes());

  SimCacheChoice one = Parse("L3=1g");
  EXPECT_EQ(one.llc_bytes, 1024 * MiB);
  EXPECT_EQ(one.l1d_bytes, 0u);
  EXPECT_EQ(one.l2_bytes, 0u);
  EXPECT_EQ(Parse("l3=32m,l1=48k").l1d_bytes, 49152u);        // any order
  EXPECT_EQ(Parse("l2=1048576").l2_bytes, MiB);               // plain bytes
  EXPECT_EQ(Parse("l1=1K").l1d_bytes, KiB);                   // the least
  EXPECT_EQ(Parse("l3=1024G").llc_bytes, 1024 * 1024 * MiB);  // the most: 1 TiB
}

TEST(SimCacheChoiceTest, RefusalsNameTheValueAndTheWayOut) {
  const std::string use = "; use measured, reported, or sizes like l1=48K,l2=2M,l3=32M";
  EXPECT_EQ(Refusal("huge"),
            "--sim-cache huge: use measured, reported, or sizes like "
            "l1=48K,l2=2M,l3=32M");
  EXPECT_EQ(Refusal("Measured"),
            "--sim-cache Measured: use measured, reported, or sizes like "
            "l1=48K,l2=2M,l3=32M");
  EXPECT_EQ(Refusal("l3=abc"),
            "--sim-cache l3=abc: abc is no size in bytes (digits, then K, M or G)" + use);
  EXPECT_EQ(Refusal("l3=32MiB"),
            "--sim-cache l3=32MiB: 32MiB is no size in bytes (digits, then K, M or G)" + use);
  EXPECT_EQ(Refusal("l3=1.5M"),
            "--sim-cache l3=1.5M: 1.5M is no size in bytes (digits, then K, M or G)" + use);
  EXPECT_EQ(Refusal("l3="), "--sim-cache l3=: no size in bytes (digits, then K, M or G)" + use);
  EXPECT_EQ(Refusal("l4=8M"),
            "--sim-cache l4=8M: no level l4 (l1, l2, or l3 for the last level)" + use);
  EXPECT_EQ(Refusal("llc=8M"),
            "--sim-cache llc=8M: no level llc (l1, l2, or l3 for the last level)" + use);
  EXPECT_EQ(Refusal("l3=8M,L3=16M"), "--sim-cache l3=8M,L3=16M: l3 given twice" + use);
  EXPECT_EQ(Refusal("l3=0"), "--sim-cache l3=0: l3=0 is under 1 KiB" + use);
  EXPECT_EQ(Refusal("l1=512"), "--sim-cache l1=512: l1=512 is under 1 KiB" + use);
  EXPECT_EQ(Refusal("l3=1025G"), "--sim-cache l3=1025G: 1025G is over 1 TiB" + use);
  EXPECT_EQ(Refusal("l3=99999999999999999999999"),
            "--sim-cache l3=99999999999999999999999: 99999999999999999999999 is over 1 TiB" + use);
  EXPECT_EQ(Refusal("l1=1100"),
            "--sim-cache l1=1100: l1=1100 is no whole number of 64-byte lines" + use);
  EXPECT_EQ(Refusal("l3=32M,"), "--sim-cache l3=32M,: an empty size" + use);
  EXPECT_EQ(Refusal("l3=32M,l2"), "--sim-cache l3=32M,l2: l2 has no =" + use);
  EXPECT_EQ(Refusal("measured,l3=32M"), "--sim-cache measured,l3=32M: measured has no =" + use);
}

TEST(SimCacheChoiceTest, GivenSizesAreSimulatedAsGivenOrRoundedDown) {
  // 32 MiB on the 15-way L3 is 34952.5 sets: rounded down, where a measured size would go to the
  // nearest set count (up, here). 2 MiB on the 16-way L2 is a whole 2048 sets: as given.
  CacheSizes sizes;
  GiveSimCacheSizes(Parse("l2=2M,l3=32M"), &sizes);
  EXPECT_TRUE(sizes.l2_given);
  EXPECT_TRUE(sizes.llc_given);
  EXPECT_FALSE(sizes.l1d_given);
  EXPECT_EQ(sizes.l1d_bytes, 0u);
  std::vector<SimCacheRecord> given = SimCacheGeometry(ThreeLevels(), sizes);
  ASSERT_EQ(given.size(), 3u);
  EXPECT_EQ(given[0].size_bytes, 48 * KiB);  // sysfs's: not given
  EXPECT_EQ(given[0].size_origin, "reported");
  EXPECT_EQ(given[1].size_bytes, 2 * MiB);
  EXPECT_EQ(given[2].size_bytes, 34952u * 15 * 64);
  EXPECT_EQ(given[2].ways, 15);
  EXPECT_EQ(given[2].size_origin, "given");  // stored so (run_sim_caches, schema 020)

  CacheSizes measured;
  measured.llc_bytes = 32 * MiB;
  EXPECT_EQ(SimCacheGeometry(ThreeLevels(), measured)[2].size_bytes, 34953u * 15 * 64);
}

TEST(SimCacheChoiceTest, TheOriginSaysWhatWasGivenAndWhatWasRounded) {
  SimCacheChoice choice = Parse("l3=32M");
  CacheSizes sizes;
  GiveSimCacheSizes(choice, &sizes);
  sizes.origin = "reported by sysfs (no machine profile yet)";
  NoteGivenSimCacheSizes(choice, ThreeLevels(), &sizes);
  EXPECT_EQ(sizes.origin,
            "given by --sim-cache l3=32M; l3 simulated as 33553920 B (whole 15-way sets of 64 B); "
            "the other levels reported by sysfs (no machine profile yet)");

  // Every level given, each a whole number of sets: nothing else to say.
  SimCacheChoice all = Parse("l1=48K,l2=2M,l3=30M");
  CacheSizes every;
  GiveSimCacheSizes(all, &every);
  NoteGivenSimCacheSizes(all, ThreeLevels(), &every);
  EXPECT_EQ(every.origin, "given by --sim-cache l1=48K,l2=2M,l3=30M");

  // No choice given: the origin is left as it was.
  CacheSizes none;
  none.origin = "reported by sysfs (--sim-cache reported)";
  NoteGivenSimCacheSizes(Parse("reported"), ThreeLevels(), &none);
  EXPECT_EQ(none.origin, "reported by sysfs (--sim-cache reported)");
}

TEST(SimCacheChoiceTest, ALevelTheMachineLacksIsSaidUnused) {
  // Two levels: l3 is the last, level 2; l2= has no level above it to size.
  SimCacheChoice choice = Parse("l2=1M,l3=4M");
  CacheSizes sizes;
  GiveSimCacheSizes(choice, &sizes);
  sizes.origin = "reported by sysfs (no machine profile yet)";
  NoteGivenSimCacheSizes(choice, TwoLevels(), &sizes);
  EXPECT_EQ(sizes.origin,
            "given by --sim-cache l2=1M,l3=4M; l2 unused: this machine has no level 2 above its "
            "last (l3); the other levels reported by sysfs (no machine profile yet)");
  std::vector<SimCacheRecord> geometry = SimCacheGeometry(TwoLevels(), sizes);
  ASSERT_EQ(geometry.size(), 2u);
  EXPECT_EQ(geometry[1].size_bytes, 4 * MiB);

  Topology bare;
  CacheSizes nothing;
  GiveSimCacheSizes(choice, &nothing);
  nothing.origin = "reported by sysfs";
  NoteGivenSimCacheSizes(choice, bare, &nothing);
  EXPECT_EQ(nothing.origin,
            "given by --sim-cache l2=1M,l3=4M; l2 unused: sysfs lists no caches here; l3 unused: "
            "sysfs lists no caches here; the other levels reported by sysfs");
}

TEST(SimCacheChoiceTest, AProfileLeavesTheGivenLevelsAlone) {
  // l1 is level 1 on every machine: the profile's measured L1 would replace it, but l1 was given.
  MachineProfile profile;
  LevelSummary l1;
  l1.level = "l1";
  l1.size_bytes = 40 * KiB;
  l1.size_rule = "measured";
  profile.levels = {l1};
  CacheSizes sizes;
  GiveSimCacheSizes(Parse("l1=32K"), &sizes);
  SimCacheSizesFromProfile(profile, 7, &sizes);
  EXPECT_EQ(sizes.l1d_bytes, 32 * KiB);
  EXPECT_EQ(sizes.origin, "reported by sysfs (machine profile 7 replaced none of them)");

  CacheSizes measured;
  SimCacheSizesFromProfile(profile, 7, &measured);
  EXPECT_EQ(measured.l1d_bytes, 40 * KiB);
  EXPECT_FALSE(measured.l1d_given);
  EXPECT_NE(measured.origin.find("as machine profile 7 measured them (l1 measured"),
            std::string::npos)
      << measured.origin;
}

}  // namespace
}  // namespace rprof
