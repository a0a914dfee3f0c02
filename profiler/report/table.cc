#include "report/table.h"

#include <utility>

#include "core/text.h"
#include "report/text_table.h"

namespace rprof {

Cell::Cell(Kind kind, std::string value, std::string text)
    : kind_(kind), value_(std::move(value)), text_(std::move(text)) {}

Cell Cell::Null(std::string text) { return Cell(Kind::kNull, "", std::move(text)); }

Cell Cell::Text(std::string_view value) {
  return Cell(Kind::kString, std::string(value), std::string(value));
}

Cell Cell::Text(std::string_view value, std::string_view text) {
  return Cell(Kind::kString, std::string(value), std::string(text));
}

Cell Cell::TextOrNull(std::string_view value) { return value.empty() ? Null("") : Text(value); }

Cell Cell::Number(std::optional<double> value) { return Number(value, FormatValue(value)); }

Cell Cell::Number(std::optional<double> value, std::string text) {
  if (!value) return Null(std::move(text));
  return Cell(Kind::kNumber, JsonNumber(*value), std::move(text));
}

Cell Cell::Int(long long value) {
  std::string text = std::to_string(value);
  return Cell(Kind::kNumber, text, text);
}

Cell Cell::Bool(bool value, std::string text) {
  return Cell(Kind::kBool, value ? "true" : "false", std::move(text));
}

Cell Cell::Json(std::string json, std::string flat) {
  return Cell(Kind::kJson, std::move(json), std::move(flat));
}

Cell Cell::List(const std::vector<std::string>& items) {
  return Json(StringsToJsonArray(items), Join(items, " "));
}

Column::Column(std::string json_key, std::string text_title, Align text_align, unsigned where)
    : key(std::move(json_key)), title(std::move(text_title)), align(text_align), shown(where) {}

Column& Column::CsvHeader(std::string header) {
  csv_header = std::move(header);
  return *this;
}

Column& Column::OmitNullInJson() {
  omit_null_in_json = true;
  return *this;
}

Column& Column::Notes() {
  notes = true;
  return *this;
}

Column& Column::Optional() {
  optional = true;
  return *this;
}

Column& Column::WholeWords() {
  whole_words = true;
  return *this;
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::AddRow(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Report::AddText(std::string text) {
  Part part;
  part.text = std::move(text);
  parts_.push_back(std::move(part));
}

Table& Report::AddTable(std::vector<Column> columns, unsigned shown, std::string json_key) {
  Part part;
  part.kind = Part::Kind::kTable;
  part.shown = shown;
  part.key = std::move(json_key);
  part.table.emplace(std::move(columns));
  parts_.push_back(std::move(part));
  return *parts_.back().table;
}

void Report::AddField(std::string key, Cell value) {
  Part part;
  part.kind = Part::Kind::kField;
  part.shown = kInJson;
  part.key = std::move(key);
  part.field = std::move(value);
  parts_.push_back(std::move(part));
}

}  // namespace rprof
