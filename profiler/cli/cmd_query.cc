// rprof query: the user's own SQL on a read-only connection. Writes are refused three times
// over: an authorizer allows reads only (store/query_guard.h), the statement is checked before
// it runs, and the connection itself cannot write. Rows are
// written as they come (report/render.h's TableStream), so a result may be any length.
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "cli/standard_streams.h"
#include "core/json.h"
#include "report/render.h"
#include "store/query_guard.h"
#include "store/run_store.h"

namespace rprof {

bool QueryCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("query", "\"SQL\"",
                 "Runs one read-only SQL statement on the database. Tables: machines, runs, "
                 "samples, metrics, tags, placements, run_trust, run_sim_caches, "
                 "machine_profiles, ceilings, memory_levels, calibrations; views: run_summary "
                 "(one row a run, each metric from its preferred source), metric_trust "
                 "(see README).");
  std::string sql;
  cl.AddPositional("sql", po::value(&sql), "one SQL statement");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (sql.empty())
    return Fail(err, ErrorKind::kUsage,
                "query: no SQL given, e.g. rprof query \"select count(*) from runs\"");

  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  Database* db = store.db();
  QueryGuard guard(db);
  Statement stmt;
  Error why;
  std::string rest;
  constexpr const char* kWrites =
      "query: the statement would write to the database; rprof query is read-only (use sqlite3 "
      "on a copy to change data)";
  if (!db->Prepare(sql, &stmt, &why, &rest)) {
    if (guard.refused_write()) return Fail(err, ErrorKind::kUsage, kWrites);
    if (!guard.refused().empty())
      return Fail(err, ErrorKind::kUsage,
                  "query: " + guard.refused() +
                      " is not allowed: rprof query reads the "
                      "database and nothing else (use sqlite3 on a copy for more)");
    return Fail(err, ErrorKind::kUsage, "query: " + why.message);
  }
  if (!stmt.handle()) return Fail(err, ErrorKind::kUsage, "query: the SQL holds no statement");
  if (rest.find_first_not_of(" \t\r\n;") != std::string::npos)
    return Fail(err, ErrorKind::kUsage, "query: give one statement at a time");
  if (!sqlite3_stmt_readonly(stmt.handle())) return Fail(err, ErrorKind::kUsage, kWrites);

  // Each row is written as it is stepped, never held: millions of rows cost the memory of one
  // (the text table holds its first rows, to align its columns on them). So a statement that
  // fails part-way has printed the rows before its error.
  std::optional<TableStream> out;
  auto open_out = [&](bool on_a_row) {
    std::vector<Column> columns;
    for (int c = 0; c < stmt.ColumnCount(); ++c) {
      // The first row's types choose how the text aligns each column.
      int type = on_a_row ? stmt.ColumnType(c) : SQLITE_NULL;
      bool numeric = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
      columns.emplace_back(stmt.ColumnName(c), stmt.ColumnName(c),
                           numeric ? Align::kRight : Align::kLeft);
    }
    out.emplace(std::move(columns), cl.format(), &std::cout, cl.text_width());
  };
  while (stmt.Step(&why)) {
    if (!out) open_out(true);
    std::vector<Cell> row;
    for (int c = 0; c < stmt.ColumnCount(); ++c) {
      int type = stmt.ColumnType(c);
      if (stmt.IsNull(c)) {
        row.push_back(Cell::Null("NULL"));
      } else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        // Integers exactly as SQLite gives them, doubles in their shortest exact text (null
        // when not finite).
        std::string text = type == SQLITE_FLOAT ? JsonNumber(stmt.Double(c)) : stmt.Text(c);
        row.push_back(Cell::Json(text, text));
      } else {
        row.push_back(Cell::Text(stmt.Text(c)));
      }
    }
    out->AddRow(std::move(row));
    // Stop at the first row that cannot be written, rather than step through the rest.
    if (!StandardOutputIntact(err)) return false;
  }
  if (!why.message.empty()) return Fail(err, ErrorKind::kUsage, "query: " + why.message);
  if (!out) open_out(false);
  out->Finish();
  return true;
}

}  // namespace rprof
