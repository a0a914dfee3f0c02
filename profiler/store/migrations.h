// Schema migrations: schema/NNN_name.sql files, compiled in, applied in order under
// PRAGMA user_version. A database newer than this binary is refused, never rebuilt.
#ifndef RPROF_STORE_MIGRATIONS_H_
#define RPROF_STORE_MIGRATIONS_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "store/database.h"

namespace rprof {

struct Migration {
  int version;       // NNN of the file name
  std::string name;  // the file name
  std::string sql;
};

// The migrations compiled into this binary, by version; versions are 1, 2, … without gaps.
const std::vector<Migration>& BuiltinMigrations();

// The schema version this binary writes (the highest migration).
int CurrentSchemaVersion();

// Whether a file's user_version is one an rprof wrote, at most `newest`: false with *why
// (kEnvironment: "schema version 30 is newer than this rprof's 22; use a newer rprof", "schema
// version -1 is not one rprof writes ...") otherwise. Readers and the migration runner ask the
// same question here.
[[nodiscard]] bool SchemaVersionKnown(int version, int newest, Error* why);

// Brings db up to the newest of `migrations`, each in its own transaction. Refuses (false,
// *err naming both versions, kEnvironment as every failure here) a database whose user_version
// is newer, and writes nothing then.
[[nodiscard]] bool Migrate(Database* db, const std::vector<Migration>& migrations, Error* err);

}  // namespace rprof

#endif  // RPROF_STORE_MIGRATIONS_H_
