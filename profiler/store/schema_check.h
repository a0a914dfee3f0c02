// Whether a database still has the schema its version promises. A file can be changed outside
// rprof (a table dropped with sqlite3, a half-restored backup); a run measured into it would
// then be lost at the first insert ("no such table: metrics"), so writers check first.
#ifndef RPROF_STORE_SCHEMA_CHECK_H_
#define RPROF_STORE_SCHEMA_CHECK_H_

#include <string>

#include "core/error.h"
#include "store/database.h"

namespace rprof {

// True when db, migrated to this binary's schema version, has every table, view, index and
// trigger the builtin migrations create, and every column of those tables. The expected schema
// is not a hand-kept list: it is what the same migrations make of an empty database, taken at
// build time (store/schema_snapshot.py), so checking costs one read of the file's own schema.
// Objects of the user's own (an index, a view) are allowed. False with *err naming the first
// missing object (kEnvironment): "table metrics is missing: the file was changed outside rprof;
// ...".
[[nodiscard]] bool CheckSchema(Database* db, Error* err);

// CheckSchema, skipped when the file says (table schema_verified) that this build's expected
// schema was found whole at the schema cookie it has now: nobody changed its schema since, and
// this rprof expects what was checked. `record`: a writer's open, which notes a check that
// passed so that the next open skips it (a reader's open writes nothing). Most opens then read
// one row instead of every table's columns.
[[nodiscard]] bool CheckSchemaUnlessVerified(Database* db, bool record, Error* err);

}  // namespace rprof

#endif  // RPROF_STORE_SCHEMA_CHECK_H_
