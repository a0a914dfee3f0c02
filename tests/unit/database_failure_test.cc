// What rprof says when SQLite fails in a way the user can fix: the cause, SQLite's own words,
// and what to do; the busy timeout from RPROF_BUSY_TIMEOUT_MS; and CheckWritable failing, as the
// write itself would, on a lock held past that timeout and on a read-only connection.
#include "store/database_failure.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "scoped_env.h"
#include "store/database.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::ScopedEnv;
using testing_support::TempDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DescribeSqliteFailure, SaysWhyAndWhatToDoKeepingSqlitesWords) {
  ScopedEnv timeout("RPROF_BUSY_TIMEOUT_MS", nullptr);
  std::string full = DescribeSqliteFailure(nullptr, SQLITE_FULL);
  EXPECT_TRUE(Contains(full, "the disk is full")) << full;
  EXPECT_TRUE(Contains(full, "(SQLite: database or disk is full)")) << full;
  EXPECT_TRUE(Contains(full, "; free space on the disk")) << full;

  std::string io = DescribeSqliteFailure(nullptr, SQLITE_IOERR_WRITE);
  EXPECT_TRUE(Contains(io, "most often because it is full")) << io;
  EXPECT_TRUE(Contains(io, "disk I/O error, code 778")) << io;

  std::string busy = DescribeSqliteFailure(nullptr, SQLITE_BUSY);
  EXPECT_TRUE(Contains(busy, "locked by another process (SQLite: database is locked)")) << busy;
  EXPECT_TRUE(Contains(busy, "busy timeout (30 s)")) << busy;
  EXPECT_TRUE(Contains(busy, "RPROF_BUSY_TIMEOUT_MS")) << busy;

  EXPECT_TRUE(Contains(DescribeSqliteFailure(nullptr, SQLITE_READONLY_DIRECTORY),
                       "this user cannot write it"));
  EXPECT_TRUE(Contains(DescribeSqliteFailure(nullptr, SQLITE_CANTOPEN), "cannot be opened"));
  EXPECT_TRUE(Contains(DescribeSqliteFailure(nullptr, SQLITE_CORRUPT), "the file is damaged"));
  // Failures that are rprof's own bugs or the caller's input keep SQLite's message alone.
  EXPECT_EQ(DescribeSqliteFailure(nullptr, SQLITE_CONSTRAINT), "constraint failed");
}

TEST(BusyTimeoutMs, FromTheEnvironmentOrThirtySeconds) {
  int ms = 0;
  Error err;
  {
    ScopedEnv unset("RPROF_BUSY_TIMEOUT_MS", nullptr);
    ASSERT_TRUE(BusyTimeoutMs(&ms, &err));
    EXPECT_EQ(ms, 30000);
  }
  {
    ScopedEnv set("RPROF_BUSY_TIMEOUT_MS", "250");
    ASSERT_TRUE(BusyTimeoutMs(&ms, &err));
    EXPECT_EQ(ms, 250);
    EXPECT_TRUE(Contains(DescribeSqliteFailure(nullptr, SQLITE_BUSY), "(250 ms)"));
  }
  for (const char* bad : {"abc", "-1", "1.5", "10s", "999999999999"}) {
    ScopedEnv set("RPROF_BUSY_TIMEOUT_MS", bad);
    EXPECT_FALSE(BusyTimeoutMs(&ms, &err)) << bad;
    EXPECT_TRUE(Contains(err.message, std::string("RPROF_BUSY_TIMEOUT_MS=") + bad)) << err.message;
    EXPECT_EQ(err.kind, ErrorKind::kEnvironment) << bad;
    Database db;
    EXPECT_FALSE(db.Open(":memory:", Database::Mode::kReadWrite, &err)) << "opened with " << bad;
  }
}

TEST(CheckWritable, FailsWithinTheBusyTimeoutWhileAnotherConnectionWrites) {
  ScopedEnv timeout("RPROF_BUSY_TIMEOUT_MS", "100");
  TempDir dir;
  std::string path = dir.File("runs.db");
  Database db;
  Error err;
  ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
  ASSERT_TRUE(db.Exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x)", &err)) << err.message;
  EXPECT_TRUE(db.CheckWritable(&err)) << err.message;

  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(db.CheckWritable(&err));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(Contains(err.message, "locked by another process")) << err.message;
  EXPECT_GE(waited, 0.09);
  EXPECT_LT(waited, 10);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_TRUE(db.CheckWritable(&err)) << err.message;
  // It wrote nothing, and left no transaction open.
  EXPECT_TRUE(db.Exec("INSERT INTO t VALUES (1)", &err)) << err.message;
}

TEST(CheckWritable, FailsOnAReadOnlyConnection) {
  TempDir dir;
  std::string path = dir.File("runs.db");
  Error err;
  {
    Database db;
    ASSERT_TRUE(db.Open(path, Database::Mode::kReadWrite, &err)) << err.message;
    ASSERT_TRUE(db.Exec("CREATE TABLE t (x)", &err)) << err.message;
  }
  Database reader;
  ASSERT_TRUE(reader.Open(path, Database::Mode::kReadOnly, &err)) << err.message;
  EXPECT_FALSE(reader.CheckWritable(&err));
  EXPECT_TRUE(Contains(err.message, "this user cannot write it")) << err.message;
}

TEST(DatabaseOpen, ReadWriteExistingNeverCreates) {
  TempDir dir;
  Error err;
  Database db;
  EXPECT_FALSE(db.Open(dir.File("absent.db"), Database::Mode::kReadWriteExisting, &err));
  EXPECT_TRUE(Contains(err.message, "cannot be opened")) << err.message;
  EXPECT_FALSE(std::filesystem::exists(dir.File("absent.db")));
}

}  // namespace
}  // namespace rprof
