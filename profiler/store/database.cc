#include "store/database.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <utility>

#include "store/database_failure.h"

namespace rprof {

namespace {

// Whether `path` is on a file system mounted read-only (a CD, a read-only bind mount, a
// snapshot): nothing there can be created, not even the -shm file a WAL database's readers need.
bool OnReadOnlyMedia(const std::string& path) {
  struct statvfs fs;
  return statvfs(path.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
}

// `path` as an SQLite URI ("file:…"), the characters URIs reserve escaped.
std::string FileUri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20) {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?" + query;
}

}  // namespace

bool Database::Open(const std::string& path, Mode mode, Error* err) {
  path_ = path;
  // A FIFO, a device (/dev/null, /dev/zero) or a folder: SQLite's "disk I/O error" on it read
  // as a full disk. Said as what it is, before SQLite opens it (a FIFO would block there).
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return Fail(err, ErrorKind::kEnvironment,
                std::string("not a database file: it is ") +
                    (S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file") +
                    "; name a file");
  int busy_timeout_ms = 0;
  if (!BusyTimeoutMs(&busy_timeout_ms, err)) return false;
  int flags = mode == Mode::kReadOnly            ? SQLITE_OPEN_READONLY
              : mode == Mode::kReadWriteExisting ? SQLITE_OPEN_READWRITE
                                                 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  std::string name = path;
  if (mode == Mode::kReadWrite && OnReadOnlyMedia(path))
    return Fail(err, ErrorKind::kEnvironment,
                "it is on a read-only file system: nothing can be stored there (`history`, `show` "
                "and `report` can read it)");
  if (mode != Mode::kReadWrite && OnReadOnlyMedia(path)) {
    // A reader on read-only media: SQLite cannot create the -shm file a WAL database's readers
    // share, and said "unable to open database file" (blaming permissions or free space).
    // Nothing can change the file there: it is opened immutable, without locks or -shm. A
    // write-ahead log left beside it would hold runs immutable reading skips: refused, said.
    struct stat wal;
    if (stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0)
      return Fail(err, ErrorKind::kEnvironment,
                  "it is on a read-only file system with a write-ahead log beside it (" + path +
                      "-wal) that only a writable copy can take in; copy both files to a "
                      "writable folder and read the copy");
    name = FileUri(path, "immutable=1");
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                           nullptr);
  if (rc != SQLITE_OK) {
    Fail(err, ErrorKind::kEnvironment, db_ ? DescribeSqliteFailure(db_, rc) : "out of memory");
    sqlite3_close(db_);
    db_ = nullptr;
    return false;
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 1);
  // Touch the file header now: a file that is not a database fails here, before any write.
  if (!Exec("SELECT count(*) FROM sqlite_master", err)) return false;
  if (mode == Mode::kReadOnly) return Exec("PRAGMA query_only = ON", err);
  // Connection settings only: nothing here writes to the file (WAL is switched on by the
  // migration runner, once it knows the file is ours and not newer than this binary).
  return Exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", err);
}

bool Database::CheckWritable(Error* err) {
  // SQLite opens a file this user may not write read-only without a word, and in WAL mode
  // BEGIN IMMEDIATE still succeeds on it: only the first write would fail.
  if (sqlite3_db_readonly(db_, "main") == 1)
    return Fail(err, ErrorKind::kEnvironment,
                "this user cannot write it (the file is read-only, or was opened read-only); "
                "make it writable, or use another database");
  return Exec("BEGIN IMMEDIATE", err) && Exec("ROLLBACK", err);
}

Database::~Database() { sqlite3_close_v2(db_); }

bool Database::Exec(std::string_view sql, Error* err) {
  char* message = nullptr;
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    Fail(err, ErrorKind::kEnvironment, DescribeSqliteFailure(db_, rc));
    sqlite3_free(message);
    return false;
  }
  return true;
}

bool Database::Prepare(std::string_view sql, Statement* out, Error* err, std::string* rest) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (rc != SQLITE_OK) return Fail(err, ErrorKind::kEnvironment, DescribeSqliteFailure(db_, rc));
  if (rest) *rest = tail ? std::string(tail, sql.data() + sql.size() - tail) : "";
  *out = Statement();
  out->stmt_ = stmt;
  return true;
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::Bind(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::Bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}
void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

bool Statement::Step(Error* err) {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE)
    Fail(err, ErrorKind::kEnvironment, DescribeSqliteFailure(sqlite3_db_handle(stmt_), rc));
  return false;
}

bool Statement::Run(Error* err) {
  Error step;
  while (Step(&step)) {
  }
  bool ok = step.message.empty();
  if (!ok && err) *err = std::move(step);
  Reset();
  return ok;
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }
int Statement::ColumnType(int column) const { return sqlite3_column_type(stmt_, column); }
std::string Statement::ColumnName(int column) const { return sqlite3_column_name(stmt_, column); }
bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::Double(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}
std::optional<double> Statement::OptionalDouble(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Double(column);
}

bool Transaction::Begin(Error* err) {
  open_ = db_->Exec("BEGIN IMMEDIATE", err);
  return open_;
}

bool Transaction::Commit(Error* err) {
  if (!db_->Exec("COMMIT", err)) return false;
  open_ = false;
  return true;
}

Transaction::~Transaction() {
  if (open_) {
    (void)db_->Exec("ROLLBACK", nullptr);  // a destructor has no one to tell
  }
}

}  // namespace rprof
