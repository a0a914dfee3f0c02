// The schema check writers run before measuring: a database as the migrations made it passes,
// with objects of the user's own added too; one with a table, column, view, index or trigger
// gone, or a table replaced by a view, is refused with the object named.
#include "store/schema_check.h"

#include <gtest/gtest.h>

#include <string>

#include "store/migrations.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::TempDir;

class SchemaCheckTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    Error err;
    ASSERT_TRUE(db_.Open(dir_.File("runs.db"), Database::Mode::kReadWrite, &err)) << err.message;
    ASSERT_TRUE(Migrate(&db_, BuiltinMigrations(), &err)) << err.message;
  }
  // The check's message after sql changed the file ("" when it passes).
  std::string AfterChange(const std::string& sql) {
    Error err;
    EXPECT_TRUE(db_.Exec(sql, &err)) << err.message;
    err = Error();
    if (CheckSchema(&db_, &err)) return "";
    return err.message;
  }

  TempDir dir_;
  Database db_;
};

TEST_F(SchemaCheckTest, AsMigratedItPasses) { EXPECT_EQ(AfterChange("SELECT 1"), ""); }

TEST_F(SchemaCheckTest, ObjectsOfTheUsersOwnAreAllowed) {
  EXPECT_EQ(AfterChange("CREATE INDEX my_index ON metrics(name);"
                        "CREATE VIEW my_view AS SELECT * FROM runs;"
                        "CREATE TABLE my_notes (run_id INTEGER, text TEXT);"
                        "ALTER TABLE runs ADD COLUMN my_column TEXT"),
            "");
}

TEST_F(SchemaCheckTest, AMissingTableIsNamedWithWhatToDo) {
  EXPECT_EQ(AfterChange("DROP TABLE metrics"),
            "table metrics is missing: the file was changed outside rprof (schema version " +
                std::to_string(CurrentSchemaVersion()) +
                " has it); restore the file from a backup, or use another database");
}

TEST_F(SchemaCheckTest, AMissingColumnIsNamed) {
  std::string err = AfterChange("ALTER TABLE runs DROP COLUMN note");
  EXPECT_EQ(err.rfind("table runs has no column note: the file was changed outside rprof", 0), 0u)
      << err;
}

TEST_F(SchemaCheckTest, AMissingViewIsNamed) {
  EXPECT_EQ(AfterChange("DROP VIEW run_summary").rfind("view run_summary is missing", 0), 0u);
}

TEST_F(SchemaCheckTest, AMissingIndexIsNamed) {
  // runs_uid keeps uids unique: without it an import could store a run twice.
  EXPECT_EQ(AfterChange("DROP INDEX runs_uid").rfind("index runs_uid is missing", 0), 0u);
}

TEST_F(SchemaCheckTest, AMissingTriggerIsNamed) {
  EXPECT_EQ(
      AfterChange("DROP TRIGGER runs_uid_given").rfind("trigger runs_uid_given is missing", 0), 0u);
}

TEST_F(SchemaCheckTest, ATableReplacedByAViewIsNamed) {
  std::string err = AfterChange("DROP TABLE tags; CREATE VIEW tags AS SELECT 1 AS run_id");
  EXPECT_EQ(err.rfind("tags is a view, not a table", 0), 0u) << err;
}

// Whether the check read the file's schema: a table it expects is hidden behind a changed name
// without moving the schema cookie (writable_schema), which only a real check notices.
std::string CheckedWithTableSecretlyRenamed(Database* db, bool record_first) {
  Error err;
  if (record_first) {
    EXPECT_TRUE(CheckSchemaUnlessVerified(db, /*record=*/true, &err)) << err.message;
  }
  int64_t cookie_before = 0, cookie_after = 0;
  auto cookie = [&](int64_t* out) {
    EXPECT_TRUE(db->ForEachRow("PRAGMA schema_version", &err, [&](const Statement& s) {
      *out = s.Int(0);
    })) << err.message;
  };
  cookie(&cookie_before);
  EXPECT_TRUE(
      db->Exec("PRAGMA writable_schema = ON; UPDATE sqlite_master SET name = 'tags_gone'"
               " WHERE name = 'tags'; PRAGMA writable_schema = OFF",
               &err))
      << err.message;
  cookie(&cookie_after);
  EXPECT_EQ(cookie_before, cookie_after) << "writable_schema moved the cookie";
  err = Error();
  return CheckSchemaUnlessVerified(db, /*record=*/false, &err) ? "" : err.message;
}

TEST_F(SchemaCheckTest, AVerifiedSchemaIsNotReadAgainWhileItsCookieStands) {
  // Recorded by a writer: the next open trusts the record and does not read the tables.
  EXPECT_EQ(CheckedWithTableSecretlyRenamed(&db_, /*record_first=*/true), "");
}

TEST_F(SchemaCheckTest, WithoutARecordTheSchemaIsRead) {
  EXPECT_EQ(CheckedWithTableSecretlyRenamed(&db_, /*record_first=*/false)
                .rfind("table tags is missing", 0),
            0u);
}

TEST_F(SchemaCheckTest, AChangedSchemaIsReadAgainAfterARecord) {
  Error err;
  ASSERT_TRUE(CheckSchemaUnlessVerified(&db_, /*record=*/true, &err)) << err.message;
  ASSERT_TRUE(db_.Exec("DROP VIEW run_summary", &err)) << err.message;  // moves the cookie
  EXPECT_FALSE(CheckSchemaUnlessVerified(&db_, /*record=*/true, &err));
  EXPECT_EQ(err.message.rfind("view run_summary is missing", 0), 0u) << err.message;
}

TEST_F(SchemaCheckTest, AReaderDoesNotRecordItsCheck) {
  Error err;
  ASSERT_TRUE(CheckSchemaUnlessVerified(&db_, /*record=*/false, &err)) << err.message;
  int64_t rows = -1;
  ASSERT_TRUE(db_.ForEachRow("SELECT count(*) FROM schema_verified", &err, [&](const Statement& s) {
    rows = s.Int(0);
  })) << err.message;
  EXPECT_EQ(rows, 0);
}

}  // namespace
}  // namespace rprof
