#include "store/database_failure.h"

#include <cstdlib>

namespace rprof {

namespace {

// Long enough for four rprof processes storing runs at once on a slow disk: a run's transaction
// takes milliseconds, so waiting is always better than losing the run.
constexpr int kDefaultBusyTimeoutMs = 30000;

std::string Seconds(int ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

}  // namespace

bool BusyTimeoutMs(int* ms, Error* err) {
  *ms = kDefaultBusyTimeoutMs;
  const char* text = std::getenv("RPROF_BUSY_TIMEOUT_MS");
  if (!text || !*text) return true;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 24L * 3600 * 1000)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("RPROF_BUSY_TIMEOUT_MS=") + text +
                    ": expected milliseconds, a whole number from 0 to 86400000; unset it for the "
                    "default of " +
                    std::to_string(kDefaultBusyTimeoutMs));
  *ms = static_cast<int>(value);
  return true;
}

std::string DescribeSqliteFailure(sqlite3* db, int code) {
  std::string sqlite_says = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  std::string file = db && sqlite3_db_filename(db, "main") ? sqlite3_db_filename(db, "main") : "";
  if (file.empty()) file = "FILE";
  int timeout_ms = 0;
  (void)BusyTimeoutMs(&timeout_ms, nullptr);  // a bad value leaves the default, said at open
  switch (code & 0xff) {  // the primary code; the extended one is named where it helps
    case SQLITE_FULL:
      return "the disk is full, or a file size limit was reached (SQLite: " + sqlite_says +
             "); free space on the disk that holds it, or use another database";
    case SQLITE_IOERR:
      return "the disk could not be written or read, most often because it is full (SQLite: " +
             sqlite_says + ", code " + std::to_string(code) +
             "); check its free space (df) and the system log (dmesg), or use another database";
    case SQLITE_BUSY:
      return "locked by another process (SQLite: " + sqlite_says +
             "): it has held the write lock longer than the busy timeout (" + Seconds(timeout_ms) +
             "); let that process finish (`fuser " + file +
             "` names it) and run again, or wait longer with RPROF_BUSY_TIMEOUT_MS";
    case SQLITE_READONLY:
      return "this user cannot write it (SQLite: " + sqlite_says +
             "): the file, its -wal or -shm file, or its directory is read-only; make them "
             "writable, or use another database";
    case SQLITE_CANTOPEN:
      return "it cannot be opened (SQLite: " + sqlite_says +
             "): the file, its directory, or its -wal and -shm files cannot be read or created; "
             "check their permissions and the free space, or use another database";
    case SQLITE_CORRUPT:
      return "the file is damaged (SQLite: " + sqlite_says +
             "); restore it from a backup (`sqlite3 " + file +
             " .recover` saves what is left), or use another database";
    default:
      return sqlite_says;
  }
}

}  // namespace rprof
