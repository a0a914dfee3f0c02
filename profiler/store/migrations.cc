#include "store/migrations.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/embedded_file.h"
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

bool ReadUserVersion(Database* db, int* version, std::string* err) {
  Statement stmt;
  if (!db->Prepare("PRAGMA user_version", &stmt, err)) return false;
  if (!stmt.Step(err)) return false;
  *version = static_cast<int>(stmt.Int(0));
  return true;
}

}  // namespace

bool Migrate(Database* db, const std::vector<Migration>& migrations, std::string* err) {
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
  if (version > newest) {
    *err = "schema version " + std::to_string(version) + " is newer than this rprof's " +
           std::to_string(newest) + "; use a newer rprof, or another database";
    return false;
  }
  if (version == 0) {
    // Version 0 with tables is someone else's database: refuse it rather than add ours to it.
    if (tables > 0) {
      *err =
          "not an rprof database (it has tables but no rprof schema version); choose "
          "another database";
      return false;
    }
  }
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    // Another process may have migrated since we looked: re-read inside the write lock.
    Transaction txn(db);
    if (!txn.Begin(err)) return false;
    int current = 0;
    if (!ReadUserVersion(db, &current, err)) return false;
    if (current >= m.version) continue;
    if (!db->Exec(m.sql, err)) {
      *err = m.name + ": " + *err;
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
  return db->Exec(shared_between_hosts ? "PRAGMA journal_mode = DELETE"
                                       : "PRAGMA journal_mode = WAL",
                  err);
}

}  // namespace rprof
