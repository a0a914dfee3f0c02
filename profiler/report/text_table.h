// Aligned plain-text tables for the terminal: columns sized to their widest cell, numbers
// right-aligned, every cell and title through EscapeForTerminal. Fitted to a width when told
// one: the one place a table for people is made narrower (report/terminal_width.h decides how
// narrow), so no command wraps or cuts its own cells.
#ifndef RPROF_REPORT_TEXT_TABLE_H_
#define RPROF_REPORT_TEXT_TABLE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// A column of a text table, and what it may give up when the table is too wide.
struct TextColumn {
  std::string title;
  bool right = false;  // a number: right-aligned, never wrapped (its title may be)
  // Prose (notes, descriptions, reasons): it gives up its width first. Too long to sit beside
  // its row on two lines, a note goes beneath the row, indented, on the table's whole width;
  // when the other columns leave it too little room, every note of the column goes beneath.
  bool notes = false;
  // Left out, the rightmost first, when the table cannot fit with it (a line under the table
  // says so): for a column people can do without on a narrow terminal.
  bool optional = false;
  // Names a user types back (an event, a target): each word kept whole however long, the
  // optional columns left out first. Else a word past kLongestWholeWord may break where a word
  // may (after '_', ':', '-').
  bool whole_words = false;
};

class TextTable {
 public:
  explicit TextTable(std::vector<TextColumn> columns);
  // `right_aligned[i]` for numeric columns.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void AddRow(std::vector<std::string> cells);
  // The widest a line may be, in columns (0, the default: no limit, each row on one line).
  // Where the natural widths do not fit: the notes give up their room, then text columns wrap,
  // the widest first, down to their longest word (else a few characters), then optional
  // columns are left out. Too many columns even so (a wide SQL result): each row is printed
  // as a record, a line per column, as psql's expanded display does.
  void FitTo(size_t width) { width_ = width; }
  std::string Render() const;
  bool empty() const { return rows_.empty(); }
  size_t size() const { return rows_.size(); }

  // For a table written while its rows arrive, too long to hold: the first call fixes the
  // layout on the header and the rows so far and returns them as Render() would; each later
  // call returns the rows added since, in that layout (a cell wider than its column wraps
  // where that column wrapped in the first rows, else pushes the rest of its line right).
  // Either way the rows returned are let go.
  std::string Flush();

 private:
  // Where each column goes and how wide it is.
  struct Layout {
    std::vector<size_t> width;
    std::vector<bool> wraps;     // narrower than its natural width: its cells wrap
    std::vector<bool> beneath;   // a notes column whose every note goes beneath its row
    std::vector<bool> left_out;  // an optional column with no room
    // Too many columns for a line even at their least: each row a record, a line a column.
    bool records = false;
  };
  Layout Fit() const;
  std::string Row(const std::vector<std::string>& cells, const Layout& layout,
                  bool is_header = false) const;
  // One row as a record: "title  value" a column, values wrapped beside their titles.
  std::string Record(const std::vector<std::string>& cells) const;
  // "" or the line saying which columns were left out.
  std::string LeftOutLine(const Layout& layout) const;

  std::vector<TextColumn> columns_;
  std::vector<std::string> header_;  // the titles, escaped
  std::vector<std::vector<std::string>> rows_;
  size_t width_ = 0;
  std::optional<Layout> fixed_;  // set by the first Flush()
  size_t flushed_ = 0;           // rows written by Flush() so far
};

// `text` safe to print on a terminal, for text that rprof did not write itself (a program's
// arguments, a tag, a plugin's message, a SQL result): control characters in C's escapes
// ("\n", "\t", "\r", else "\x1b" and the like), C1 controls as "\u009b", and each byte that
// is not UTF-8 as "\xff". So an escape sequence cannot recolour or move the terminal, nor a
// newline break a table's lines. A backslash stays as it is: this is for people to read, and
// CSV and JSON keep every value exactly.
std::string EscapeForTerminal(std::string_view text);

// A value for a table cell: 4 significant digits, "-" for none.
std::string FormatValue(const std::optional<double>& value);
// "12.3 ms", "4.56 s", "789 ns".
std::string FormatSeconds(double seconds);
// One CSV field, quoted when it holds a comma, quote or newline.
std::string CsvField(const std::string& text);

}  // namespace rprof

#endif  // RPROF_REPORT_TEXT_TABLE_H_
