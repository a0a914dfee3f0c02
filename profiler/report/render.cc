#include "report/render.h"

#include "report/footnotes.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

bool ShownIn(unsigned shown, unsigned where) { return (shown & where) != 0; }

// The text table of `columns`, those shown in text, fitted to `width`; *shown gets their
// indexes.
TextTable TextTableOf(const std::vector<Column>& columns, size_t width,
                      std::vector<size_t>* shown) {
  std::vector<TextColumn> text;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!ShownIn(columns[c].shown, kInText)) continue;
    shown->push_back(c);
    text.push_back({columns[c].title, columns[c].align == Align::kRight, columns[c].notes,
                    columns[c].optional, columns[c].whole_words});
  }
  TextTable table(std::move(text));
  table.FitTo(width);
  return table;
}

std::vector<std::string> TextCells(const std::vector<Cell>& row, const std::vector<size_t>& shown,
                                   Footnotes* footnotes = nullptr) {
  std::vector<std::string> cells;
  for (size_t c : shown)
    cells.push_back(footnotes ? footnotes->ReferCell(row[c].text()) : row[c].text());
  return cells;
}

// The texts and tables for people, fitted to `width`: a table by TextTable, its text columns
// only; prose wrapped line by line; what several parts say, once, in notes at the end.
std::string RenderText(const Report& report, size_t width) {
  Footnotes footnotes(report.footnotes());
  std::string out;
  for (const Report::Part& part : report.parts()) {
    if (!ShownIn(part.shown, kInText)) continue;
    if (part.kind == Report::Part::Kind::kText) out += WrapProse(footnotes.Refer(part.text), width);
    if (part.kind != Report::Part::Kind::kTable) continue;
    std::vector<size_t> shown;
    TextTable text = TextTableOf(part.table->columns(), width, &shown);
    for (const std::vector<Cell>& row : part.table->rows())
      text.AddRow(TextCells(row, shown, &footnotes));
    out += text.Render();
  }
  return out + footnotes.Block(width);
}

std::string CsvCell(const Cell& cell) {
  switch (cell.kind()) {
    case Cell::Kind::kNull:
      return "";
    case Cell::Kind::kString:
      return CsvField(cell.value());
    case Cell::Kind::kNumber:
    case Cell::Kind::kBool:
      return cell.value();
    case Cell::Kind::kJson:
      break;
  }
  return CsvField(cell.text());  // structure is for JSON; a spreadsheet gets its flat form
}

// One CSV line: field(c) for each column shown in CSV.
template <typename Field>
std::string CsvLine(const std::vector<Column>& columns, Field&& field) {
  std::string out;
  bool first = true;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!ShownIn(columns[c].shown, kInCsv)) continue;
    if (!first) out += ',';
    out += field(c);
    first = false;
  }
  return out + "\n";
}

std::string CsvHeaderLine(const std::vector<Column>& columns) {
  return CsvLine(columns, [&](size_t c) {
    return CsvField(columns[c].csv_header.empty() ? columns[c].key : columns[c].csv_header);
  });
}

std::string CsvRowLine(const std::vector<Column>& columns, const std::vector<Cell>& row) {
  return CsvLine(columns, [&](size_t c) { return CsvCell(row[c]); });
}

// Each CSV table: a header line of keys, then one line a row.
std::string RenderCsv(const Report& report) {
  std::string out;
  for (const Report::Part& part : report.parts()) {
    if (part.kind != Report::Part::Kind::kTable || !ShownIn(part.shown, kInCsv)) continue;
    const std::vector<Column>& columns = part.table->columns();
    out += CsvHeaderLine(columns);
    for (const std::vector<Cell>& row : part.table->rows()) out += CsvRowLine(columns, row);
  }
  return out;
}

void WriteJsonCell(const Cell& cell, JsonWriter* w) {
  switch (cell.kind()) {
    case Cell::Kind::kNull:
      w->Null();
      return;
    case Cell::Kind::kString:
      w->String(cell.value());
      return;
    case Cell::Kind::kNumber:
    case Cell::Kind::kBool:
    case Cell::Kind::kJson:
      w->Raw(cell.value());
      return;
  }
}

// One row as an object of its cells from column `first` on.
void WriteJsonRow(const std::vector<Column>& columns, const std::vector<Cell>& row, size_t first,
                  JsonWriter* w) {
  w->BeginObject();
  for (size_t c = first; c < columns.size(); ++c) {
    if (!ShownIn(columns[c].shown, kInJson)) continue;
    if (columns[c].omit_null_in_json && row[c].kind() == Cell::Kind::kNull) continue;
    w->Key(columns[c].key);
    WriteJsonCell(row[c], w);
  }
  w->EndObject();
}

// An array of row objects, or an object of them keyed by their first cell.
void WriteJsonTable(const Table& table, JsonWriter* w) {
  table.json_keyed() ? w->BeginObject() : w->BeginArray();
  for (const std::vector<Cell>& row : table.rows()) {
    if (table.json_keyed()) w->Key(row[0].value());
    WriteJsonRow(table.columns(), row, table.json_keyed() ? 1 : 0, w);
  }
  table.json_keyed() ? w->EndObject() : w->EndArray();
}

std::string RenderJson(const Report& report) {
  JsonWriter w;
  if (report.json()) {
    report.json()(&w);
    return w.str() + "\n";
  }
  std::vector<const Report::Part*> parts;
  for (const Report::Part& part : report.parts())
    if (part.kind != Report::Part::Kind::kText && ShownIn(part.shown, kInJson))
      parts.push_back(&part);
  if (parts.size() == 1 && parts[0]->key.empty() && parts[0]->table) {
    WriteJsonTable(*parts[0]->table, &w);
    return w.str() + "\n";
  }
  w.BeginObject();
  for (const Report::Part* part : parts) {
    w.Key(part->key);
    if (part->table)
      WriteJsonTable(*part->table, &w);
    else
      WriteJsonCell(part->field, &w);
  }
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace

std::string Render(const Report& report, OutputFormat format, size_t text_width) {
  switch (format) {
    case OutputFormat::kTable:
      return RenderText(report, text_width);
    case OutputFormat::kCsv:
      return RenderCsv(report);
    case OutputFormat::kJson:
      return RenderJson(report);
  }
  return "";
}

TableStream::TableStream(std::vector<Column> columns, OutputFormat format, std::ostream* out,
                         size_t text_width)
    : columns_(std::move(columns)),
      format_(format),
      out_(out),
      text_(TextTableOf(columns_, text_width, &text_shown_)) {
  if (format_ == OutputFormat::kCsv) *out_ << CsvHeaderLine(columns_);
  if (format_ == OutputFormat::kJson) *out_ << "[";
}

void TableStream::AddRow(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  switch (format_) {
    case OutputFormat::kTable:
      text_.AddRow(TextCells(cells, text_shown_));
      if (rows_ >= kTextAlignRows - 1) *out_ << text_.Flush();
      break;
    case OutputFormat::kCsv:
      *out_ << CsvRowLine(columns_, cells);
      break;
    case OutputFormat::kJson: {
      // Row by row, the same text as one writer for the whole array would give.
      JsonWriter w;
      WriteJsonRow(columns_, cells, 0, &w);
      *out_ << (rows_ == 0 ? "" : ",") << w.str();
      break;
    }
  }
  ++rows_;
}

void TableStream::Finish() {
  if (format_ == OutputFormat::kTable) *out_ << text_.Flush();
  if (format_ == OutputFormat::kJson) *out_ << "]\n";
}

}  // namespace rprof
