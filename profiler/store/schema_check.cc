#include "store/schema_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "store/migrations.h"

namespace rprof {

// Generated at build time by store/schema_snapshot.py from the same schema/*.sql files.
extern const char kExpectedSchema[];

namespace {

struct SchemaObject {
  std::string type;  // table, view, index, trigger
  std::string name;
  std::vector<std::string> columns;  // tables only
};

bool ReadSchema(Database* db, std::vector<SchemaObject>* out, Error* err) {
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

// The schema the builtin migrations make of an empty database, read from the build's snapshot
// once per process. Building it here instead (migrating an in-memory database) cost most of
// every open: two thirds of `rprof history --limit 1` went to SQLite parsing the migrations.
const std::vector<SchemaObject>& ExpectedSchema() {
  static const std::vector<SchemaObject> expected = [] {
    std::vector<SchemaObject> objects;
    std::string_view text = kExpectedSchema;
    while (!text.empty()) {
      size_t end = std::min(text.find('\n'), text.size());
      std::string_view line = text.substr(0, end);
      text.remove_prefix(std::min(end + 1, text.size()));
      size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
      SchemaObject object{std::string(line.substr(0, tab1)),
                          std::string(line.substr(tab1 + 1, tab2 - tab1 - 1)),
                          {}};
      std::string_view columns = line.substr(tab2 + 1);
      while (!columns.empty()) {
        size_t comma = std::min(columns.find(','), columns.size());
        object.columns.emplace_back(columns.substr(0, comma));
        columns.remove_prefix(std::min(comma + 1, columns.size()));
      }
      objects.push_back(std::move(object));
    }
    return objects;
  }();
  return expected;
}

// The expected schema's fingerprint (64-bit FNV-1a, in hex): two builds that expect the same
// schema agree on it, whatever else changed between them.
const std::string& ExpectedFingerprint() {
  static const std::string fingerprint = [] {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char* c = kExpectedSchema; *c != '\0'; ++c)
      hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return std::string(hex);
  }();
  return fingerprint;
}

}  // namespace

bool CheckSchemaUnlessVerified(Database* db, bool record, Error* err) {
  int64_t cookie = -1;
  bool verified = false;
  // One statement, one snapshot: the cookie and the row as they were together.
  if (!db->ForEachRow(
          "SELECT (SELECT schema_version FROM pragma_schema_version),"
          " (SELECT expected = ? AND schema_cookie = (SELECT schema_version FROM"
          " pragma_schema_version) FROM schema_verified WHERE id = 1)",
          err,
          [&](const Statement& s) {
            cookie = s.Int(0);
            verified = s.Int(1) == 1;
          },
          ExpectedFingerprint())) {
    // A file without the table is not current (the migrations add it): the whole check says
    // what is missing.
    return CheckSchema(db, err);
  }
  if (verified) return true;
  if (!CheckSchema(db, err)) return false;
  if (!record) return true;
  // Writing a row moves no schema cookie: the next open finds this one. A file that cannot
  // take it now (read-only, locked) costs the next open its check, nothing else: the writer's
  // own check for writability comes later and says what is wrong.
  (void)db->Run(
      "INSERT INTO schema_verified (id, expected, schema_cookie) VALUES (1, ?, ?)"
      " ON CONFLICT(id) DO UPDATE SET expected = excluded.expected,"
      " schema_cookie = excluded.schema_cookie",
      nullptr, ExpectedFingerprint(), cookie);
  return true;
}

bool CheckSchema(Database* db, Error* err) {
  const std::vector<SchemaObject>& expected = ExpectedSchema();
  std::vector<SchemaObject> actual;
  if (!ReadSchema(db, &actual, err)) return false;
  const std::string changed = ": the file was changed outside rprof (schema version " +
                              std::to_string(CurrentSchemaVersion()) +
                              " has it); restore the file from a backup, or use another database";
  for (const SchemaObject& want : expected) {
    auto have = std::find_if(actual.begin(), actual.end(),
                             [&](const SchemaObject& o) { return o.name == want.name; });
    if (have == actual.end())
      return Fail(err, ErrorKind::kEnvironment,
                  want.type + " " + want.name + " is missing" + changed);
    if (have->type != want.type)
      return Fail(err, ErrorKind::kEnvironment,
                  want.name + " is a " + have->type + ", not a " + want.type + changed);
    for (const std::string& column : want.columns) {
      if (std::find(have->columns.begin(), have->columns.end(), column) == have->columns.end())
        return Fail(err, ErrorKind::kEnvironment,
                    "table " + want.name + " has no column " + column + changed);
    }
  }
  return true;
}

}  // namespace rprof
