// What a user's own SQL (rprof query) may do on the store's connection: read. The connection
// is read-only already (PRAGMA query_only) and the statement is checked with
// sqlite3_stmt_readonly; this is the third wall, an authorizer, for what those two let
// through: functions that reach outside the database (load_extension, fts3_tokenizer, which
// reads and writes memory by address), ATTACH (which creates a file), and PRAGMAs that set
// rather than read.
#ifndef RPROF_STORE_QUERY_GUARD_H_
#define RPROF_STORE_QUERY_GUARD_H_

#include <string>

#include "store/database.h"

namespace rprof {

class QueryGuard {
 public:
  // Installs the authorizer on `db` for as long as this guard lives; `db` must outlive it.
  explicit QueryGuard(Database* db);
  ~QueryGuard();
  QueryGuard(const QueryGuard&) = delete;
  QueryGuard& operator=(const QueryGuard&) = delete;

  // What the last refused statement tried ("the function load_extension", "ATTACH",
  // "PRAGMA journal_mode = delete"); "" when none was refused, or when it would write.
  const std::string& refused() const { return refused_; }
  // The last refused statement would change the database (INSERT, DROP, VACUUM, ...).
  bool refused_write() const { return refused_write_; }

 private:
  static int Authorize(void* self, int action, const char* a, const char* b, const char* db,
                       const char* trigger);
  Database* db_;
  std::string refused_;
  bool refused_write_ = false;
};

}  // namespace rprof

#endif  // RPROF_STORE_QUERY_GUARD_H_
