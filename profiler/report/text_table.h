// Aligned plain-text tables for the terminal: columns sized to their widest cell, numbers
// right-aligned, every cell and title through EscapeForTerminal.
#ifndef RPROF_REPORT_TEXT_TABLE_H_
#define RPROF_REPORT_TEXT_TABLE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

class TextTable {
 public:
  // `right_aligned[i]` for numeric columns.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void AddRow(std::vector<std::string> cells);
  std::string Render() const;
  bool empty() const { return rows_.empty(); }
  size_t size() const { return rows_.size(); }

  // For a table written while its rows arrive, too long to hold: the first call fixes the
  // column widths on the header and the rows so far and returns them as Render() would; each
  // later call returns the rows added since, on those widths (a wider cell pushes the rest of
  // its line right). Either way the rows returned are let go.
  std::string Flush();

 private:
  std::vector<size_t> Widths() const;
  std::string Line(const std::vector<std::string>& cells, const std::vector<size_t>& width) const;

  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<size_t> fixed_width_;  // set by the first Flush()
  bool widths_fixed_ = false;
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
