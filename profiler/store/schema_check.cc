#include "store/schema_check.h"

#include <algorithm>
#include <vector>

#include "store/migrations.h"

namespace rprof {

namespace {

struct SchemaObject {
  std::string type;  // table, view, index, trigger
  std::string name;
  std::vector<std::string> columns;  // tables only
};

bool ReadSchema(Database* db, std::vector<SchemaObject>* out, std::string* err) {
  out->clear();
  // SQLite's own objects (sqlite_autoindex_…, sqlite_sequence) follow from the tables.
  if (!db->ForEachRow("SELECT type, name FROM sqlite_master WHERE substr(name, 1, 7) != 'sqlite_'"
                      " ORDER BY rowid",
                      err, [&](const Statement& s) {
                        out->push_back({s.Text(0), s.Text(1), {}});
                      }))
    return false;
  for (SchemaObject& object : *out) {
    if (object.type != "table") continue;
    if (!db->ForEachRow(
            "SELECT name FROM pragma_table_info(?) ORDER BY cid", err,
            [&](const Statement& s) { object.columns.push_back(s.Text(0)); }, object.name))
      return false;
  }
  return true;
}

// The schema the builtin migrations make of an empty database, made once per process.
const std::vector<SchemaObject>* ExpectedSchema(std::string* err) {
  struct Expected {
    bool ok = false;
    std::string failure;
    std::vector<SchemaObject> objects;
  };
  static const Expected expected = [] {
    Expected e;
    Database pristine;
    e.ok = pristine.Open(":memory:", Database::Mode::kReadWrite, &e.failure) &&
           Migrate(&pristine, BuiltinMigrations(), &e.failure) &&
           ReadSchema(&pristine, &e.objects, &e.failure);
    return e;
  }();
  if (expected.ok) return &expected.objects;
  *err = "internal error: the builtin migrations fail on an empty database: " + expected.failure;
  return nullptr;
}

}  // namespace

bool CheckSchema(Database* db, std::string* err) {
  const std::vector<SchemaObject>* expected = ExpectedSchema(err);
  if (!expected) return false;
  std::vector<SchemaObject> actual;
  if (!ReadSchema(db, &actual, err)) return false;
  const std::string changed = ": the file was changed outside rprof (schema version " +
                              std::to_string(CurrentSchemaVersion()) +
                              " has it); restore the file from a backup, or use another database";
  for (const SchemaObject& want : *expected) {
    auto have = std::find_if(actual.begin(), actual.end(),
                             [&](const SchemaObject& o) { return o.name == want.name; });
    if (have == actual.end()) {
      *err = want.type + " " + want.name + " is missing" + changed;
      return false;
    }
    if (have->type != want.type) {
      *err = want.name + " is a " + have->type + ", not a " + want.type + changed;
      return false;
    }
    for (const std::string& column : want.columns) {
      if (std::find(have->columns.begin(), have->columns.end(), column) == have->columns.end()) {
        *err = "table " + want.name + " has no column " + column + changed;
        return false;
      }
    }
  }
  return true;
}

}  // namespace rprof
