#include "report/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/utf8.h"
#include "report/text_wrap.h"

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

namespace {

constexpr size_t kGap = 2;  // spaces between two columns
// The least a text column is wrapped down to, and a notes column beside its row: narrower, a
// word in three pieces is harder to read than a longer line.
constexpr size_t kLeastTextWidth = 10;
// Words up to this long are kept whole where the width allows it.
constexpr size_t kLongestWholeWord = 24;
constexpr size_t kLeastNotesWidth = 16;
// A note longer than this many lines beside its row goes beneath it, where it has the width.
constexpr size_t kMostNoteLinesBeside = 2;
constexpr size_t kNoteIndent = 4;  // a note beneath its row, indented under the row's start

size_t LongestWord(std::string_view text) {
  size_t longest = 0;
  while (!text.empty()) {
    size_t space = std::min(text.find(' '), text.size());
    longest = std::max(longest, DisplayWidth(text.substr(0, space)));
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  return longest;
}

// Widths for `columns` within `room`: as close to natural as fits, the widest cut first, none
// below its least. The least of each when even that does not fit.
void Share(const std::vector<size_t>& columns, size_t room, const std::vector<size_t>& natural,
           const std::vector<size_t>& least, std::vector<size_t>* width) {
  size_t cap = 0;
  for (size_t c : columns) cap = std::max(cap, natural[c]);
  auto at = [&](size_t c, size_t cap_now) {
    return std::max(least[c], std::min(natural[c], cap_now));
  };
  for (;; --cap) {
    size_t total = 0;
    for (size_t c : columns) total += at(c, cap);
    if (total <= room || cap == 0) break;
  }
  for (size_t c : columns) (*width)[c] = at(c, cap);
}

// The lines of `cell` in a column `width` wide that `wraps`.
std::vector<std::string> CellLines(const std::string& cell, size_t width, bool wraps,
                                   WordBreaks breaks) {
  return wraps ? WrapText(cell, width, breaks) : std::vector<std::string>{cell};
}

// A name a user types back breaks only between its parts (text_wrap.h).
WordBreaks BreaksOf(const TextColumn& column) {
  return column.whole_words ? WordBreaks::kName : WordBreaks::kText;
}

}  // namespace

TextTable::TextTable(std::vector<TextColumn> columns) : columns_(std::move(columns)) {
  for (const TextColumn& column : columns_) header_.push_back(EscapeForTerminal(column.title));
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : TextTable([&] {
        std::vector<TextColumn> columns;
        for (size_t c = 0; c < header.size(); ++c)
          columns.push_back({header[c], c < right_aligned.size() && right_aligned[c]});
        return columns;
      }()) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  // Escaped before the widths are taken: the escapes are what the terminal shows.
  for (std::string& cell : cells) cell = EscapeForTerminal(cell);
  rows_.push_back(std::move(cells));
}

TextTable::Layout TextTable::Fit() const {
  const size_t n = header_.size();
  std::vector<size_t> natural(n), least(n), least_whole(n);
  for (size_t c = 0; c < n; ++c) {
    const TextColumn& column = columns_[c];
    size_t cells = 0, word = 0, piece = 0;
    for (const auto& row : rows_) {
      cells = std::max(cells, DisplayWidth(row[c]));
      word = std::max(word, LongestWord(row[c]));
      piece = std::max(piece, LongestUnbreakable(row[c], BreaksOf(column)));
    }
    size_t title = LongestWord(header_[c]);
    natural[c] = std::max(cells, DisplayWidth(header_[c]));
    // Numbers keep their width; text and notes wrap down to their longest word (up to
    // kLongestWholeWord) where that fits, else to their longest piece between the places a
    // word may break (matmul- naive, DRAM-bandwidth- bound): never inside a word or number. A
    // column that cannot have that much is left out (optional) or the rows become records.
    size_t floor = std::max(title, column.notes ? kLeastNotesWidth : kLeastTextWidth);
    least[c] = column.right ? std::max(cells, title) : std::min(natural[c], std::max(floor, piece));
    least_whole[c] =
        column.right
            ? least[c]
            : std::min(natural[c],
                       std::max({floor, piece,
                                 column.whole_words ? word : std::min(word, kLongestWholeWord)}));
  }
  Layout layout{natural, std::vector<bool>(n, false), std::vector<bool>(n, false),
                std::vector<bool>(n, false)};
  auto sum = [](const std::vector<size_t>& columns, const std::vector<size_t>& widths) {
    size_t total = columns.empty() ? 0 : kGap * (columns.size() - 1);
    for (size_t c : columns) total += widths[c];
    return total;
  };
  std::vector<size_t> all, notes, others;
  for (size_t c = 0; c < n; ++c) {
    all.push_back(c);
    (columns_[c].notes ? notes : others).push_back(c);
  }
  if (width_ == 0 || sum(all, natural) <= width_) return layout;
  // Too wide: a number's title wraps first, which costs a header line, not a line a row.
  for (size_t c = 0; c < n; ++c)
    if (columns_[c].right) natural[c] = least[c];

  size_t beside = sum(others, natural);
  for (size_t c : notes) beside += kGap + least[c];
  if (!notes.empty() && beside <= width_) {
    // Every other column whole, the notes in what is left.
    size_t room = width_ - sum(others, natural) - kGap * notes.size();
    Share(notes, room, natural, least, &layout.width);
  } else {
    // The notes beneath their rows; the other columns share the line, their words whole where
    // they can be; too wide even so, without the optional columns; then with words cut.
    for (size_t c : notes) layout.beneath[c] = true;
    std::vector<size_t> on_line = notes.empty() ? all : others;
    for (;;) {
      auto optional = std::find_if(on_line.rbegin(), on_line.rend(),
                                   [&](size_t c) { return columns_[c].optional; });
      if (sum(on_line, least_whole) <= width_ || optional == on_line.rend()) break;
      layout.left_out[*optional] = true;
      on_line.erase(std::next(optional).base());
    }
    if (sum(on_line, least) > width_) {
      // No line holds them all: records, every column in them.
      layout.records = true;
      std::fill(layout.left_out.begin(), layout.left_out.end(), false);
      return layout;
    }
    size_t gaps = on_line.empty() ? 0 : kGap * (on_line.size() - 1);
    Share(on_line, width_ > gaps ? width_ - gaps : 0, natural,
          sum(on_line, least_whole) <= width_ ? least_whole : least, &layout.width);
  }
  for (size_t c = 0; c < n; ++c) layout.wraps[c] = layout.width[c] < natural[c];
  return layout;
}

std::string TextTable::Record(const std::vector<std::string>& cells) const {
  size_t title_width = 0;
  for (const std::string& title : header_) title_width = std::max(title_width, DisplayWidth(title));
  title_width = std::min(title_width, width_ / 3);
  size_t value_width = width_ > title_width + kGap ? width_ - title_width - kGap : 0;
  std::string out;
  for (size_t c = 0; c < cells.size(); ++c) {
    std::vector<std::string> titles = WrapText(header_[c], title_width);
    std::vector<std::string> values = WrapText(cells[c], value_width);
    for (size_t i = 0; i < std::max(titles.size(), values.size()); ++i) {
      std::string line = i < titles.size() ? titles[i] : "";
      if (i < values.size() && !values[i].empty())
        line += std::string(title_width - std::min(title_width, DisplayWidth(line)) + kGap, ' ') +
                values[i];
      out += line + "\n";
    }
  }
  return out;
}

std::string TextTable::Row(const std::vector<std::string>& cells, const Layout& layout,
                           bool is_header) const {
  if (layout.records) return is_header ? "" : Record(cells);
  std::vector<size_t> on_line;
  for (size_t c = 0; c < cells.size(); ++c)
    if (!layout.beneath[c] && !layout.left_out[c]) on_line.push_back(c);
  // Each column's lines; a note too long beside its row goes beneath it.
  std::vector<std::vector<std::string>> lines(cells.size());
  std::vector<size_t> beneath;
  size_t height = 1;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (layout.left_out[c]) continue;
    if (layout.beneath[c]) {
      if (!is_header && !cells[c].empty()) beneath.push_back(c);
      continue;
    }
    lines[c] = CellLines(cells[c], layout.width[c], layout.wraps[c] || is_header,
                         is_header ? WordBreaks::kText : BreaksOf(columns_[c]));
    if (!is_header && columns_[c].notes && width_ > 0 && lines[c].size() > kMostNoteLinesBeside) {
      beneath.push_back(c);
      lines[c] = {""};
    }
    height = std::max(height, lines[c].size());
  }
  std::string out;
  for (size_t i = 0; i < height; ++i) {
    std::string line;
    for (size_t k = 0; k < on_line.size(); ++k) {
      size_t c = on_line[k];
      const std::string& text = i < lines[c].size() ? lines[c][i] : "";
      // A cell wider than a fixed width (Flush) gets no padding, rather than a negative one.
      size_t shown = DisplayWidth(text);
      std::string pad(layout.width[c] - std::min(layout.width[c], shown), ' ');
      bool last = k + 1 == on_line.size();
      line += columns_[c].right ? pad + text : text + (last ? "" : pad);
      if (!last) line += std::string(kGap, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  const std::string indent(kNoteIndent, ' ');
  for (size_t c : beneath)
    for (const std::string& note :
         WrapText(cells[c], width_ > kNoteIndent ? width_ - kNoteIndent : 0))
      out += indent + note + "\n";
  return out;
}

std::string TextTable::LeftOutLine(const Layout& layout) const {
  std::string names;
  for (size_t c = 0; c < header_.size(); ++c)
    if (layout.left_out[c]) names += (names.empty() ? "" : ", ") + header_[c];
  if (names.empty()) return "";
  return WrapProse("(left out to fit " + std::to_string(width_) + " columns: " + names +
                       "; COLUMNS=0 shows every column)\n",
                   width_);
}

std::string TextTable::Render() const {
  Layout layout = Fit();
  std::string out = Row(header_, layout, true);
  for (size_t r = 0; r < rows_.size(); ++r)
    out += (layout.records && r > 0 ? "\n" : "") + Row(rows_[r], layout);
  return out + LeftOutLine(layout);
}

std::string TextTable::Flush() {
  std::string out;
  if (!fixed_) {
    fixed_ = Fit();
    out = Row(header_, *fixed_, true);
  }
  for (const auto& row : rows_)
    out += (fixed_->records && flushed_++ > 0 ? "\n" : "") + Row(row, *fixed_);
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
