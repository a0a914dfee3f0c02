#include "report/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/utf8.h"

namespace rprof {

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char escape[8];
  for (size_t at = 0; at < text.size();) {
    Utf8Char next = NextUtf8Char(text.substr(at));
    std::string_view bytes = text.substr(at, next.length);
    at += next.length;
    if (!next.valid) {
      for (char byte : bytes) {
        std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned char>(byte));
        out += escape;
      }
    } else if (next.code_point == '\n') {
      out += "\\n";
    } else if (next.code_point == '\t') {
      out += "\\t";
    } else if (next.code_point == '\r') {
      out += "\\r";
    } else if (next.code_point < 0x20 || next.code_point == 0x7f) {
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(next.code_point));
      out += escape;
    } else if (next.code_point >= 0x80 && next.code_point <= 0x9f) {
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(next.code_point));
      out += escape;
    } else {
      out += bytes;
    }
  }
  return out;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  right_.resize(header_.size(), false);
  for (std::string& title : header_) title = EscapeForTerminal(title);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  // Escaped before the widths are taken: the escapes are what the terminal shows.
  for (std::string& cell : cells) cell = EscapeForTerminal(cell);
  rows_.push_back(std::move(cells));
}

std::vector<size_t> TextTable::Widths() const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  return width;
}

std::string TextTable::Line(const std::vector<std::string>& cells,
                            const std::vector<size_t>& width) const {
  std::string out;
  for (size_t c = 0; c < cells.size(); ++c) {
    // A cell wider than a fixed width (Flush) gets no padding, rather than a negative one.
    std::string pad(width[c] - std::min(width[c], cells[c].size()), ' ');
    bool last = c + 1 == cells.size();
    out += right_[c] ? pad + cells[c] : cells[c] + (last ? "" : pad);
    if (!last) out += "  ";
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

std::string TextTable::Render() const {
  std::vector<size_t> width = Widths();
  std::string out = Line(header_, width);
  for (const auto& row : rows_) out += Line(row, width);
  return out;
}

std::string TextTable::Flush() {
  std::string out;
  if (!widths_fixed_) {
    fixed_width_ = Widths();
    widths_fixed_ = true;
    out = Line(header_, fixed_width_);
  }
  for (const auto& row : rows_) out += Line(row, fixed_width_);
  rows_.clear();
  return out;
}

std::string FormatValue(const std::optional<double>& value) {
  if (!value) return "-";
  char buf[32];
  double v = *value;
  // Whole counts below ten million read best in full; everything else in 4 significant digits.
  if (v == std::floor(v) && std::fabs(v) < 1e7)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string FormatSeconds(double seconds) {
  char buf[32];
  if (seconds >= 1)
    std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  else if (seconds >= 1e-6)
    std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g ns", seconds * 1e9);
  return buf;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace rprof
