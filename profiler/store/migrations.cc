#include "store/migrations.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/embedded_file.h"
#include "store/database_failure.h"
#include "store/network_filesystem.h"

namespace rprof {

extern const EmbeddedFile kSchemaFiles[];
extern const int kSchemaFiles_count;

const std::vector<Migration>& BuiltinMigrations() {
  static const std::vector<Migration> migrations = [] {
    std::vector<Migration> list;
    for (int i = 0; i < kSchemaFiles_count; ++i)
      list.push_back({std::atoi(kSchemaFiles[i].name), kSchemaFiles[i].name, kSchemaFiles[i].text});
    std::sort(list.begin(), list.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    // The build embeds schema/*.sql: a gap or a duplicate is a packaging defect.
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].version != static_cast<int>(i) + 1) {
        std::fprintf(stderr, "rprof: internal error: schema file %s out of sequence\n",
                     list[i].name.c_str());
        std::abort();
      }
    }
    return list;
  }();
  return migrations;
}

int CurrentSchemaVersion() { return static_cast<int>(BuiltinMigrations().size()); }

namespace {

bool ReadUserVersion(Database* db, int* version, Error* err) {
  Statement stmt;
  if (!db->Prepare("PRAGMA user_version", &stmt, err)) return false;
  if (!stmt.Step(err)) return false;
  *version = static_cast<int>(stmt.Int(0));
  return true;
}

// Sets the journal mode to `mode` ("wal" or "delete"), waiting for other connections as a write
// does. SQLite writes the switch as a read transaction upgraded to a write one, for which it
// never calls the busy handler (sqlite3BtreeSetVersion): ranks of one MPI job that open a new
// database together would see "database is locked" at once while another holds the write lock
// for a moment. So the wait is here, up to the same busy timeout.
bool SetJournalMode(Database* db, const std::string& mode, Error* err) {
  std::string current;
  if (!db->ForEachRow("PRAGMA journal_mode", err, [&](const Statement& s) { current = s.Text(0); }))
    return false;
  if (current == mode) return true;  // most opens: nothing to change, no lock to take
  int timeout_ms = 0;
  if (!BusyTimeoutMs(&timeout_ms, err)) return false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (db->Exec("PRAGMA journal_mode = " + mode, err)) return true;
    bool busy = (sqlite3_extended_errcode(db->handle()) & 0xff) == SQLITE_BUSY;
    if (!busy || std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

bool SchemaVersionKnown(int version, int newest, Error* why) {
  if (version < 0)  // rprof writes versions 1 and up: another program set this one.
    return Fail(why, ErrorKind::kEnvironment,
                "schema version " + std::to_string(version) +
                    " is not one rprof writes (another program changed the file); use another "
                    "database");
  if (version > newest)
    return Fail(why, ErrorKind::kEnvironment,
                "schema version " + std::to_string(version) + " is newer than this rprof's " +
                    std::to_string(newest) + "; use a newer rprof, or another database");
  return true;
}

bool Migrate(Database* db, const std::vector<Migration>& migrations, Error* err) {
  int newest = migrations.empty() ? 0 : migrations.back().version;
  // The version and the tables in one statement, so one snapshot: read apart, a process that
  // migrates in between would make a fresh file look like someone else's (tables, version 0).
  int version = 0;
  int64_t tables = 0;
  if (!db->ForEachRow("SELECT (SELECT user_version FROM pragma_user_version),"
                      " (SELECT count(*) FROM sqlite_master WHERE type = 'table')",
                      err, [&](const Statement& s) {
                        version = static_cast<int>(s.Int(0));
                        tables = s.Int(1);
                      }))
    return false;
  if (!SchemaVersionKnown(version, newest, err)) return false;
  // Version 0 with tables is someone else's database: refuse it rather than add ours to it.
  if (version == 0 && tables > 0)
    return Fail(err, ErrorKind::kEnvironment,
                "not an rprof database (it has tables but no rprof schema version); choose "
                "another database");
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    // Another process may have migrated since we looked: re-read inside the write lock.
    Transaction txn(db);
    if (!txn.Begin(err)) return false;
    int current = 0;
    if (!ReadUserVersion(db, &current, err)) return false;
    if (current >= m.version) continue;
    if (!db->Exec(m.sql, err)) {
      if (err) err->message = m.name + ": " + err->message;
      return false;
    }
    if (!db->Exec("PRAGMA user_version = " + std::to_string(m.version), err)) return false;
    if (!txn.Commit(err)) return false;
  }
  // WAL only now that the file is known to be ours and current: a refused file is never
  // touched, and parallel rprof processes then read while one writes. Never on a network
  // filesystem, not even for a moment: WAL's shared memory is one host's, so there the file
  // keeps a rollback journal (store/network_filesystem.h). In-memory databases have no path.
  bool shared_between_hosts = !db->path().empty() && db->path() != ":memory:" &&
                              NetworkFilesystemOf(db->path()).has_value();
  return SetJournalMode(db, shared_between_hosts ? "delete" : "wal", err);
}

}  // namespace rprof
