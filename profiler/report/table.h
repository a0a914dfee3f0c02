// What a command prints, as data: tables of typed cells, with prose around them for people and
// fields for JSON. report/render.h turns a Report into text, CSV or JSON in one place, so that
// commands say what they print and never how each format writes it (google/benchmark's split
// of runs from reporters).
#ifndef RPROF_REPORT_TABLE_H_
#define RPROF_REPORT_TABLE_H_

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace rprof {

enum class Align { kLeft, kRight };

// Where a column, a table or a field is shown. The text for people and the data for scripts
// often differ: the text folds three sources into one column, CSV and JSON keep one column per
// value. A new format shows what the format it resembles shows (a TSV what CSV shows).
enum Shown : unsigned {
  kInText = 1,
  kInCsv = 2,
  kInJson = 4,
  kInData = kInCsv | kInJson,
  kInAll = kInText | kInCsv | kInJson,
};

struct Column {
  Column(std::string json_key, std::string text_title, Align text_align = Align::kLeft,
         unsigned where = kInAll);
  // Where CSV has always named the column otherwise than JSON does; kept for scripts.
  Column& CsvHeader(std::string header);
  // A row whose cell is absent has no such key, rather than null.
  Column& OmitNullInJson();
  // Prose (a note, a description, a reason): in the text for people it gives up its width
  // first, and goes beneath its row where it is too long beside it (report/text_table.h).
  Column& Notes();
  // In the text for people, left out (a line says so) when the table cannot fit the terminal
  // with it: for a column people can do without on a narrow one.
  Column& Optional();
  // In the text for people, its words never broken while the optional columns can make room:
  // for names a user types back (report/text_table.h's whole_words).
  Column& WholeWords();

  std::string key;    // the JSON key and CSV header: stable, scripts depend on it (README)
  std::string title;  // the text table's header
  Align align;
  unsigned shown;
  std::string csv_header;  // "" = key
  bool omit_null_in_json = false;
  bool notes = false;
  bool optional = false;
  bool whole_words = false;
};

// One value: absent, a string, or a number, bool or structure already in JSON form, each with
// the text people read. Absent is "-" in the text (unless told otherwise), empty in CSV and
// null in JSON: never 0.
class Cell {
 public:
  enum class Kind { kNull, kString, kNumber, kBool, kJson };

  Cell() = default;  // absent
  // Absent, shown as `text` ("NULL" for SQL, "" where a dash would be noise).
  static Cell Null(std::string text);
  static Cell Text(std::string_view value);
  // `value` for CSV and JSON, `text` for people: a status with its exit code, a time stamp cut
  // to the second.
  static Cell Text(std::string_view value, std::string_view text);
  // Absent when empty, shown as "".
  static Cell TextOrNull(std::string_view value);
  // Full precision for CSV and JSON; FormatValue's 4 digits, or `text`, for people.
  static Cell Number(std::optional<double> value);
  static Cell Number(std::optional<double> value, std::string text);
  static Cell Int(long long value);
  static Cell Bool(bool value, std::string text = "");
  // `json` as is in JSON (an object, an array, an exact integer SQLite gave as text); `flat` in
  // CSV and the text.
  static Cell Json(std::string json, std::string flat);
  // A JSON array of strings; the items joined by spaces in CSV and the text.
  static Cell List(const std::vector<std::string>& items);

  Kind kind() const { return kind_; }
  // kString: the string; kNumber, kBool, kJson: its JSON text; kNull: "".
  const std::string& value() const { return value_; }
  const std::string& text() const { return text_; }

 private:
  Cell(Kind kind, std::string value, std::string text);

  Kind kind_ = Kind::kNull;
  std::string value_;
  std::string text_ = "-";
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // Cells in column order; cells left out at the end are absent.
  void AddRow(std::vector<Cell> cells);
  // In JSON an object holding each row under its first cell's value, instead of an array.
  void KeyJsonByFirstColumn() { json_keyed_ = true; }

  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  bool json_keyed() const { return json_keyed_; }
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
  bool json_keyed_ = false;
};

// All one command prints, as parts in order. The text format shows its texts and tables; CSV
// its tables (one, as a rule); JSON its tables and fields: a lone table without a key is the
// whole document, else the document is an object of the parts under their keys.
class Report {
 public:
  struct Part {
    enum class Kind { kText, kTable, kField } kind = Kind::kText;
    unsigned shown = kInText;
    std::string key;  // kTable, kField: the JSON key
    std::string text;
    std::optional<Table> table;
    Cell field;
  };

  // Prose for people (a title, a verdict, a hint), only in the text format, as is: it ends in
  // "\n" where it wants a line.
  void AddText(std::string text);
  // A table, shown where `shown` says, under `json_key` in a JSON object. The reference stays
  // valid while further parts are added.
  Table& AddTable(std::vector<Column> columns, unsigned shown = kInAll, std::string json_key = "");
  // A key of the JSON object alone (a run id, a verdict).
  void AddField(std::string key, Cell value);
  // Text that several of the parts say (a remedy, a cache geometry): the text for people says
  // it once, in a numbered "notes:" block at the end, and "see note N" wherever it stood
  // (report/footnotes.h). CSV and JSON keep every value whole.
  void AddFootnote(std::string text) { footnotes_.push_back(std::move(text)); }
  // For a document a flat table cannot express (a run's metrics by name and source, a machine
  // profile): JSON is then `write`'s document and nothing of the parts.
  void SetJson(std::function<void(JsonWriter*)> write) { json_ = std::move(write); }

  const std::deque<Part>& parts() const { return parts_; }
  const std::function<void(JsonWriter*)>& json() const { return json_; }
  const std::vector<std::string>& footnotes() const { return footnotes_; }

 private:
  std::deque<Part> parts_;  // a deque: AddTable's reference survives later parts
  std::vector<std::string> footnotes_;
  std::function<void(JsonWriter*)> json_;
};

}  // namespace rprof

#endif  // RPROF_REPORT_TABLE_H_
