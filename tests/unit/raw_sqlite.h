// SQL run through SQLite directly, independent of the code under test, as someone else's tool
// would: for tests that change a database behind rprof's back.
#ifndef RPROF_TESTS_UNIT_RAW_SQLITE_H_
#define RPROF_TESTS_UNIT_RAW_SQLITE_H_

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace rprof::testing_support {

inline void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

}  // namespace rprof::testing_support

#endif  // RPROF_TESTS_UNIT_RAW_SQLITE_H_
