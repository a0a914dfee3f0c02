// The one place an output format is chosen: a Report (report/table.h) as an aligned text table
// for people, CSV for spreadsheets or JSON for scripts. A new format is one more case here and
// one more name in report/output_format.cc; no command changes.
#ifndef RPROF_REPORT_RENDER_H_
#define RPROF_REPORT_RENDER_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "report/output_format.h"
#include "report/table.h"
#include "report/terminal_width.h"
#include "report/text_table.h"

namespace rprof {

// The whole output, ending in a newline (unless the report is empty). The text for people is
// fitted to `text_width` columns (report/terminal_width.h: the CLI asks the terminal): tables
// wrap their long cells, prose its long lines; CSV and JSON are never cut.
std::string Render(const Report& report, OutputFormat format, size_t text_width = kNoWidthLimit);

// One table written to `out` as its rows arrive, for a result too long to hold (rprof query):
// what Render() gives for a report of this table alone, but without holding its rows. CSV and
// JSON write each row at once. The text table must know its column widths before its first
// line: it holds its first kTextAlignRows rows, aligns the columns on them, then writes every
// later row on those widths (a wider cell pushes the rest of its line right).
class TableStream {
 public:
  static constexpr size_t kTextAlignRows = 1000;

  // Writes the CSV header or JSON's opening bracket at once. The text table is fitted to
  // `text_width` as Render() fits it, on its first kTextAlignRows rows.
  TableStream(std::vector<Column> columns, OutputFormat format, std::ostream* out,
              size_t text_width = kNoWidthLimit);
  // Cells in column order; cells left out at the end are absent.
  void AddRow(std::vector<Cell> cells);
  // After the last row: writes what is left (the text table when it has fewer rows than
  // kTextAlignRows, its header alone when none; JSON's closing bracket).
  void Finish();

 private:
  std::vector<Column> columns_;
  OutputFormat format_;
  std::ostream* out_;
  std::vector<size_t> text_shown_;  // the columns the text shows
  TextTable text_;
  size_t rows_ = 0;
};

}  // namespace rprof

#endif  // RPROF_REPORT_RENDER_H_
