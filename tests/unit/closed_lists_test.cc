// Every entry of every closed list (core/target_kind.h, core/run.h's statuses, core/source.h,
// core/memory_level.h) survives the way a run travels between databases: its JSON as
// `rprof show --format json` writes it, read back as `rprof import` reads it, stored, loaded
// and written again as `rprof show` would. A kind, status, source or level one of them does
// not know (the JSON reader once refused `benchmark`) fails here, named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/memory_level.h"
#include "core/source.h"
#include "core/target_kind.h"
#include "report/run_from_json.h"
#include "report/run_report.h"
#include "store/run_store.h"
#include "temp_files.h"
#include "test_runs.h"

namespace rprof {
namespace {

using testing_support::FullRun;
using testing_support::TempDir;

class ClosedListsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    Error err;
    ASSERT_TRUE(store_.Open({dir_.File("runs.db"), false}, &err)) << err.message;
  }

  // JSON -> import -> show: the run as the second `show` gives it.
  RunRecord RoundTrip(const RunRecord& run) {
    std::vector<RunRecord> imported;
    Error why;
    EXPECT_TRUE(RunsFromJsonText(FormatRun(run, OutputFormat::kJson), &imported, &why))
        << why.message;
    if (imported.size() != 1) return {};
    Error err;
    EXPECT_TRUE(store_.Insert(&imported[0], &err)) << err.message;
    RunRecord stored;
    EXPECT_TRUE(store_.Load(imported[0].id, &stored, &err)) << err.message;
    std::vector<RunRecord> shown;
    EXPECT_TRUE(RunsFromJsonText(FormatRun(stored, OutputFormat::kJson), &shown, &why))
        << why.message;
    return shown.size() == 1 ? shown[0] : RunRecord();
  }

  TempDir dir_;
  RunStore store_;
};

TEST_F(ClosedListsTest, EveryTargetKind) {
  for (const TargetKindInfo& kind : kTargetKinds) {
    SCOPED_TRACE(std::string(kind.name));
    RunRecord run = FullRun();
    run.target_kind = std::string(kind.name);
    EXPECT_EQ(RoundTrip(run).target_kind, kind.name);
  }
}

TEST_F(ClosedListsTest, EveryStatus) {
  for (const RunStatusInfo& status : kRunStatuses) {
    SCOPED_TRACE(status.name);
    RunRecord run = FullRun();
    run.status = status.status;
    EXPECT_EQ(RunStatusName(RoundTrip(run).status), std::string(status.name));
  }
}

TEST_F(ClosedListsTest, EverySourceAndMemoryLevel) {
  RunRecord run = FullRun();
  run.metrics.clear();
  for (const SourceInfo& source : kSources)
    for (const MemoryLevelInfo& level : kMemoryLevels)
      run.metrics.push_back({"bytes_" + std::string(level.name), 4096, "B", source.source, "", ""});
  RunRecord back = RoundTrip(run);
  for (const SourceInfo& source : kSources)
    for (const MemoryLevelInfo& level : kMemoryLevels) {
      std::string name = "bytes_" + std::string(level.name);
      SCOPED_TRACE(name + " from " + std::string(source.name));
      const Metric* found = FindMetric(back.metrics, name, source.source);
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(found->value, 4096);
    }
}

TEST(ClosedLists, NamesParseBackAndChoicesNameThemAll) {
  for (const TargetKindInfo& k : kTargetKinds) {
    EXPECT_EQ(ParseTargetKind(k.name), k.kind);
    EXPECT_EQ(TargetKindName(k.kind), k.name);
  }
  for (const RunStatusInfo& s : kRunStatuses) EXPECT_EQ(ParseRunStatus(s.name), s.status);
  for (const MemoryLevelInfo& l : kMemoryLevels) {
    EXPECT_EQ(ParseMemoryLevel(l.name), l.level);
    EXPECT_EQ(MemoryLevelName(l.level), l.name);
  }
  // How choices are written, on two lists that do not grow; target kinds do (a new one is four
  // places, none of them this test): each named.
  EXPECT_EQ(RunStatusChoices(), "ok, failed, crashed or interrupted");
  EXPECT_EQ(MemoryLevelChoices(), "l1, l2, l3 or dram");
  for (const TargetKindInfo& k : kTargetKinds)
    EXPECT_NE(TargetKindChoices().find(k.name), std::string::npos) << k.name;
  EXPECT_FALSE(ParseTargetKind("no-such-kind"));
  EXPECT_FALSE(ParseMemoryLevel("l4"));
}

}  // namespace
}  // namespace rprof
