// The runs database on real SQLite files in temporary directories: a run reads back exactly as
// it was stored, listing filters and orders runs, each run is stored whole or not at all, and
// files or directories that cannot hold a database are refused with the path and the reason,
// the file left as it was.
#include "store/run_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "raw_sqlite.h"
#include "scoped_env.h"
#include "temp_files.h"
#include "test_runs.h"

namespace rprof {
namespace {

using testing_support::FirstDifference;
using testing_support::FullRun;
using testing_support::RawInt;
using testing_support::ReadBytes;
using testing_support::ScopedEnv;
using testing_support::SmallRun;
using testing_support::TempDir;
using testing_support::TestMachine;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class RunStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    path_ = dir_.File("runs.db");
    Error err;
    ASSERT_TRUE(store_.Open({path_, false}, &err)) << err.message;
  }
  int64_t Insert(RunRecord run) {
    Error err;
    EXPECT_TRUE(store_.Insert(&run, &err)) << err.message;
    return run.id;
  }
  std::vector<int64_t> ListIds(const RunFilter& filter) {
    std::vector<RunRecord> runs;
    Error err;
    EXPECT_TRUE(store_.List(filter, &runs, &err)) << err.message;
    std::vector<int64_t> ids;
    for (const RunRecord& r : runs) ids.push_back(r.id);
    return ids;
  }

  TempDir dir_;
  std::string path_;
  RunStore store_;
};

TEST_F(RunStoreTest, InsertThenLoadRoundTripsEverything) {
  RunRecord stored = FullRun();
  Error err;
  ASSERT_TRUE(store_.Insert(&stored, &err)) << err.message;
  ASSERT_GT(stored.id, 0);

  RunRecord loaded;
  ASSERT_TRUE(store_.Load(stored.id, &loaded, &err)) << err.message;
  EXPECT_EQ(loaded.id, stored.id);
  EXPECT_EQ(loaded.machine.fingerprint, stored.machine.fingerprint);
  EXPECT_EQ(loaded.machine.cpu_model, stored.machine.cpu_model);
  EXPECT_EQ(loaded.machine.cores, stored.machine.cores);
  EXPECT_EQ(loaded.machine.caches, stored.machine.caches);
  EXPECT_EQ(loaded.machine.kernel, stored.machine.kernel);
  EXPECT_EQ(loaded.machine.hostname, stored.machine.hostname);
  EXPECT_EQ(loaded.target_kind, stored.target_kind);
  EXPECT_EQ(loaded.target, stored.target);
  EXPECT_EQ(loaded.params, stored.params);
  EXPECT_EQ(loaded.command, stored.command);
  EXPECT_EQ(loaded.cwd, stored.cwd);
  EXPECT_EQ(loaded.precision, stored.precision);
  EXPECT_EQ(loaded.status, RunStatus::kCrashed);
  EXPECT_EQ(loaded.exit_code, std::optional<int>(139));
  EXPECT_EQ(loaded.signal, std::optional<int>(11));
  EXPECT_EQ(loaded.note, stored.note);
  EXPECT_EQ(loaded.sources, stored.sources);
  EXPECT_EQ(loaded.samples, stored.samples);  // REAL keeps every bit of a double
  EXPECT_EQ(loaded.calls_per_rep, 7);
  EXPECT_EQ(loaded.tags, stored.tags);
  EXPECT_EQ(loaded.started_at, stored.started_at);
  EXPECT_EQ(loaded.ended_at, stored.ended_at);
  EXPECT_EQ(loaded.rprof_version, stored.rprof_version);

  ASSERT_EQ(loaded.metrics.size(), stored.metrics.size());
  for (size_t i = 0; i < stored.metrics.size(); ++i) {
    const Metric& want = stored.metrics[i];
    const Metric& got = loaded.metrics[i];
    SCOPED_TRACE(want.name + " " + std::string(SourceName(want.source)) + " '" + want.region + "'");
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.value, want.value);
    EXPECT_EQ(got.unit, want.unit);
    EXPECT_EQ(got.source, want.source);
    EXPECT_EQ(got.region, want.region);
    EXPECT_EQ(got.note, want.note);
    EXPECT_EQ(got.coverage, want.coverage);
  }
  ASSERT_EQ(loaded.trust.size(), stored.trust.size());
  for (size_t i = 0; i < stored.trust.size(); ++i) {
    EXPECT_EQ(loaded.trust[i].kind, stored.trust[i].kind);
    EXPECT_EQ(loaded.trust[i].detail, stored.trust[i].detail);
  }
  // Counted throughout is NULL, not 1: only a partial count has a coverage.
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM metrics WHERE coverage IS NOT NULL"), 1);
  // The absent value is NULL in the file, never 0.
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM metrics WHERE name = 'PAPI_TOT_INS' AND value "
                   "IS NULL AND note = 'no hardware PMU here'"),
            1);
  EXPECT_EQ(
      RawInt(path_, "SELECT count(*) FROM samples WHERE run_id = " + std::to_string(stored.id)), 3);
  EXPECT_EQ(RawInt(path_, "SELECT repetitions FROM runs WHERE id = " + std::to_string(stored.id)),
            3);
}

TEST_F(RunStoreTest, AbsentOptionalFieldsStayAbsent) {
  RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  run.precision = "";
  int64_t id = Insert(run);
  RunRecord loaded;
  Error err;
  ASSERT_TRUE(store_.Load(id, &loaded, &err)) << err.message;
  EXPECT_EQ(loaded.exit_code, std::nullopt);
  EXPECT_EQ(loaded.signal, std::nullopt);
  EXPECT_TRUE(loaded.command.empty());
  EXPECT_EQ(loaded.note, "");
  EXPECT_EQ(loaded.precision, "");
  EXPECT_TRUE(loaded.tags.empty());
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM runs WHERE command IS NULL AND note IS NULL "
                   "AND precision IS NULL AND exit_code IS NULL"),
            1);
}

// A Database owns its connection: copying one would close it twice.
static_assert(!std::is_copy_constructible_v<Database> && !std::is_copy_assignable_v<Database>);

TEST_F(RunStoreTest, EmptyCwdAndNoSignalAreNull) {
  RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  run.cwd = "";
  run.signal = std::nullopt;
  Insert(run);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs WHERE cwd IS NULL AND signal IS NULL"), 1);
}

// Values are bound in SQL order, so a list one short or one long must fail, not shift columns.
TEST_F(RunStoreTest, StatementRunRefusesAMiscountedValueList) {
  Database* db = store_.db();
  Error why;
  EXPECT_FALSE(
      db->Run("INSERT INTO machines (fingerprint, cpu_model, cores, caches, kernel,"
              " hostname, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
              &why, "fp", "cpu", 4, "", "", ""));
  EXPECT_TRUE(Contains(why.message, "statement has 7 parameters, 6 values given")) << why.message;
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 0);
  EXPECT_TRUE(
      db->Run("INSERT INTO machines (fingerprint, cpu_model, cores, caches, kernel,"
              " hostname, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
              &why, "fp", "cpu", 4, "", "", "", "2026-01-01T00:00:00.000Z"))
      << why.message;
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines WHERE cores = 4"), 1);
}

TEST_F(RunStoreTest, ForEachRowVisitsRowsInOrderAndReportsErrors) {
  Database* db = store_.db();
  Error why;
  std::vector<int64_t> seen;
  auto add = [&](const Statement& s) { seen.push_back(s.Int(0)); };
  EXPECT_TRUE(
      db->ForEachRow("SELECT value FROM (SELECT 3 AS value UNION SELECT 1 UNION SELECT 2)"
                     " WHERE value >= ? ORDER BY value",
                     &why, add, 2));
  EXPECT_EQ(seen, (std::vector<int64_t>{2, 3}));
  seen.clear();
  EXPECT_TRUE(db->ForEachRow("SELECT id FROM runs", &why, add)) << why.message;
  EXPECT_TRUE(seen.empty());
  EXPECT_FALSE(db->ForEachRow("SELECT x FROM no_such_table", &why, add));
  EXPECT_TRUE(Contains(why.message, "no_such_table")) << why.message;
}

// One statement for a list of rows: each item's values in SQL order; the first failure stops it.
TEST_F(RunStoreTest, RunForEachInsertsEachItemUntilOneFails) {
  Database* db = store_.db();
  Error why;
  ASSERT_TRUE(db->Exec("CREATE TEMP TABLE pairs (k INTEGER PRIMARY KEY, v TEXT)", &why))
      << why.message;
  auto bind = [](const std::pair<int, std::string>& p) { return std::tuple(p.first, p.second); };
  std::vector<std::pair<int, std::string>> rows = {{1, "a"}, {2, "b"}, {3, "c"}};
  EXPECT_TRUE(db->RunForEach("INSERT INTO pairs (k, v) VALUES (?, ?)", rows, &why, bind))
      << why.message;
  int64_t count = 0;
  auto read = [&](const Statement& s) { count = s.Int(0); };
  ASSERT_TRUE(db->ForEachRow("SELECT count(*) FROM pairs WHERE v IN ('a', 'b', 'c')", &why, read));
  EXPECT_EQ(count, 3);

  // 4 goes in, the second 1 breaks the key, 5 is never tried.
  rows = {{4, "d"}, {1, "again"}, {5, "e"}};
  EXPECT_FALSE(db->RunForEach("INSERT INTO pairs (k, v) VALUES (?, ?)", rows, &why, bind));
  EXPECT_TRUE(Contains(why.message, "UNIQUE")) << why.message;
  ASSERT_TRUE(db->ForEachRow("SELECT count(*) FROM pairs", &why, read));
  EXPECT_EQ(count, 4);

  // A miscounted list is refused before any row, as Statement::Run refuses it.
  EXPECT_FALSE(db->RunForEach("INSERT INTO pairs (k, v) VALUES (?, ?)", rows, &why,
                              [](const auto& p) { return std::tuple(p.first); }));
  EXPECT_TRUE(Contains(why.message, "statement has 2 parameters, 1 values given")) << why.message;
}

// A write that fails leaves nothing behind, and fails as every database error does.
TEST_F(RunStoreTest, WriteInTransactionRollsBackAFailedWrite) {
  Error err;
  // One calibration row with its machine's.
  auto insert = [&](int64_t* id, Error* why) {
    return store_.InsertMachineRow(TestMachine(),
                                   "INSERT INTO calibrations (machine_id, source, pmu,"
                                   " tolerance_pct, created_at, rprof_version)"
                                   " VALUES (?, 'pmu', 'none', 5, '2026-01-01T00:00:00.000Z', '0')",
                                   id, why);
  };
  auto write = [&](Error* why) {
    int64_t id = 0;
    return insert(&id, why) && id > 0 && Fail(why, ErrorKind::kEnvironment, "given up");
  };
  EXPECT_FALSE(store_.WriteInTransaction(write, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(err.message, "database " + path_ + ": given up");
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM calibrations"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 0);

  auto succeed = [&](Error* why) {
    int64_t id = 0;
    return insert(&id, why);
  };
  EXPECT_TRUE(store_.WriteInTransaction(succeed, &err)) << err.message;
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM calibrations"), 1);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 1);
}

// run_summary's preferred source comes from the sources table, which the store keeps equal to
// rprof's own order of sources however it was left (since schema 18 every source, the clock
// after the counting ones: metrics.source references the table).
TEST_F(RunStoreTest, RunSummaryPrefersSourcesInRprofsOrder) {
  EXPECT_EQ(RawInt(path_,
                   "SELECT group_concat(name, ' ') = 'pmu sim model clock' FROM "
                   "(SELECT name FROM sources ORDER BY preference)"),
            1);
  RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-12-01T10:00:00.000Z", {});
  run.metrics.push_back({"gflops", 1.0, "GFLOP/s", Source::kModel, "", ""});
  run.metrics.push_back({"gflops", 2.0, "GFLOP/s", Source::kSim, "", ""});
  int64_t id = Insert(run);
  std::string summary = "SELECT gflops FROM run_summary WHERE run_id = " + std::to_string(id);
  EXPECT_EQ(RawInt(path_, summary), 2);  // sim before model

  // A database whose table was changed by hand is put back at the next open.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE sources SET preference = 9 WHERE name = 'sim'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(RawInt(path_, summary), 1);  // now the model's value leads
  RunStore again;
  Error err;
  ASSERT_TRUE(again.Open({path_, false}, &err)) << err.message;
  EXPECT_EQ(RawInt(path_, summary), 2);
}

TEST_F(RunStoreTest, ParamsAreStoredAsJsonWithIntegersAsNumbers) {
  RunRecord run = FullRun();
  Insert(run);
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM runs WHERE params = "
                   "'{\"n\":1000,\"label\":\"a \\\"quoted\\\" name\"}'"),
            1);
}

TEST_F(RunStoreTest, OneMachineRowPerFingerprint) {
  Insert(SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {}));
  Insert(SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {}));
  RunRecord other = SmallRun("dot", RunStatus::kOk, "2026-01-03T00:00:00.000Z", {});
  other.machine = TestMachine("fp-0002");
  Insert(other);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 2);
  EXPECT_EQ(RawInt(path_, "SELECT count(DISTINCT machine_id) FROM runs"), 2);
}

TEST_F(RunStoreTest, LoadOfMissingRunIsAUsageError) {
  RunRecord loaded;
  Error err;
  EXPECT_FALSE(store_.Load(999, &loaded, &err));
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  EXPECT_TRUE(Contains(err.message, "run 999")) << err.message;
}

TEST_F(RunStoreTest, FailedInsertStoresNothing) {
  RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  // Two rows with one primary key (run, region, name, source): the metrics insert fails after
  // the run and sample rows went in.
  run.metrics.push_back(run.metrics.front());
  Error err;
  EXPECT_FALSE(store_.Insert(&run, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, path_)) << err.message;
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM samples"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 0);

  // The connection is usable afterwards: the transaction was rolled back, not left open.
  int64_t id = Insert(SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {}));
  EXPECT_GT(id, 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs"), 1);
}

class RunStoreListTest : public RunStoreTest {
 protected:
  void SetUp() override {
    RunStoreTest::SetUp();
    ids_ = {Insert(SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {{"lab", "00"}})),
            Insert(SmallRun("dot", RunStatus::kOk, "2026-02-01T00:00:00.000Z", {{"lab", "01"}})),
            Insert(SmallRun("triad", RunStatus::kFailed, "2026-03-01T00:00:00.000Z",
                            {{"lab", "00"}, {"who", "ci"}})),
            Insert(SmallRun("triad", RunStatus::kInterrupted, "2026-04-01T00:00:00.000Z", {})),
            Insert(SmallRun("copy", RunStatus::kOk, "2026-05-01T00:00:00.000Z", {{"who", "ci"}}))};
  }
  // The id of the i-th inserted run (1-based, as in the comments).
  int64_t Id(int i) const { return ids_[i - 1]; }
  std::vector<int64_t> ids_;
};

TEST_F(RunStoreListTest, AllNewestFirst) {
  RunFilter all;
  all.limit = 0;
  EXPECT_EQ(ListIds(all), (std::vector<int64_t>{Id(5), Id(4), Id(3), Id(2), Id(1)}));
}

TEST_F(RunStoreListTest, ByTarget) {
  RunFilter f;
  f.target = "triad";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(4), Id(3), Id(1)}));
  f.target = "matmul-naive";
  EXPECT_TRUE(ListIds(f).empty());
}

TEST_F(RunStoreListTest, ByStatus) {
  RunFilter f;
  f.status = "ok";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(5), Id(2), Id(1)}));
  f.status = "interrupted";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(4)}));
}

TEST_F(RunStoreListTest, ByTags) {
  RunFilter f;
  f.tags = {{"lab", "00"}};
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(3), Id(1)}));
  f.tags = {{"lab", "00"}, {"who", "ci"}};  // every tag must match
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(3)}));
  f.tags = {{"lab", "02"}};
  EXPECT_TRUE(ListIds(f).empty());
}

TEST_F(RunStoreListTest, SinceAndLimit) {
  RunFilter f;
  f.since = "2026-03";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(5), Id(4), Id(3)}));
  f.since = "2026-03-01T00:00:00.001Z";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(5), Id(4)}));
  RunFilter limited;
  limited.limit = 2;
  EXPECT_EQ(ListIds(limited), (std::vector<int64_t>{Id(5), Id(4)}));
  limited.limit = 1;
  EXPECT_EQ(ListIds(limited), (std::vector<int64_t>{Id(5)}));
}

TEST_F(RunStoreListTest, FiltersCombine) {
  RunFilter f;
  f.target = "triad";
  f.since = "2026-02";
  f.tags = {{"who", "ci"}};
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(3)}));
  f.tags.clear();
  f.status = "interrupted";
  EXPECT_EQ(ListIds(f), (std::vector<int64_t>{Id(4)}));
}

TEST_F(RunStoreListTest, ListedRunsAreWhole) {
  RunFilter f;
  f.tags = {{"who", "ci"}};
  f.target = "triad";
  std::vector<RunRecord> runs;
  Error err;
  ASSERT_TRUE(store_.List(f, &runs, &err)) << err.message;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, RunStatus::kFailed);
  EXPECT_EQ(runs[0].tags, (KeyValues{{"lab", "00"}, {"who", "ci"}}));
  EXPECT_EQ(runs[0].samples, (std::vector<double>{0.5}));
  ASSERT_EQ(runs[0].metrics.size(), 1u);
  EXPECT_EQ(runs[0].metrics[0].name, "time_s");
  EXPECT_EQ(runs[0].machine.hostname, "testhost");
}

// What history lists: the runs' own metrics, never their regions' (issue 41: a run with 10^6
// regions cost every later history 5 s and 1 GB).
TEST_F(RunStoreTest, ListingRunMetricsOnlyLeavesTheRegionsOut) {
  RunRecord run = SmallRun("app", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  for (int i = 0; i < 3; ++i)
    run.metrics.push_back({"time_s", 0.1, "s", Source::kClock, "r" + std::to_string(i), ""});
  Insert(run);
  RunFilter f;
  f.run_metrics_only = true;
  std::vector<RunRecord> runs;
  Error err;
  ASSERT_TRUE(store_.List(f, &runs, &err)) << err.message;
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].metrics.size(), 1u);
  EXPECT_EQ(runs[0].metrics[0].region, "");
  f.run_metrics_only = false;
  runs.clear();
  ASSERT_TRUE(store_.List(f, &runs, &err)) << err.message;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].metrics.size(), 4u);
}

TEST(RunStoreOpen, NotAnSqliteFileIsRefusedAndUntouched) {
  TempDir dir;
  std::string path = dir.File("garbage.db");
  std::string garbage = "this is not an SQLite database, just some text\n";
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 251);
  WriteBytes(path, garbage);
  Error err;
  {
    RunStore store;
    EXPECT_FALSE(store.Open({path, false}, &err));
  }
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, path)) << err.message;
  EXPECT_TRUE(Contains(err.message, "not a database")) << err.message;
  EXPECT_TRUE(ReadBytes(path) == garbage) << FirstDifference(ReadBytes(path), garbage);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));

  {
    RunStore store;
    EXPECT_FALSE(store.OpenReadOnly({path, false}, &err));
  }
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(ReadBytes(path) == garbage) << FirstDifference(ReadBytes(path), garbage);
}

TEST(RunStoreOpen, MissingDirectoryIsNamed) {
  TempDir dir;
  std::string missing = dir.File("no/such/dir");
  Error err;
  RunStore store;
  EXPECT_FALSE(store.Open({missing + "/runs.db", false}, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "directory " + missing + " does not exist")) << err.message;
  EXPECT_FALSE(std::filesystem::exists(dir.File("no"))) << "a path the user gave is not created";
}

TEST(RunStoreOpen, DefaultPathCreatesItsDirectory) {
  TempDir dir;
  std::string path = dir.File("xdg/rprof/rprof.db");
  Error err;
  RunStore store;
  ASSERT_TRUE(store.Open({path, true}, &err)) << err.message;
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(RunStoreOpen, UnwritableDirectoryIsNamed) {
  if (geteuid() == 0)
    GTEST_SKIP() << "running as root, where directory permission bits do not apply";
  TempDir dir;
  std::string locked = dir.File("locked");
  ASSERT_EQ(mkdir(locked.c_str(), 0555), 0);
  Error err;
  {
    RunStore store;
    EXPECT_FALSE(store.Open({locked + "/runs.db", false}, &err));
  }
  chmod(locked.c_str(), 0755);  // so TempDir can remove it
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "directory " + locked + " is not writable")) << err.message;
  EXPECT_FALSE(std::filesystem::exists(locked + "/runs.db"));
}

TEST(RunStoreOpen, ReadOnlyOnMissingFileFailsWithoutCreatingIt) {
  TempDir dir;
  std::string path = dir.File("absent.db");
  Error err;
  RunStore store;
  EXPECT_FALSE(store.OpenReadOnly({path, false}, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, path)) << err.message;
  EXPECT_TRUE(Contains(err.message, "no database at " + path + ": nothing is stored there yet"))
      << err.message;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(RunStoreOpen, ReadOnlyConnectionCannotWrite) {
  TempDir dir;
  std::string path = dir.File("runs.db");
  Error err;
  {
    RunStore writer;
    ASSERT_TRUE(writer.Open({path, false}, &err)) << err.message;
    RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
    ASSERT_TRUE(writer.Insert(&run, &err)) << err.message;
  }
  RunStore reader;
  ASSERT_TRUE(reader.OpenReadOnly({path, false}, &err)) << err.message;
  Error why;
  EXPECT_FALSE(reader.db()->Exec("DELETE FROM runs", &why));
  EXPECT_FALSE(why.message.empty());
  RunRecord loaded;
  EXPECT_TRUE(reader.Load(1, &loaded, &err)) << err.message;
  EXPECT_EQ(RawInt(path, "SELECT count(*) FROM runs"), 1);
}

using testing_support::RawExec;

TEST_F(RunStoreTest, EveryRunGetsAUidKeptThroughLoad) {
  RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  Error err;
  ASSERT_TRUE(store_.Insert(&run, &err)) << err.message;
  EXPECT_TRUE(IsRunUid(run.uid)) << run.uid;
  RunRecord loaded;
  ASSERT_TRUE(store_.Load(run.id, &loaded, &err)) << err.message;
  EXPECT_EQ(loaded.uid, run.uid);

  RunRecord given = SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {});
  given.uid = "00112233445566778899aabbccddeeff";
  ASSERT_TRUE(store_.Insert(&given, &err)) << err.message;
  ASSERT_TRUE(store_.Load(given.id, &loaded, &err)) << err.message;
  EXPECT_EQ(loaded.uid, "00112233445566778899aabbccddeeff");
  EXPECT_NE(NewRunUid(), NewRunUid());
}

TEST_F(RunStoreTest, AFailedInsertStillGivesTheRunItsUid) {
  // The uid is the run's before it is stored, so a recovery file carries the identity an
  // import then stores it under.
  RunRecord first = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  Error err;
  ASSERT_TRUE(store_.Insert(&first, &err)) << err.message;
  RunRecord twin = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  twin.uid = first.uid;  // unique in the file: this insert fails
  EXPECT_FALSE(store_.Insert(&twin, &err));
  EXPECT_EQ(twin.uid, first.uid);
  EXPECT_EQ(twin.id, 0);
  RunRecord fresh = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  fresh.metrics.push_back(fresh.metrics.front());  // fails at the metrics
  EXPECT_FALSE(store_.Insert(&fresh, &err));
  EXPECT_TRUE(IsRunUid(fresh.uid));
}

TEST_F(RunStoreTest, ImportStoresEachRunOnce) {
  std::vector<RunRecord> runs = {FullRun(),
                                 SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {})};
  runs[0].uid = "0123456789abcdef0123456789abcdef";
  std::vector<RunStore::Imported> results;
  Error err;
  ASSERT_TRUE(store_.Import(&runs, &results, &err)) << err.message;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].already_stored);
  EXPECT_FALSE(results[1].already_stored);
  EXPECT_EQ(results[0].run_id, runs[0].id);
  EXPECT_TRUE(IsRunUid(runs[1].uid)) << "a run without a uid gets one";
  RunRecord loaded;
  ASSERT_TRUE(store_.Load(results[0].run_id, &loaded, &err)) << err.message;
  EXPECT_EQ(loaded.uid, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(loaded.metrics.size(), FullRun().metrics.size());

  // Again: nothing new, the same ids.
  std::vector<RunRecord> again = {FullRun()};
  again[0].uid = "0123456789abcdef0123456789abcdef";
  ASSERT_TRUE(store_.Import(&again, &results, &err)) << err.message;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].already_stored);
  EXPECT_EQ(results[0].run_id, runs[0].id);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs"), 2);
}

TEST_F(RunStoreTest, ImportKnowsARunWithoutUidByItsMachineTargetAndTimes) {
  // JSON written before runs had uids: the same run is the same machine, target, start and end.
  std::vector<RunRecord> runs = {SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {})};
  std::vector<RunStore::Imported> results;
  Error err;
  ASSERT_TRUE(store_.Import(&runs, &results, &err)) << err.message;
  std::vector<RunRecord> again = {SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {})};
  ASSERT_TRUE(store_.Import(&again, &results, &err)) << err.message;
  EXPECT_TRUE(results[0].already_stored);
  std::vector<RunRecord> later = {SmallRun("dot", RunStatus::kOk, "2026-01-03T00:00:00.000Z", {})};
  ASSERT_TRUE(store_.Import(&later, &results, &err)) << err.message;
  EXPECT_FALSE(results[0].already_stored);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs"), 2);
}

TEST_F(RunStoreTest, ImportIsWholeOrNothing) {
  std::vector<RunRecord> runs = {SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {}),
                                 SmallRun("triad", RunStatus::kOk, "2026-01-03T00:00:00.000Z", {})};
  runs[1].metrics.push_back(runs[1].metrics.front());  // one key twice: the second run fails
  std::vector<RunStore::Imported> results;
  Error err;
  EXPECT_FALSE(store_.Import(&runs, &results, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM runs"), 0);
}

TEST_F(RunStoreTest, ImportDropsAPlacementAgainstAnotherDatabasesProfile) {
  RawExec(path_,
          "INSERT INTO machines (id, fingerprint, cpu_model, cores, caches, kernel, hostname,"
          " first_seen) VALUES (7, 'fp-0001', 'cpu', 8, '', 'k', 'h', 't');"
          "INSERT INTO machine_profiles (id, machine_id, mode, threads, isa, seconds,"
          " created_at, rprof_version) VALUES (3, 7, 'quick', 8, 'avx2', 9, 't', 'v');");
  PlacementRecord placement;
  placement.profile_id = 3;
  placement.compute_ceiling = "fp64_avx2_fma";
  placement.peak_gflops = 60;
  placement.verdict = "DRAM-bandwidth-bound, 71 % of roof";
  std::vector<RunRecord> runs = {SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {}),
                                 SmallRun("dot", RunStatus::kOk, "2026-01-03T00:00:00.000Z", {}),
                                 SmallRun("dot", RunStatus::kOk, "2026-01-04T00:00:00.000Z", {})};
  runs[0].placement = placement;  // profile 3 is this machine's here: kept
  runs[1].placement = placement;
  runs[1].placement->profile_id = 4;  // no such profile here
  runs[2].placement = placement;
  runs[2].machine = TestMachine("fp-other");  // profile 3 is another machine's
  std::vector<RunStore::Imported> results;
  Error err;
  ASSERT_TRUE(store_.Import(&runs, &results, &err)) << err.message;
  EXPECT_FALSE(results[0].placement_dropped);
  EXPECT_TRUE(results[1].placement_dropped);
  EXPECT_TRUE(results[2].placement_dropped);
  RunRecord loaded;
  ASSERT_TRUE(store_.Load(results[0].run_id, &loaded, &err)) << err.message;
  ASSERT_TRUE(loaded.placement.has_value());
  EXPECT_EQ(loaded.placement->verdict, placement.verdict);
  ASSERT_TRUE(store_.Load(results[1].run_id, &loaded, &err)) << err.message;
  EXPECT_FALSE(loaded.placement.has_value());
}

TEST(RunStoreOpen, WritersRefuseADatabaseWithATableMissing) {
  TempDir dir;
  std::string path = dir.File("runs.db");
  Error err;
  {
    RunStore store;
    ASSERT_TRUE(store.Open({path, false}, &err)) << err.message;
  }
  RawExec(path, "DROP TABLE metrics");
  for (bool writer : {true, false}) {
    SCOPED_TRACE(writer ? "Open" : "OpenExisting");
    RunStore store;
    EXPECT_FALSE(writer ? store.Open({path, false}, &err)
                        : store.OpenExisting({path, false}, &err));
    EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
    EXPECT_TRUE(Contains(err.message,
                         "database " + path + ": table metrics is missing: the file was changed"))
        << err.message;
  }
}

TEST(RunStoreOpen, WritersRefuseADatabaseLockedByAnotherProcess) {
  ScopedEnv timeout("RPROF_BUSY_TIMEOUT_MS", "50");
  TempDir dir;
  std::string path = dir.File("runs.db");
  Error err;
  {
    RunStore store;
    ASSERT_TRUE(store.Open({path, false}, &err)) << err.message;
  }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  {
    RunStore store;
    EXPECT_FALSE(store.Open({path, false}, &err));
    EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
    EXPECT_TRUE(Contains(err.message, "locked by another process")) << err.message;
    EXPECT_TRUE(Contains(err.message, "busy timeout (50 ms)")) << err.message;
    // A reader does not need the write lock.
    RunStore reader;
    EXPECT_TRUE(reader.OpenExisting({path, false}, &err)) << err.message;
  }
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  RunStore store;
  EXPECT_TRUE(store.Open({path, false}, &err)) << err.message;
}

TEST(RunStoreOpen, OpenExistingNeverCreatesAndNeverWrites) {
  TempDir dir;
  std::string path = dir.File("runs.db");
  Error err;
  {
    RunStore store;
    EXPECT_FALSE(store.OpenExisting({path, false}, &err));
    EXPECT_TRUE(Contains(err.message, "no database at " + path)) << err.message;
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(store.OpenExisting({dir.File("no/such/dir/runs.db"), false}, &err));
    EXPECT_TRUE(Contains(err.message, "directory " + dir.File("no/such/dir") + " does not exist"))
        << err.message;
  }
  {
    RunStore writer;
    ASSERT_TRUE(writer.Open({path, false}, &err)) << err.message;
    RunRecord run = SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
    ASSERT_TRUE(writer.Insert(&run, &err)) << err.message;
  }
  std::string bytes = ReadBytes(path);
  {
    RunStore reader;
    ASSERT_TRUE(reader.OpenExisting({path, false}, &err)) << err.message;
    Error why;
    EXPECT_FALSE(reader.db()->Exec("DELETE FROM runs", &why)) << "a reader's connection wrote";
    RunRecord loaded;
    EXPECT_TRUE(reader.Load(1, &loaded, &err)) << err.message;
  }
  EXPECT_TRUE(ReadBytes(path) == bytes) << FirstDifference(ReadBytes(path), bytes);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal")) << "a reader left its -wal file behind";
}

TEST(ResolveDatabasePath, FlagThenEnvironmentThenXdgThenHome) {
  ScopedEnv db("RPROF_DB", "/env/runs.db");
  ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
  ScopedEnv home("HOME", "/home/someone");

  DatabasePath p = ResolveDatabasePath("/flag/runs.db");
  EXPECT_EQ(p.path, "/flag/runs.db");
  EXPECT_FALSE(p.is_default);

  p = ResolveDatabasePath("");
  EXPECT_EQ(p.path, "/env/runs.db");
  EXPECT_FALSE(p.is_default);

  {
    ScopedEnv no_db("RPROF_DB", nullptr);
    p = ResolveDatabasePath("");
    EXPECT_EQ(p.path, "/xdg/rprof/rprof.db");
    EXPECT_TRUE(p.is_default);
    ScopedEnv no_xdg("XDG_DATA_HOME", "");
    p = ResolveDatabasePath("");
    EXPECT_EQ(p.path, "/home/someone/.local/share/rprof/rprof.db");
    EXPECT_TRUE(p.is_default);
  }
}

}  // namespace
}  // namespace rprof
