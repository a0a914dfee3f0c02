// The migration runner on real SQLite files: a fresh database gets the current schema, migrating
// again changes nothing, a failing migration leaves the previous version, and a database newer
// than this binary is refused without a single byte of it changing.
#include "store/migrations.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "raw_sqlite.h"
#include "store/run_store.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::FirstDifference;
using testing_support::RawInt;
using testing_support::ReadBytes;
using testing_support::TempDir;

using testing_support::RawExec;

std::vector<std::string> RawStrings(Database* db, const std::string& sql) {
  std::vector<std::string> out;
  Statement stmt;
  Error err;
  EXPECT_TRUE(db->Prepare(sql, &stmt, &err)) << err.message;
  while (stmt.Step(&err)) out.push_back(stmt.Text(0));
  EXPECT_EQ(err.message, "");
  return out;
}

int UserVersion(Database* db) {
  Statement stmt;
  Error err;
  EXPECT_TRUE(db->Prepare("PRAGMA user_version", &stmt, &err)) << err.message;
  EXPECT_TRUE(stmt.Step(&err)) << err.message;
  return static_cast<int>(stmt.Int(0));
}

// Creates a database at `path` migrated up to, not including, the builtin migration named
// `*name*.sql` (found by name: numbers may change when migrations are merged).
testing::AssertionResult MigrateToJustBefore(const std::string& path, const std::string& name) {
  std::vector<Migration> all = BuiltinMigrations();
  auto at = std::find_if(all.begin(), all.end(), [&](const Migration& m) {
    return m.name.find(name) != std::string::npos;
  });
  if (at == all.end()) return testing::AssertionFailure() << "no migration " << name;
  Database db;
  Error err;
  if (!db.Open(path, Database::Mode::kReadWrite, &err) ||
      !Migrate(&db, std::vector<Migration>(all.begin(), at), &err))
    return testing::AssertionFailure() << err.message;
  return testing::AssertionSuccess();
}

TEST(BuiltinMigrations, NumberedFromOneWithoutGaps) {
  const std::vector<Migration>& migrations = BuiltinMigrations();
  ASSERT_FALSE(migrations.empty());
  for (size_t i = 0; i < migrations.size(); ++i) {
    SCOPED_TRACE(migrations[i].name);
    EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%03d_", migrations[i].version);
    EXPECT_EQ(migrations[i].name.rfind(prefix, 0), 0u);
    EXPECT_TRUE(migrations[i].name.ends_with(".sql"));
    EXPECT_FALSE(migrations[i].sql.empty());
  }
  EXPECT_EQ(CurrentSchemaVersion(), static_cast<int>(migrations.size()));
}

TEST(Migrate, FreshDatabaseGetsCurrentSchema) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(dir.File("fresh.db"), Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, BuiltinMigrations(), &err)) << err.message;
  EXPECT_EQ(UserVersion(&db), CurrentSchemaVersion());
  std::vector<std::string> tables =
      RawStrings(&db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  // The tables of 001 (later migrations add more).
  for (const char* table : {"machines", "metrics", "runs", "samples", "tags"})
    EXPECT_NE(std::find(tables.begin(), tables.end(), table), tables.end()) << table;
  EXPECT_EQ(RawStrings(&db, "PRAGMA journal_mode"), (std::vector<std::string>{"wal"}));
}

TEST(Migrate, SecondTimeIsANoOp) {
  TempDir dir;
  std::string path = dir.File("twice.db");
  Error err;
  std::vector<std::string> schema_before;
  {
    Database db;
    ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
    ASSERT_TRUE(Migrate(&db, BuiltinMigrations(), &err)) << err.message;
    schema_before = RawStrings(&db, "SELECT sql FROM sqlite_master ORDER BY name");
  }
  Database db;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, BuiltinMigrations(), &err)) << err.message;
  EXPECT_EQ(UserVersion(&db), CurrentSchemaVersion());
  EXPECT_EQ(RawStrings(&db, "SELECT sql FROM sqlite_master ORDER BY name"), schema_before);
}

// Ranks of one MPI job open a new database together: one has migrated it and switches it to WAL
// while another holds the write lock, looking whether a migration is left. SQLite takes the
// switch's write lock as an upgrade of a read, for which it never calls the busy handler
// (sqlite3BtreeSetVersion): "database is locked" at once. Migrate waits as a write would.
TEST(Migrate, SwitchingToWalWaitsForAnotherWriterAsAWriteWould) {
  TempDir dir;
  std::string path = dir.File("shared.db");
  Error err;
  {
    Database db;
    ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
    ASSERT_TRUE(Migrate(&db, BuiltinMigrations(), &err)) << err.message;
  }
  RawExec(path, "PRAGMA journal_mode = DELETE");  // as a fresh file is before its first switch
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::thread release([writer] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  });
  Database db;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  auto start = std::chrono::steady_clock::now();
  bool migrated = Migrate(&db, BuiltinMigrations(), &err);
  double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  release.join();
  sqlite3_close(writer);
  ASSERT_TRUE(migrated) << err.message;
  EXPECT_GE(waited_s, 0.2);  // it waited for the writer
  EXPECT_EQ(RawStrings(&db, "PRAGMA journal_mode"), (std::vector<std::string>{"wal"}));
}

TEST(Migrate, AppliesOnlyMigrationsNotYetApplied) {
  // Plain CREATE TABLE fails when run twice, so re-applying an old migration would show.
  TempDir dir;
  std::string path = dir.File("steps.db");
  std::vector<Migration> first = {{1, "001_a.sql", "CREATE TABLE a (x);"}};
  std::vector<Migration> both = {first[0], {2, "002_b.sql", "CREATE TABLE b (y);"}};
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, first, &err)) << err.message;
  EXPECT_EQ(UserVersion(&db), 1);
  ASSERT_TRUE(Migrate(&db, first, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, both, &err)) << err.message;
  EXPECT_EQ(UserVersion(&db), 2);
  EXPECT_EQ(RawStrings(&db, "SELECT name FROM sqlite_master ORDER BY name"),
            (std::vector<std::string>{"a", "b"}));
}

// 005 gives placements stored before it their binding ceiling's kind, from their binding text.
TEST(Migrate, PlacementsStoredBeforeTheBoundColumnGetTheirKind) {
  TempDir dir;
  std::string path = dir.File("old.db");
  ASSERT_TRUE(MigrateToJustBefore(path, "_placement_bound.sql"));
  std::vector<Migration> all = BuiltinMigrations();
  // Foreign keys are off on a raw connection: placements alone are enough here.
  RawExec(path,
          "INSERT INTO placements (run_id, profile_id, compute_ceiling, peak_gflops, binding,"
          " verdict) VALUES (1, 1, 'fp64_avx2_fma', 67, 'dram bandwidth (dram_triad)', 'v'),"
          " (2, 1, 'fp64_avx2_fma', 67, 'compute (fp64_avx2_fma)', 'v'),"
          " (3, 1, 'fp64_avx2_fma', 67, NULL, 'not placed: no FLOP count')");
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, all, &err)) << err.message;
  EXPECT_EQ(RawStrings(&db, "SELECT coalesce(bound, 'NULL') FROM placements ORDER BY run_id"),
            (std::vector<std::string>{"dram bandwidth", "compute", "NULL"}));
}

// The bandwidth-conventions migration gives ceilings stored before it both conventions, from
// their pattern alone (found by name: its number may change when migrations are merged).
TEST(Migrate, CeilingsStoredBeforeTheConventionsGetBoth) {
  TempDir dir;
  std::string path = dir.File("old.db");
  ASSERT_TRUE(MigrateToJustBefore(path, "_bandwidth_conventions.sql"));
  std::vector<Migration> all = BuiltinMigrations();
  RawExec(
      path,
      "INSERT INTO ceilings (profile_id, kind, name, level, isa, precision, pattern, threads,"
      " working_set_bytes, value, unit, spread_pct, repetitions) VALUES"
      " (1, 'bandwidth', 'dram_triad', 'dram', 'avx2', 'fp64', 'triad', 1, 1, 24, 'GB/s', 1, 5),"
      " (1, 'bandwidth', 'dram_copy', 'dram', 'avx2', 'fp64', 'copy', 1, 1, 16, 'GB/s', 1, 5),"
      " (1, 'bandwidth', 'dram_copy_nt', 'dram', 'avx2', 'fp64', 'copy_nt', 1, 1, 16, 'GB/s',"
      " 1, 5),"
      " (1, 'bandwidth', 'l1_triad', 'l1', 'avx2', 'fp64', 'triad', 1, 1, 240, 'GB/s', 1, 5),"
      " (1, 'bandwidth', 'l2_load', 'l2', 'avx2', 'fp64', 'load', 1, 1, 80, 'GB/s', 1, 5),"
      " (1, 'compute', 'fp64_avx2_fma', '', 'avx2', 'fp64', 'fma', 1, 0, 50, 'GFLOP/s', 1, 5)");
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, all, &err)) << err.message;
  EXPECT_EQ(RawStrings(&db,
                       "SELECT name || ' ' || coalesce(bytes_per_element, 'NULL') || ' ' ||"
                       " coalesce(traffic_bytes_per_element, 'NULL') || ' ' ||"
                       " coalesce(traffic_value, 'NULL') FROM ceilings ORDER BY rowid"),
            (std::vector<std::string>{"dram_triad 24 32 32.0", "dram_copy 16 24 24.0",
                                      "dram_copy_nt 16 16 16.0", "l1_triad 24 24 240.0",
                                      "l2_load 8 8 80.0", "fp64_avx2_fma NULL NULL NULL"}));
}

TEST(Migrate, FailingMigrationIsRolledBackAndNamed) {
  TempDir dir;
  std::string path = dir.File("broken.db");
  std::vector<Migration> migrations = {
      {1, "001_a.sql", "CREATE TABLE a (x);"},
      {2, "002_broken.sql", "CREATE TABLE b (y); THIS IS NOT SQL;"}};
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  EXPECT_FALSE(Migrate(&db, migrations, &err));
  EXPECT_NE(err.message.find("002_broken.sql"), std::string::npos) << err.message;
  EXPECT_EQ(UserVersion(&db), 1);
  EXPECT_EQ(RawStrings(&db, "SELECT name FROM sqlite_master ORDER BY name"),
            (std::vector<std::string>{"a"}))
      << "the half-applied migration must be rolled back";
}

TEST(Migrate, ForeignDatabaseThatCannotBeMigratedIsLeftUntouched) {
  // Someone else's SQLite file at version 0 with tables (here one named like ours): refused as
  // not an rprof database, and the file must be exactly as it was, journal mode included (the
  // runner may switch to WAL only once it knows the file is ours).
  TempDir dir;
  std::string path = dir.File("foreign.db");
  RawExec(path,
          "CREATE TABLE runs (lap INTEGER, seconds REAL);"
          "INSERT INTO runs VALUES (1, 62.5);");
  std::string bytes = ReadBytes(path);
  Error err;
  {
    Database db;
    ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
    EXPECT_FALSE(Migrate(&db, BuiltinMigrations(), &err));
  }
  EXPECT_NE(err.message.find("not an rprof database"), std::string::npos) << err.message;
  EXPECT_EQ(RawInt(path, "PRAGMA user_version"), 0);
  EXPECT_EQ(RawInt(path, "SELECT count(*) FROM runs"), 1);
  EXPECT_TRUE(ReadBytes(path) == bytes)
      << "a refused database was modified: " << FirstDifference(ReadBytes(path), bytes);
}

class NewerDatabaseTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    path_ = dir_.File("newer.db");
    newer_ = CurrentSchemaVersion() + 1;
    RawExec(path_,
            "CREATE TABLE runs (id INTEGER PRIMARY KEY, future TEXT);"
            "INSERT INTO runs (future) VALUES ('from a newer rprof');"
            "PRAGMA user_version = " +
                std::to_string(newer_) + ";");
    ASSERT_EQ(RawInt(path_, "PRAGMA user_version"), newer_);
    bytes_ = ReadBytes(path_);
    ASSERT_FALSE(bytes_.empty());
  }

  TempDir dir_;
  std::string path_;
  int newer_ = 0;
  std::string bytes_;
};

TEST_F(NewerDatabaseTest, MigrateRefusesNamingBothVersions) {
  Error err;
  {
    Database db;
    ASSERT_TRUE(db.Open(path_, Database::Mode::kReadWrite, &err)) << err.message;
    EXPECT_FALSE(Migrate(&db, BuiltinMigrations(), &err));
  }
  EXPECT_NE(err.message.find("schema version " + std::to_string(newer_)), std::string::npos)
      << err.message;
  EXPECT_NE(err.message.find("this rprof's " + std::to_string(CurrentSchemaVersion())),
            std::string::npos)
      << err.message;
  EXPECT_TRUE(ReadBytes(path_) == bytes_)
      << "a refused database must be left untouched: " << FirstDifference(ReadBytes(path_), bytes_);
  EXPECT_EQ(RawInt(path_, "PRAGMA user_version"), newer_);
}

TEST_F(NewerDatabaseTest, RunStoreOpenRefusesAndLeavesTheFile) {
  Error err;
  {
    RunStore store;
    EXPECT_FALSE(store.Open({path_, false}, &err));
  }
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find(path_), std::string::npos) << err.message;
  EXPECT_NE(err.message.find(std::to_string(newer_)), std::string::npos) << err.message;
  EXPECT_TRUE(ReadBytes(path_) == bytes_) << FirstDifference(ReadBytes(path_), bytes_);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(NewerDatabaseTest, ReadOnlyOpenRefusesToo) {
  Error err;
  {
    RunStore store;
    EXPECT_FALSE(store.OpenReadOnly({path_, false}, &err));
  }
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find("schema version " + std::to_string(newer_)), std::string::npos)
      << err.message;
  EXPECT_TRUE(ReadBytes(path_) == bytes_) << FirstDifference(ReadBytes(path_), bytes_);
}

TEST(Migrate, ProfilesStoredBeforeTheNoisyMarkAreMarkedByTheirSpreads) {
  TempDir dir;
  std::string path = dir.File("old.db");
  ASSERT_TRUE(MigrateToJustBefore(path, "_noisy_profiles.sql"));
  std::vector<Migration> all = BuiltinMigrations();
  // Profile 1: 3 of 4 ceilings spread more than 10 % (noisy); profile 2: 1 of 4 (not). A run's
  // trust notes survive the rebuilt run_trust table, in their order.
  RawExec(path,
          "INSERT INTO machines (id, fingerprint, cpu_model, cores, caches, kernel, hostname,"
          " first_seen) VALUES (1, 'fp', 'cpu', 2, '', 'k', 'h', 't');"
          "INSERT INTO runs (id, machine_id, target_kind, target, params, status, sources,"
          " repetitions, calls_per_rep, started_at, ended_at, rprof_version) VALUES"
          " (1, 1, 'builtin', 'triad', '{}', 'ok', 'clock', 1, 1, 't', 't', 'v');"
          "INSERT INTO machine_profiles (id, machine_id, mode, threads, isa, seconds,"
          " created_at, rprof_version) VALUES (1, 1, 'quick', 2, 'avx2', 9, 't', 'v'),"
          " (2, 1, 'quick', 2, 'avx2', 9, 't', 'v');"
          "INSERT INTO ceilings (profile_id, kind, name, level, isa, precision, pattern, threads,"
          " working_set_bytes, value, unit, spread_pct, repetitions) VALUES"
          " (1, 'compute', 'a', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 40, 5),"
          " (1, 'compute', 'b', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 92, 5),"
          " (1, 'compute', 'c', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 11, 5),"
          " (1, 'compute', 'd', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 2, 5),"
          " (2, 'compute', 'a', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 40, 5),"
          " (2, 'compute', 'b', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 2, 5),"
          " (2, 'compute', 'c', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 2, 5),"
          " (2, 'compute', 'd', '', 'avx2', 'fp64', 'fma', 1, 0, 1, 'GFLOP/s', 2, 5);"
          "INSERT INTO run_trust (run_id, kind, detail) VALUES (1, 'uncalibrated', 'x'),"
          " (1, 'hypervisor', 'y')");
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(Migrate(&db, all, &err)) << err.message;
  EXPECT_EQ(RawStrings(&db,
                       "SELECT noisy || ': ' || coalesce(noisy_reasons, 'NULL') FROM"
                       " machine_profiles ORDER BY id"),
            (std::vector<std::string>{
                "1: 3 of 4 ceilings varied more than 10 % between repetitions (found when the "
                "database was upgraded)",
                "0: NULL"}));
  EXPECT_EQ(RawStrings(&db, "SELECT kind FROM run_trust ORDER BY rowid"),
            (std::vector<std::string>{"uncalibrated", "hypervisor"}));
  RawExec(path, "INSERT INTO run_trust (run_id, kind, detail) VALUES (1, 'noisy_profile', 'z')");
  EXPECT_EQ(RawStrings(&db, "SELECT kind FROM run_trust ORDER BY rowid").size(), 3u);
}

// The run-uid migration gives runs stored before it a uid each, all different, and a run a
// user's own SQL inserts without one still gets one.
// Trust kinds became a table (021): notes stored before keep their kinds, a kind the list does
// not have is still refused, and a kind added to kTrustKinds is stored without a migration.
TEST(Migrate, TrustNotesStoredBeforeTheKindsTableKeepTheirKinds) {
  TempDir dir;
  std::string path = dir.File("old.db");
  ASSERT_TRUE(MigrateToJustBefore(path, "_trust_kinds_table.sql"));
  RawExec(path,
          "INSERT INTO machines (id, fingerprint, cpu_model, cores, caches, kernel, hostname,"
          " first_seen) VALUES (1, 'fp', 'cpu', 2, '', 'k', 'h', 't');"
          "INSERT INTO runs (id, uid, machine_id, target_kind, target, params, status, sources,"
          " repetitions, calls_per_rep, started_at, ended_at, rprof_version) VALUES"
          " (1, '0123456789abcdef0123456789abcdef', 1, 'builtin', 'triad', '{}', 'ok', 'clock',"
          " 1, 1, 't', 't', 'v');"
          "INSERT INTO run_trust (run_id, kind, detail) VALUES (1, 'noisy_profile', 'n'),"
          " (1, 'events_missing', 'e')");
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({path, false}, &err)) << err.message;
  EXPECT_EQ(RawInt(path, "PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(RawInt(path, "SELECT count(*) FROM run_trust WHERE run_id = 1"), 2);
  EXPECT_EQ(RawInt(path, "SELECT count(*) FROM trust_kinds"),
            static_cast<int64_t>(kTrustKinds.size()));
  // rprof's own connections enforce the reference.
  Database db;
  Error why;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &why)) << why.message;
  ASSERT_TRUE(db.Exec("PRAGMA foreign_keys = ON", &why)) << why.message;
  EXPECT_FALSE(
      db.Exec("INSERT INTO run_trust (run_id, kind, detail) VALUES (1, 'nonsense', 'x')", &why));
  EXPECT_TRUE(
      db.Exec("INSERT INTO run_trust (run_id, kind, detail) VALUES (1, 'uncore', 'u')", &why))
      << why.message;
}

TEST(Migrate, RunsStoredBeforeUidsGetOneEach) {
  TempDir dir;
  std::string path = dir.File("old.db");
  ASSERT_TRUE(MigrateToJustBefore(path, "_run_uid.sql"));
  RawExec(path,
          "INSERT INTO machines (id, fingerprint, cpu_model, cores, caches, kernel, hostname,"
          " first_seen) VALUES (1, 'fp', 'cpu', 2, '', 'k', 'h', 't');"
          "INSERT INTO runs (id, machine_id, target_kind, target, params, status, sources,"
          " repetitions, calls_per_rep, started_at, ended_at, rprof_version) VALUES"
          " (1, 1, 'builtin', 'triad', '{}', 'ok', 'clock', 1, 1, 't', 't', 'v'),"
          " (2, 1, 'builtin', 'dot', '{}', 'ok', 'clock', 1, 1, 't', 't', 'v')");
  // A reader brings it up to date: history on an older file works, and nothing else is written.
  {
    RunStore store;
    Error err;
    ASSERT_TRUE(store.OpenExisting({path, false}, &err)) << err.message;
  }
  EXPECT_EQ(RawInt(path, "PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(RawInt(path,
                   "SELECT count(DISTINCT uid) FROM runs"
                   " WHERE length(uid) = 32 AND uid NOT GLOB '*[^0-9a-f]*'"),
            2);
  RawExec(path,
          "INSERT INTO runs (id, machine_id, target_kind, target, params, status, sources,"
          " repetitions, calls_per_rep, started_at, ended_at, rprof_version) VALUES"
          " (3, 1, 'builtin', 'copy', '{}', 'ok', 'clock', 1, 1, 't', 't', 'v')");
  EXPECT_EQ(RawInt(path,
                   "SELECT count(DISTINCT uid) FROM runs"
                   " WHERE length(uid) = 32 AND uid NOT GLOB '*[^0-9a-f]*'"),
            3);
}

}  // namespace
}  // namespace rprof
