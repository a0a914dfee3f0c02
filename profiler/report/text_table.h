// Aligned plain-text tables for the terminal: columns sized to their widest cell, numbers
// right-aligned.
#ifndef RPROF_REPORT_TEXT_TABLE_H_
#define RPROF_REPORT_TEXT_TABLE_H_

#include <optional>
#include <string>
#include <vector>

namespace rprof {

class TextTable {
 public:
  // `right_aligned[i]` for numeric columns.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void AddRow(std::vector<std::string> cells);
  std::string Render() const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// A value for a table cell: 4 significant digits, "-" for none.
std::string FormatValue(const std::optional<double>& value);
// "12.3 ms", "4.56 s", "789 ns".
std::string FormatSeconds(double seconds);
// One CSV field, quoted when it holds a comma, quote or newline.
std::string CsvField(const std::string& text);

}  // namespace rprof

#endif  // RPROF_REPORT_TEXT_TABLE_H_
