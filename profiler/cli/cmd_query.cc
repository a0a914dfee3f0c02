// rprof query: the user's own SQL on a read-only connection. Writes are refused twice over: the
// statement is checked before it runs, and the connection itself cannot write.
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "core/json.h"
#include "report/text_table.h"
#include "store/run_store.h"

namespace rprof {

bool QueryCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  po::options_description options("query options");
  std::string format_text = "table", sql;
  options.add_options()("help,h", "show this help")("format,f", po::value(&format_text),
                                                     "table, csv or json")(
      "sql", po::value(&sql), "one SQL statement");
  po::positional_options_description positional;
  positional.add("sql", 1);
  po::variables_map vm;
  if (!ParseCommandLine("query", args, options, positional, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("query", "\"SQL\" [--format table|csv|json]",
                     "Runs one read-only SQL statement on the database. Tables: machines, runs, "
                     "samples, metrics, tags (see README).",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  if (sql.empty())
    return Fail(err, ErrorKind::kUsage,
                "query: no SQL given, e.g. rprof query \"select count(*) from runs\"");

  RunStore store;
  if (!store.OpenReadOnly(ResolveDatabasePath(global.db), err)) return false;
  Database* db = store.db();
  Statement stmt;
  std::string why, rest;
  if (!db->Prepare(sql, &stmt, &why, &rest)) return Fail(err, ErrorKind::kUsage, "query: " + why);
  if (!stmt.handle()) return Fail(err, ErrorKind::kUsage, "query: the SQL holds no statement");
  if (rest.find_first_not_of(" \t\r\n;") != std::string::npos)
    return Fail(err, ErrorKind::kUsage, "query: give one statement at a time");
  if (!sqlite3_stmt_readonly(stmt.handle()))
    return Fail(err, ErrorKind::kUsage,
                "query: the statement would write to the database; rprof query is "
                "read-only (use sqlite3 on a copy to change data)");

  std::vector<std::string> columns;
  for (int c = 0; c < stmt.ColumnCount(); ++c) columns.push_back(stmt.ColumnName(c));
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::vector<std::vector<int>> types;
  while (stmt.Step(&why)) {
    std::vector<std::optional<std::string>> row;
    std::vector<int> type;
    for (int c = 0; c < stmt.ColumnCount(); ++c) {
      type.push_back(stmt.ColumnType(c));
      if (stmt.IsNull(c))
        row.push_back(std::nullopt);
      else if (type.back() == SQLITE_FLOAT)
        row.push_back(JsonNumber(stmt.Double(c)));  // shortest exact text; null when not finite
      else
        row.push_back(stmt.Text(c));
    }
    rows.push_back(std::move(row));
    types.push_back(std::move(type));
  }
  if (!why.empty()) return Fail(err, ErrorKind::kUsage, "query: " + why);

  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginArray();
    for (size_t r = 0; r < rows.size(); ++r) {
      w.BeginObject();
      for (size_t c = 0; c < columns.size(); ++c) {
        w.Key(columns[c]);
        if (!rows[r][c]) w.Null();
        else if (types[r][c] == SQLITE_INTEGER || types[r][c] == SQLITE_FLOAT)
          w.Raw(*rows[r][c]);
        else
          w.String(*rows[r][c]);
      }
      w.EndObject();
    }
    w.EndArray();
    std::cout << w.str() << "\n";
  } else if (format == OutputFormat::kCsv) {
    for (size_t c = 0; c < columns.size(); ++c) std::cout << (c ? "," : "") << CsvField(columns[c]);
    std::cout << "\n";
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) std::cout << (c ? "," : "") << CsvField(row[c].value_or(""));
      std::cout << "\n";
    }
  } else {
    std::vector<bool> right;
    for (size_t c = 0; c < columns.size(); ++c)
      right.push_back(!types.empty() &&
                      (types[0][c] == SQLITE_INTEGER || types[0][c] == SQLITE_FLOAT));
    TextTable table(columns, right);
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(cell.value_or("NULL"));
      table.AddRow(std::move(cells));
    }
    std::cout << table.Render();
  }
  return true;
}

}  // namespace rprof
