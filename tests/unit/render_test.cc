// The one renderer: a report of tables, prose and fields as text, CSV and JSON. Absent values
// are "-" for people, empty in CSV and null in JSON; each column and part appears only where
// it is shown; the JSON document is a bare array or an object as the parts say.
#include "report/render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "report/output_format.h"
#include "report/table.h"
#include "report/text_table.h"

namespace rprof {
namespace {

// Two runs, one without a value: the columns most reports have.
Report Runs() {
  Report report;
  Table& table = report.AddTable({{"run_id", "run", Align::kRight},
                                  {"target", "target"},
                                  {"gflops", "GFLOP/s", Align::kRight}});
  table.AddRow({Cell::Int(1), Cell::Text("triad"), Cell::Number(25.0312)});
  table.AddRow({Cell::Int(12), Cell::Text("a, \"b\""), Cell::Number(std::nullopt)});
  return report;
}

TEST(Render, TextAlignsColumnsAndShowsAbsentAsDash) {
  EXPECT_EQ(Render(Runs(), OutputFormat::kTable),
            "run  target  GFLOP/s\n"
            "  1  triad     25.03\n"
            " 12  a, \"b\"        -\n");
}

TEST(Render, TextEscapesControlCharactersThatDataFormatsKeep) {
  Report report;
  Table& table = report.AddTable({{"tag", "tag\x1b[2J"}, {"n", "n", Align::kRight}});
  table.AddRow({Cell::Text("\x1b[31mred\x1b[0m"), Cell::Int(1)});
  table.AddRow({Cell::Text("two\nlines\tand\rreturn"), Cell::Int(2)});
  // Each line of the text is one row, aligned on what the terminal shows.
  EXPECT_EQ(Render(report, OutputFormat::kTable),
            "tag\\x1b[2J               n\n"
            "\\x1b[31mred\\x1b[0m       1\n"
            "two\\nlines\\tand\\rreturn  2\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson),
            "[{\"tag\":\"\\u001b[31mred\\u001b[0m\",\"n\":1},"
            "{\"tag\":\"two\\nlines\\tand\\rreturn\",\"n\":2}]\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv),
            "tag,n\n\x1b[31mred\x1b[0m,1\n\"two\nlines\tand\rreturn\",2\n");
}

TEST(EscapeForTerminal, ControlCharactersAndBytesThatAreNotUtf8) {
  EXPECT_EQ(EscapeForTerminal("plain µs, C:\\dir"), "plain µs, C:\\dir");  // backslash kept
  EXPECT_EQ(EscapeForTerminal("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(EscapeForTerminal("\x1b[31m"), "\\x1b[31m");
  EXPECT_EQ(EscapeForTerminal(std::string("\0\x07\x7f", 3)), "\\x00\\x07\\x7f");
  EXPECT_EQ(EscapeForTerminal(std::string("\xc2\x9b") + "2J"), "\\u009b2J");  // C1 CSI, UTF-8
  EXPECT_EQ(EscapeForTerminal("caf\xe9 \xff\xfe"), "caf\\xe9 \\xff\\xfe");
  EXPECT_EQ(EscapeForTerminal("\xe2\x82"), "\\xe2\\x82");  // cut short: its bytes
  EXPECT_EQ(EscapeForTerminal(""), "");
}

TEST(Render, CsvHasKeysFullPrecisionQuotingAndEmptyAbsentValues) {
  EXPECT_EQ(Render(Runs(), OutputFormat::kCsv),
            "run_id,target,gflops\n"
            "1,triad,25.0312\n"
            "12,\"a, \"\"b\"\"\",\n");
}

TEST(Render, JsonOfALoneTableIsAnArrayWithNulls) {
  EXPECT_EQ(Render(Runs(), OutputFormat::kJson),
            "[{\"run_id\":1,\"target\":\"triad\",\"gflops\":25.0312},"
            "{\"run_id\":12,\"target\":\"a, \\\"b\\\"\",\"gflops\":null}]\n");
}

TEST(Render, ColumnsAppearOnlyWhereShown) {
  Report report;
  Table& table = report.AddTable({{"status", "status"},
                                  {"status_text", "outcome", Align::kLeft, kInText},
                                  {"exit_code", "exit", Align::kRight, kInData}});
  table.AddRow({Cell::Text("failed", "failed (exit 1)"), Cell::Text("x"), Cell::Int(1)});
  EXPECT_EQ(Render(report, OutputFormat::kTable),
            "status           outcome\n"
            "failed (exit 1)  x\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "status,exit_code\nfailed,1\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson), "[{\"status\":\"failed\",\"exit_code\":1}]\n");
}

TEST(Render, CsvHeaderMayDifferFromTheJsonKey) {
  Report report;
  report.AddTable({Column("name", "metric").CsvHeader("metric")}).AddRow({Cell::Text("flops")});
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "metric\nflops\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson), "[{\"name\":\"flops\"}]\n");
}

TEST(Render, ProseIsForPeopleAndFieldsForJson) {
  Report report;
  report.AddText("A: run 1\n");
  report.AddField("a", Cell::Int(1));
  report.AddTable({{"metric", "metric"}}, kInAll, "metrics").AddRow({Cell::Text("flops")});
  report.AddField("skipped", Cell::List({"l3", "dram"}));
  report.AddText("done\n");
  EXPECT_EQ(Render(report, OutputFormat::kTable), "A: run 1\nmetric\nflops\ndone\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "metric\nflops\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson),
            "{\"a\":1,\"metrics\":[{\"metric\":\"flops\"}],\"skipped\":[\"l3\",\"dram\"]}\n");
}

TEST(Render, TablesCanBeForOneFormatAlone) {
  Report report;
  report.AddTable({{"metric", "metric"}}, kInText).AddRow({Cell::Text("per region")});
  report.AddTable({{"region", "region"}}, kInCsv).AddRow({Cell::Text("all regions")});
  EXPECT_EQ(Render(report, OutputFormat::kTable), "metric\nper region\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "region\nall regions\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson), "{}\n");
}

TEST(Render, JsonKeyedByTheFirstColumn) {
  Report report;
  Table& table = report.AddTable(
      {{"metric", "metric"}, {"trusted", "trusted"}, Column("note", "note").OmitNullInJson()},
      kInAll, "metrics");
  table.KeyJsonByFirstColumn();
  table.AddRow({Cell::Text("flops"), Cell::Bool(true, "yes"), Cell::TextOrNull("")});
  table.AddRow({Cell::Text("bytes_l1"), Cell::Bool(false, "no"), Cell::TextOrNull("scaled")});
  EXPECT_EQ(Render(report, OutputFormat::kJson),
            "{\"metrics\":{\"flops\":{\"trusted\":true},"
            "\"bytes_l1\":{\"trusted\":false,\"note\":\"scaled\"}}}\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv),
            "metric,trusted,note\nflops,true,\nbytes_l1,false,scaled\n");
  EXPECT_EQ(Render(report, OutputFormat::kTable),
            "metric    trusted  note\n"
            "flops     yes\n"
            "bytes_l1  no       scaled\n");
}

TEST(Render, StructuredCellsAreJsonThereAndFlatElsewhere) {
  Report report;
  report.AddTable({{"params", "params"}, {"big", "big", Align::kRight}})
      .AddRow({Cell::Json("{\"n\":1000}", "n=1000"),
               Cell::Json("12345678901234567", "12345678901234567")});
  EXPECT_EQ(Render(report, OutputFormat::kJson),
            "[{\"params\":{\"n\":1000},\"big\":12345678901234567}]\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "params,big\nn=1000,12345678901234567\n");
}

TEST(Render, OwnJsonWriterReplacesTheParts) {
  Report report;
  report.AddTable({{"metric", "metric"}}).AddRow({Cell::Text("flops")});
  report.SetJson(
      [](JsonWriter* w) { w->BeginObject().Key("nested").BeginArray().EndArray().EndObject(); });
  EXPECT_EQ(Render(report, OutputFormat::kJson), "{\"nested\":[]}\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "metric\nflops\n");
}

TEST(Render, EmptyTableKeepsItsHeader) {
  Report report;
  report.AddTable({{"id", "id"}, {"target", "target"}});
  EXPECT_EQ(Render(report, OutputFormat::kTable), "id  target\n");
  EXPECT_EQ(Render(report, OutputFormat::kCsv), "id,target\n");
  EXPECT_EQ(Render(report, OutputFormat::kJson), "[]\n");
}

// What a TableStream writes for `rows` rows of Runs()'s columns.
std::string Streamed(OutputFormat format, const std::vector<std::vector<Cell>>& rows) {
  std::ostringstream out;
  TableStream stream({{"run_id", "run", Align::kRight},
                      {"target", "target"},
                      {"gflops", "GFLOP/s", Align::kRight}},
                     format, &out);
  for (const std::vector<Cell>& row : rows) stream.AddRow(row);
  stream.Finish();
  return out.str();
}

TEST(TableStream, WritesWhatRenderWritesForTheSameTable) {
  const Report runs = Runs();
  const std::vector<std::vector<Cell>>& rows = runs.parts()[0].table->rows();
  for (OutputFormat format : {OutputFormat::kTable, OutputFormat::kCsv, OutputFormat::kJson}) {
    SCOPED_TRACE(static_cast<int>(format));
    EXPECT_EQ(Streamed(format, rows), Render(runs, format));
    Report empty;
    empty.AddTable(runs.parts()[0].table->columns());
    EXPECT_EQ(Streamed(format, {}), Render(empty, format));
  }
}

TEST(TableStream, CsvAndJsonRowsAreWrittenAsTheyArrive) {
  std::ostringstream out;
  TableStream csv({{"n", "n"}}, OutputFormat::kCsv, &out);
  EXPECT_EQ(out.str(), "n\n");
  csv.AddRow({Cell::Int(1)});
  EXPECT_EQ(out.str(), "n\n1\n");
  out.str("");
  TableStream json({{"n", "n"}}, OutputFormat::kJson, &out);
  json.AddRow({Cell::Int(1)});
  json.AddRow({Cell::Int(2)});
  EXPECT_EQ(out.str(), "[{\"n\":1},{\"n\":2}");
  json.Finish();
  EXPECT_EQ(out.str(), "[{\"n\":1},{\"n\":2}]\n");
}

TEST(TableStream, TextAlignsOnItsFirstRowsThenWritesEachRow) {
  std::ostringstream out;
  TableStream text({{"name", "name"}, {"n", "n", Align::kRight}}, OutputFormat::kTable, &out);
  for (size_t i = 1; i < TableStream::kTextAlignRows; ++i) {
    std::string name = "r";
    name += std::to_string(i % 10);  // ("r" + to_string() trips GCC 12's -Wrestrict)
    text.AddRow({Cell::Text(name), Cell::Int(static_cast<long long>(i))});
  }
  EXPECT_EQ(out.str(), "");  // held until the widths are known
  text.AddRow({Cell::Text("r0"), Cell::Int(1000)});
  const std::string first = out.str();
  EXPECT_EQ(static_cast<size_t>(std::count(first.begin(), first.end(), '\n')),
            TableStream::kTextAlignRows + 1);  // the header and the rows so far
  EXPECT_EQ(first.substr(0, 24), "name     n\nr1       1\nr2");
  out.str("");
  text.AddRow({Cell::Text("wider than the rest"), Cell::Int(7)});
  EXPECT_EQ(out.str(), "wider than the rest     7\n");  // written at once, on the same widths
  out.str("");
  text.AddRow({Cell::Text("\x1b[1mbold"), Cell::Int(8)});
  text.Finish();
  EXPECT_EQ(out.str(), "\\x1b[1mbold     8\n");
}

TEST(OutputFormat, EveryNameParsesAndIsListed) {
  EXPECT_EQ(OutputFormatNames(), "table, csv or json");
  EXPECT_EQ(ParseOutputFormat("table"), OutputFormat::kTable);
  EXPECT_EQ(ParseOutputFormat("csv"), OutputFormat::kCsv);
  EXPECT_EQ(ParseOutputFormat("json"), OutputFormat::kJson);
  EXPECT_EQ(ParseOutputFormat("xml"), std::nullopt);
}

}  // namespace
}  // namespace rprof
