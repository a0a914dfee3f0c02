// What a failing SQLite call means for the person at the keyboard. SQLite says "disk I/O error"
// or "database is locked"; rprof says why that happens and what to do, keeping SQLite's own
// words in brackets so the message can still be searched for.
#ifndef RPROF_STORE_DATABASE_FAILURE_H_
#define RPROF_STORE_DATABASE_FAILURE_H_

#include <sqlite3.h>

#include <string>

#include "core/error.h"

namespace rprof {

// The busy timeout of every connection, in milliseconds: $RPROF_BUSY_TIMEOUT_MS when it is a
// whole number (tests set it short, to see a held lock fail at once), else 30000. False with
// *err (kEnvironment) when the variable is set to something else.
[[nodiscard]] bool BusyTimeoutMs(int* ms, Error* err);

// The text of the failure `code` (an extended result code) of connection db (may be null): for
// a full disk, an I/O error, a lock held past the busy timeout, a read-only or unopenable file
// and a corrupt one, "<cause> (SQLite: <its message>); <what to do>"; for any other failure
// SQLite's message alone (a syntax error, a constraint: rprof's own bugs or the caller's input).
std::string DescribeSqliteFailure(sqlite3* db, int code);

}  // namespace rprof

#endif  // RPROF_STORE_DATABASE_FAILURE_H_
