// A thin RAII layer over SQLite: one connection, prepared statements, transactions. Errors are
// returned as an Error of kind kEnvironment (the database file cannot be used as asked) carrying
// SQLite's own message, explained where the user can do something about it (a full disk, a lock
// held, a read-only file: store/database_failure.h); nothing here prints.
#ifndef RPROF_STORE_DATABASE_H_
#define RPROF_STORE_DATABASE_H_

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/error.h"

namespace rprof {

class Statement;

class Database {
 public:
  // kReadWrite creates the file when it is missing; kReadWriteExisting and kReadOnly never do.
  enum class Mode { kReadWrite, kReadWriteExisting, kReadOnly };

  Database() = default;
  // One owner per connection: a copy would close the handle twice. Nothing moves a Database
  // (RunStore holds it in place), so no move either.
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Opens the file at path (see Mode). Does not migrate: see migrations.h.
  // Connections get a busy timeout (store/database_failure.h) so parallel rprof processes wait
  // for each other instead of failing. Opening writes nothing to the file. Returns false with
  // *err naming the path and SQLite's reason.
  [[nodiscard]] bool Open(const std::string& path, Mode mode, Error* err);

  // Whether a write could start now: takes the write lock (waiting up to the busy timeout for
  // another writer) and gives it back, writing nothing. Fails as the write itself would: a
  // read-only file or directory, a lock held past the busy timeout.
  [[nodiscard]] bool CheckWritable(Error* err);

  // Runs one or more statements without results.
  [[nodiscard]] bool Exec(std::string_view sql, Error* err);
  // Prepares the first statement of sql; false with *err on a syntax error. *rest, when given,
  // gets the text after that statement.
  [[nodiscard]] bool Prepare(std::string_view sql, Statement* out, Error* err,
                             std::string* rest = nullptr);
  // Prepares the first statement of sql and runs it once with `values` (see Statement::Run).
  template <typename... Values>
  [[nodiscard]] bool Run(std::string_view sql, Error* err, const Values&... values);
  // Prepares the first statement of sql, binds `values` as Statement::Run does and calls
  // row(statement) on each result row, in order. False with *err on an error; a query without
  // rows is not one.
  template <typename Row, typename... Values>
  [[nodiscard]] bool ForEachRow(std::string_view sql, Error* err, Row&& row,
                                const Values&... values);
  // Prepares sql once and runs it for each item of `items` with the values bind(item) returns
  // as a std::tuple, in SQL order (each bound as Statement::Run binds it): the rows of one table
  // from a list. Stops at the first failure, false with *err.
  template <typename Items, typename Bind>
  [[nodiscard]] bool RunForEach(std::string_view sql, const Items& items, Error* err, Bind&& bind);

  int64_t LastInsertId() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement. Bind indexes are 1-based, column indexes 0-based, as in SQLite.
class Statement {
 public:
  Statement() = default;
  Statement(Statement&& other) noexcept : stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void Bind(int index, int64_t value);
  void Bind(int index, double value);
  void Bind(int index, std::string_view value);
  // Any integer (a count, a size): stored as SQLite's 64-bit integer, as a cast would.
  template <typename T>
  requires std::is_integral_v<T>
  void Bind(int index, T value) { Bind(index, static_cast<int64_t>(value)); }
  template <typename T>
  void Bind(int index, const std::optional<T>& value) {  // nullopt binds NULL
    if (value)
      Bind(index, *value);
    else
      BindNull(index);
  }
  void BindNull(int index);

  // Advances: true while a row is available. *err is set (and false returned) on an error;
  // false with *err left as it was means done (a caller that must tell the two apart passes an
  // Error whose message is empty and looks at it after).
  [[nodiscard]] bool Step(Error* err);
  // Runs a statement without results to completion.
  [[nodiscard]] bool Run(Error* err);
  // Binds `values` to parameters 1, 2, … in order (each as Bind would), then runs: one row of an
  // INSERT prepared once for many. False with *err, running nothing, when the number of values
  // is not the statement's number of parameters.
  template <typename... Values>
  [[nodiscard]] bool Run(Error* err, const Values&... values) {
    return BindAll(err, values...) && Run(err);
  }
  void Reset();

  int ColumnCount() const;
  int ColumnType(int column) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, …
  sqlite3_stmt* handle() const { return stmt_; }
  std::string ColumnName(int column) const;
  bool IsNull(int column) const;
  int64_t Int(int column) const;
  double Double(int column) const;
  std::string Text(int column) const;
  std::optional<double> OptionalDouble(int column) const;

 private:
  friend class Database;
  template <typename... Values>
  [[nodiscard]] bool BindAll(Error* err, const Values&... values);
  sqlite3_stmt* stmt_ = nullptr;
};

// Values in SQL order, not by index: a miscounted list is refused here rather than leaving a
// parameter NULL or dropping a value.
template <typename... Values>
bool Statement::BindAll(Error* err, const Values&... values) {
  int expected = sqlite3_bind_parameter_count(stmt_);
  if (expected != static_cast<int>(sizeof...(values)))
    return Fail(err, ErrorKind::kEnvironment,
                "statement has " + std::to_string(expected) + " parameters, " +
                    std::to_string(sizeof...(values)) + " values given: " + sqlite3_sql(stmt_));
  int index = 1;
  (Bind(index++, values), ...);
  return true;
}

template <typename... Values>
bool Database::Run(std::string_view sql, Error* err, const Values&... values) {
  Statement statement;
  return Prepare(sql, &statement, err) && statement.Run(err, values...);
}

template <typename Row, typename... Values>
bool Database::ForEachRow(std::string_view sql, Error* err, Row&& row, const Values&... values) {
  Statement statement;
  if (!Prepare(sql, &statement, err) || !statement.BindAll(err, values...)) return false;
  Error step;
  while (statement.Step(&step)) row(static_cast<const Statement&>(statement));
  if (step.message.empty()) return true;
  if (err) *err = std::move(step);
  return false;
}

template <typename Items, typename Bind>
bool Database::RunForEach(std::string_view sql, const Items& items, Error* err, Bind&& bind) {
  Statement statement;
  if (!Prepare(sql, &statement, err)) return false;
  auto run = [&](const auto&... values) { return statement.Run(err, values...); };
  for (const auto& item : items)
    if (!std::apply(run, bind(item))) return false;
  return true;
}

// Text stored as NULL when empty (a note, a cwd that was not recorded).
inline std::optional<std::string_view> NullIfEmpty(std::string_view text) {
  if (text.empty()) return std::nullopt;
  return text;
}

// Begins a transaction (BEGIN IMMEDIATE, so writers queue on the busy timeout rather than fail
// at commit) and rolls it back on destruction unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database* db) : db_(db) {}
  [[nodiscard]] bool Begin(Error* err);
  [[nodiscard]] bool Commit(Error* err);
  ~Transaction();

 private:
  Database* db_;
  bool open_ = false;
};

}  // namespace rprof

#endif  // RPROF_STORE_DATABASE_H_
