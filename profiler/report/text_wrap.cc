#include "report/text_wrap.h"

#include <algorithm>

#include "core/utf8.h"

namespace rprof {

namespace {

// The byte offset where each character of `text` begins, and text.size() at the end.
std::vector<size_t> CharStarts(std::string_view text) {
  std::vector<size_t> starts;
  for (size_t at = 0; at < text.size(); at += NextUtf8Char(text.substr(at)).length)
    starts.push_back(at);
  starts.push_back(text.size());
  return starts;
}

// How far a line's continuation hangs in from the line's start: past a numbered item's "12. ",
// else `hang`.
size_t Hang(std::string_view text, size_t hang) {
  size_t digits = text.find_first_not_of("0123456789");
  if (digits > 0 && digits != std::string_view::npos && text.substr(digits, 2) == ". ")
    return digits + 2;
  return hang;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether a long word may break after its character `at` (`at` + 1 < word.size()): after
// , ; : + / = ) and, inside names, - and _; never between two digits, so a number, a date or
// a time ("2026-12-01T21:28:05Z", "1,024") stays whole.
bool BreaksAfter(std::string_view word, size_t at, WordBreaks breaks) {
  if (breaks == WordBreaks::kName && word[at] != ':' && word[at] != ',' && word[at] != '=')
    return false;
  // "PMU::EVENT": the two colons are one separator.
  if (breaks == WordBreaks::kName && word[at] == ':' && word[at + 1] == ':') return false;
  switch (word[at]) {
    case ',':
    case ';':
    case ':':
    case '+':
    case '/':
    case '=':
    case ')':
    case '-':
    case '_':
      break;
    default:
      return false;
  }
  bool digits_around = at > 0 && IsDigit(word[at - 1]) && IsDigit(word[at + 1]);
  return !digits_around;
}

// Cuts a word too wide for its line into pieces: the first at most `first_width` columns, the
// others at most `width`, each ending after a break character where the piece has one. Linear
// in the word: its characters are found once (a 1 MiB word, a note without spaces, took 30 s
// when each piece searched the rest of the word again).
void BreakWord(std::string_view word, size_t first_width, size_t width, WordBreaks breaks,
               std::vector<std::string>* pieces) {
  const std::vector<size_t> starts = CharStarts(word);
  const size_t chars = starts.size() - 1;
  size_t first = 0;  // the piece's first character
  for (size_t room = first_width; chars - first > room; room = width) {
    size_t end = first + room;  // the first `room` characters
    for (size_t i = first + room; i > first + 1; --i)
      if (BreaksAfter(word, starts[i] - 1, breaks)) {
        end = i;
        break;
      }
    pieces->emplace_back(word.substr(starts[first], starts[end] - starts[first]));
    first = end;
  }
  pieces->emplace_back(word.substr(starts[first]));
}

// The words of `text`, a run of spaces being one break; a short number stays with the word
// before it ("see note 1", "pass 2"), and a percent sign with the number before it ("33 %",
// "17 %)"), as one unit.
std::vector<std::string> Units(std::string_view text) {
  std::vector<std::string> units;
  for (size_t at = 0; at <= text.size();) {
    size_t space = std::min(text.find(' ', at), text.size());
    std::string_view word = text.substr(at, space - at);
    at = space + 1;
    if (word.empty()) continue;
    bool short_number = word.size() <= 3 && word.find_first_not_of("0123456789") == word.npos;
    bool percent_sign = word.size() <= 2 && word[0] == '%';
    if ((short_number || percent_sign) && !units.empty())
      units.back() += " " + std::string(word);
    else
      units.emplace_back(word);
  }
  return units;
}

}  // namespace

size_t DisplayWidth(std::string_view text) { return CharStarts(text).size() - 1; }

size_t LongestUnbreakable(std::string_view text, WordBreaks breaks) {
  size_t longest = 0;
  for (const std::string& unit : Units(text)) {
    size_t start = 0;
    for (size_t at = 0; at + 1 < unit.size(); ++at)
      if (BreaksAfter(unit, at, breaks)) {
        longest =
            std::max(longest, DisplayWidth(std::string_view(unit).substr(start, at + 1 - start)));
        start = at + 1;
      }
    longest = std::max(longest, DisplayWidth(std::string_view(unit).substr(start)));
  }
  return longest;
}

std::vector<std::string> WrapText(std::string_view text, size_t width, WordBreaks breaks) {
  return WrapText(text, width, width, breaks);
}

std::vector<std::string> WrapText(std::string_view text, size_t first_width, size_t width,
                                  WordBreaks breaks) {
  if (width == 0 || first_width == 0 || DisplayWidth(text) <= first_width)
    return {std::string(text)};
  std::vector<std::string> lines;
  // The width of the line being filled: the first line's, then the others'.
  auto room = [&] { return lines.empty() ? first_width : width; };
  std::string line;
  size_t line_width = 0;
  for (const std::string& unit : Units(text)) {
    std::string_view word = unit;
    size_t word_width = DisplayWidth(word);
    if (!line.empty() && line_width + 1 + word_width <= room()) {
      line += " ";
      line += word;
      line_width += 1 + word_width;
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    std::vector<std::string> pieces;
    BreakWord(word, room(), width, breaks, &pieces);
    for (size_t i = 0; i + 1 < pieces.size(); ++i) lines.push_back(std::move(pieces[i]));
    line = std::move(pieces.back());
    line_width = DisplayWidth(line);
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string WrapProse(std::string_view text, size_t width, size_t hang_by) {
  if (width == 0) return std::string(text);
  std::string out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    size_t indent = line.find_first_not_of(' ');
    // A line indented so far that its text would be squeezed to a sliver is left as it is.
    if (indent == std::string_view::npos || indent + 2 > width / 2 || DisplayWidth(line) <= width) {
      out += line;
    } else {
      size_t hang = indent + Hang(line.substr(indent), hang_by);
      std::vector<std::string> lines = WrapText(line.substr(indent), width - indent, width - hang);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (i) out += '\n';
        out.append(i ? hang : indent, ' ');
        out += lines[i];
      }
    }
    if (end != std::string_view::npos) out += "\n";
  }
  return out;
}

}  // namespace rprof
