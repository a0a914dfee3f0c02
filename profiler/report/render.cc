#include "report/render.h"

#include "report/text_table.h"

namespace rprof {

namespace {

bool ShownIn(unsigned shown, unsigned where) { return (shown & where) != 0; }

// The texts and tables for people; a table is aligned by TextTable, its text columns only.
std::string RenderText(const Report& report) {
  std::string out;
  for (const Report::Part& part : report.parts()) {
    if (!ShownIn(part.shown, kInText)) continue;
    if (part.kind == Report::Part::Kind::kText) out += part.text;
    if (part.kind != Report::Part::Kind::kTable) continue;
    std::vector<size_t> shown;
    std::vector<std::string> titles;
    std::vector<bool> right;
    const std::vector<Column>& columns = part.table->columns();
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!ShownIn(columns[c].shown, kInText)) continue;
      shown.push_back(c);
      titles.push_back(columns[c].title);
      right.push_back(columns[c].align == Align::kRight);
    }
    TextTable text(std::move(titles), std::move(right));
    for (const std::vector<Cell>& row : part.table->rows()) {
      std::vector<std::string> cells;
      for (size_t c : shown) cells.push_back(row[c].text());
      text.AddRow(std::move(cells));
    }
    out += text.Render();
  }
  return out;
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

// Each CSV table: a header line of keys, then one line a row.
std::string RenderCsv(const Report& report) {
  std::string out;
  for (const Report::Part& part : report.parts()) {
    if (part.kind != Report::Part::Kind::kTable || !ShownIn(part.shown, kInCsv)) continue;
    const std::vector<Column>& columns = part.table->columns();
    auto line = [&](auto&& field) {
      bool first = true;
      for (size_t c = 0; c < columns.size(); ++c) {
        if (!ShownIn(columns[c].shown, kInCsv)) continue;
        if (!first) out += ',';
        out += field(c);
        first = false;
      }
      out += "\n";
    };
    line([&](size_t c) {
      return CsvField(columns[c].csv_header.empty() ? columns[c].key : columns[c].csv_header);
    });
    for (const std::vector<Cell>& row : part.table->rows())
      line([&](size_t c) { return CsvCell(row[c]); });
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

// An array of row objects, or an object of them keyed by their first cell.
void WriteJsonTable(const Table& table, JsonWriter* w) {
  const std::vector<Column>& columns = table.columns();
  table.json_keyed() ? w->BeginObject() : w->BeginArray();
  for (const std::vector<Cell>& row : table.rows()) {
    if (table.json_keyed()) w->Key(row[0].value());
    w->BeginObject();
    for (size_t c = table.json_keyed() ? 1 : 0; c < columns.size(); ++c) {
      if (!ShownIn(columns[c].shown, kInJson)) continue;
      if (columns[c].omit_null_in_json && row[c].kind() == Cell::Kind::kNull) continue;
      w->Key(columns[c].key);
      WriteJsonCell(row[c], w);
    }
    w->EndObject();
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

std::string Render(const Report& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return RenderText(report);
    case OutputFormat::kCsv:
      return RenderCsv(report);
    case OutputFormat::kJson:
      return RenderJson(report);
  }
  return "";
}

}  // namespace rprof
