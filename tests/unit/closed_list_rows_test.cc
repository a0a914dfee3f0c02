// Every row of every closed list the store keeps a table of (core/source.h, core/target_kind.h,
// core/stored_names.h) through every place that stores or reads its name (issue 40): a run of
// each target kind with values of each source, stored and loaded and through the run JSON as
// `rprof import` reads it; a calibration of each source; a machine profile of each mode,
// ceiling kind and level size rule; a simulated geometry of each inclusion and size origin. A
// new row that one of them refuses (calibrations' CHECK once refused any source but pmu and sim,
// SQLite error 19) fails here, named. And every enumerator has its row, so a trait is never
// asked of a kind without one.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "calibrate/calibration_store.h"
#include "core/source.h"
#include "core/stored_names.h"
#include "core/target_kind.h"
#include "raw_sqlite.h"
#include "report/run_from_json.h"
#include "report/run_report.h"
#include "store/profile_store.h"
#include "store/run_store.h"
#include "temp_files.h"
#include "test_runs.h"

namespace rprof {
namespace {

using testing_support::FullRun;
using testing_support::RawInt;
using testing_support::TempDir;
using testing_support::TestMachine;

class ClosedListRowsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    Error err;
    ASSERT_TRUE(store_.Open({dir_.File("runs.db"), false}, &err)) << err.message;
  }

  TempDir dir_;
  RunStore store_;
};

// A run of `kind` with one value of each source, and a simulated level of each inclusion and
// size origin (the lists are zipped: the longer one's tail pairs with the other's last name).
RunRecord RunOf(const TargetKindInfo& kind) {
  RunRecord run = FullRun();
  run.target_kind = std::string(kind.name);
  run.metrics.clear();
  run.sources.clear();
  for (const SourceInfo& source : kSources) {
    run.metrics.push_back({"flops", 2000, "FLOP", source.source, "", ""});
    run.sources.emplace_back(source.name);
  }
  size_t levels = std::max(kCacheInclusions.size(), kCacheSizeOrigins.size());
  for (size_t i = 0; i < levels; ++i) {
    SimCacheRecord level;
    level.level = static_cast<int>(i) + 1;
    level.size_bytes = 32768u << i;
    level.ways = 8;
    level.line_bytes = 64;
    level.inclusion = std::string(kCacheInclusions[std::min(i, kCacheInclusions.size() - 1)].name);
    level.size_origin =
        std::string(kCacheSizeOrigins[std::min(i, kCacheSizeOrigins.size() - 1)].name);
    run.sim_caches.push_back(level);
  }
  return run;
}

TEST_F(ClosedListRowsTest, EveryTargetKindWithEverySourceThroughStoreAndJson) {
  for (const TargetKindInfo& kind : kTargetKinds) {
    SCOPED_TRACE(std::string(kind.name));
    RunRecord run = RunOf(kind);
    Error err;
    ASSERT_TRUE(store_.Insert(&run, &err)) << err.message;
    RunRecord stored;
    ASSERT_TRUE(store_.Load(run.id, &stored, &err)) << err.message;
    EXPECT_EQ(stored.target_kind, kind.name);
    EXPECT_EQ(stored.sources, run.sources);
    // The store keeps the simulated geometry for users' SQL and loads none of it back.
    for (const SimCacheRecord& level : run.sim_caches)
      EXPECT_EQ(RawInt(dir_.File("runs.db"), "SELECT count(*) FROM run_sim_caches WHERE run_id = " +
                                                 std::to_string(run.id) + " AND inclusion = '" +
                                                 level.inclusion + "' AND size_origin = '" +
                                                 level.size_origin + "'"),
                1)
          << level.inclusion << ", " << level.size_origin;

    std::vector<RunRecord> read;
    Error why;
    ASSERT_TRUE(RunsFromJsonText(FormatRun(stored, OutputFormat::kJson), &read, &why))
        << why.message;
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].target_kind, kind.name);
    for (const SourceInfo& source : kSources) {
      SCOPED_TRACE(std::string(source.name));
      EXPECT_NE(FindMetric(read[0].metrics, "flops", source.source), nullptr);
    }
  }
}

TEST_F(ClosedListRowsTest, ACalibrationOfEverySource) {
  for (const SourceInfo& source : kSources) {
    SCOPED_TRACE(std::string(source.name));
    CalibrationResult result;
    result.source = source.source;
    result.points.push_back(
        {"flops_dp", "", "triad", {{"n", "640"}}, "l1", 15360, 1280, 1280, 1, ""});
    int64_t id = 0;
    Error err;
    EXPECT_TRUE(StoreCalibration(&store_, TestMachine(), "set", result, &id, &err)) << err.message;
  }
  std::vector<MetricTrust> trust;
  Error err;
  ASSERT_TRUE(LoadMetricTrust(&store_, TestMachine().fingerprint, &trust, &err)) << err.message;
  std::set<Source> read;
  for (const MetricTrust& t : trust) read.insert(t.source);
  for (const SourceInfo& source : kSources)
    EXPECT_TRUE(read.count(source.source)) << source.name << " not read back";
}

TEST_F(ClosedListRowsTest, AProfileOfEveryModeCeilingKindAndSizeRule) {
  for (const StoredName& mode : kProfileModes) {
    SCOPED_TRACE(std::string(mode.name));
    MachineProfile profile;
    profile.mode = std::string(mode.name);
    profile.threads = 1;
    for (const StoredName& kind : kCeilingKinds) {
      Ceiling c;
      c.kind = std::string(kind.name);
      c.name = c.kind + "_ceiling";
      c.level = "l1";
      c.isa = "avx2";
      c.precision = "fp64";
      c.pattern = "load";
      c.threads = 1;
      c.value = 10;
      c.unit = "x";
      c.repetitions = 3;
      profile.ceilings.push_back(c);
    }
    for (const StoredName& rule : kLevelSizeRules) {
      LevelSummary level;
      level.level = "l" + std::to_string(profile.levels.size() + 1);
      level.reported_size = level.size_bytes = 32768;
      level.size_rule = std::string(rule.name);
      level.size_reason = "test";
      profile.levels.push_back(level);
    }
    int64_t id = 0;
    Error err;
    ASSERT_TRUE(InsertProfile(&store_, TestMachine(), profile, &id, &err)) << err.message;
    StoredProfile stored;
    ASSERT_TRUE(LoadProfile(&store_, id, &stored, &err)) << err.message;
    EXPECT_EQ(stored.profile.mode, mode.name);
    ASSERT_EQ(stored.profile.ceilings.size(), kCeilingKinds.size());
    for (size_t i = 0; i < kCeilingKinds.size(); ++i)
      EXPECT_EQ(stored.profile.ceilings[i].kind, kCeilingKinds[i].name);
    ASSERT_EQ(stored.profile.levels.size(), kLevelSizeRules.size());
    for (size_t i = 0; i < kLevelSizeRules.size(); ++i)
      EXPECT_EQ(stored.profile.levels[i].size_rule, kLevelSizeRules[i].name);
  }
}

TEST(ClosedListRows, EveryEnumeratorHasItsRow) {
  for (const TargetKindInfo& k : kTargetKinds) {
    EXPECT_EQ(TargetKindRow(k.kind).name, k.name);
    EXPECT_EQ(TargetKindTraits(k.name).kind, k.kind);
  }
  for (const SourceInfo& s : kSources) {
    EXPECT_EQ(ParseSource(s.name), s.source);
    EXPECT_EQ(IsCalibratable(s.source), s.calibratable);
    // Only a measured source has a calibration to check it by.
    EXPECT_TRUE(!s.calibratable || s.measured) << s.name;
  }
  EXPECT_EQ(CalibratableSourceChoices(), "pmu or sim");
  // The command line declares the work of a whole process, and of nothing else.
  for (const TargetKindInfo& k : kTargetKinds)
    EXPECT_EQ(k.whole_process, k.declarer == WorkDeclarer::kCommandFlags) << k.name;
}

}  // namespace
}  // namespace rprof
